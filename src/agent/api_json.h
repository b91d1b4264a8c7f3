/* api_json.h - the JSON API (/api/v1/gpus, /api/v1/processes, /api/v1/samples), /healthz and the
 * index page, answered from snapshots and the ring (never from the backend). */
#ifndef GPUWATCH_API_JSON_H
#define GPUWATCH_API_JSON_H

#include "agent.h"

void api_gpus(agent *a, const agent_request *req, agent_response *resp);
void api_processes(agent *a, const agent_request *req, agent_response *resp);
void api_samples(agent *a, const agent_request *req, agent_response *resp);
void api_healthz(agent *a, const agent_request *req, agent_response *resp);
void api_index(agent *a, const agent_request *req, agent_response *resp);
/* {"error": msg} with a status. */
void api_error(agent_response *resp, int status, const char *msg);

#endif
