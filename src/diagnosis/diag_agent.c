/* diag_agent.c - `gpuwatch diagnose --host`: a running agent's current findings (/api/v1/findings),
 * read through the client layer (agent_client.h: bounded and validated). */
#include "diag_sources.h"
#include "agent_client.h"
#include <stdio.h>

int diag_from_agent(const http_client_opts *o, diag_report *out)
{
    char err[512];
    agent_client *c = agent_client_open(o, err, sizeof err);
    if (!c) {
        fprintf(stderr, "gpuwatch diagnose: %s\n", err);
        return 1;
    }
    agent_client_set_detectors(c, diag_detector_id, diag_detector_count());
    int rc = agent_client_findings(c, out, err, sizeof err);
    if (rc == AGENT_NOT_SERVED)
        fprintf(stderr,
                "gpuwatch diagnose: the agent at %s does not diagnose (diagnosis.enabled: false, or an "
                "older gpuwatch)\n",
                agent_client_base(c));
    else if (rc != 0)
        fprintf(stderr, "gpuwatch diagnose: %s\n", err);
    agent_client_close(c);
    return rc == 0 ? 0 : 1;
}
