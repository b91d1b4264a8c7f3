/* agent_client.h - a gpuwatch agent as a client sees it: its /api/v1 answers fetched over one
 * keep-alive connection (http_client.h) and decoded by agent_api.h, bounded and validated. What
 * top --host, run and diagnose --host read an agent through. */
#ifndef GPUWATCH_AGENT_CLIENT_H
#define GPUWATCH_AGENT_CLIENT_H

#include <stddef.h>
#include "agent_api.h"
#include "http_client.h"

/* agent_client_findings: the agent does not serve findings (404: diagnosis off, or an older agent). */
#define AGENT_NOT_SERVED 1

typedef struct agent_client agent_client;

/* NULL with the reason in err (libcurl missing, password file unreadable). Nothing is fetched yet. */
agent_client *agent_client_open(const http_client_opts *o, char *err, size_t n);
void agent_client_close(agent_client *c);
/* "http://HOST:PORT" */
const char *agent_client_base(const agent_client *c);
/* The detector ids findings may name (the diagnosis' table: diag_detector_id, diag_detector_count);
 * findings of others are left out. */
void agent_client_set_detectors(agent_client *c, const char *(*id)(int i), int n);

/* Asks /api/v1/gpus for these metrics alone (?metrics=: an agent that does not know the parameter
 * sends them all, decoded the same); the others are then absent. 0, or -1 when the list is too
 * long for one request (nothing changed). */
int agent_client_want_metrics(agent_client *c, const metric_id *ids, int n);

/* Each fetches and decodes one answer into out: 0, or -1 with err filled ("agent http://...: HTTP
 * 500", ".../api/v1/gpus: not JSON"); out is then empty. Once GPUs are read, the later answers' GPU
 * indexes are checked against their count. */
int agent_client_gpus(agent_client *c, api_gpus *out, char *err, size_t n);
int agent_client_processes(agent_client *c, api_procs *out, char *err, size_t n);
/* metric's points over the last since_s seconds, the newest max_points of each GPU. */
int agent_client_samples(agent_client *c, metric_id metric, double since_s, int max_points, api_samples *out, char *err,
                         size_t n);
int agent_client_alerts(agent_client *c, api_alerts *out, char *err, size_t n);
/* 0, AGENT_NOT_SERVED, or -1 with err filled. */
int agent_client_findings(agent_client *c, diag_report *out, char *err, size_t n);

#endif
