/* diag_agent.c - `gpuwatch diagnose --host`: a running agent's current findings (/api/v1/findings). */
#include "diag_sources.h"
#include "http_client.h"
#include "util.h"
#include <stdio.h>

int diag_from_agent(const http_client_opts *o, diag_report *out)
{
    char err[512];
    http_client *c = http_client_open(o, err, sizeof err);
    if (!c) {
        fprintf(stderr, "gpuwatch diagnose: %s\n", err);
        return 1;
    }
    gw_buf body;
    buf_init(&body);
    long status = http_client_get(c, "/api/v1/findings", &body, err, sizeof err);
    int rc = 0;
    if (status == 404) {
        fprintf(stderr,
                "gpuwatch diagnose: the agent at %s does not diagnose (diagnosis.enabled: false, or an "
                "older gpuwatch)\n",
                o->host);
        rc = 1;
    } else if (status != 200) {
        fprintf(stderr, "gpuwatch diagnose: %s\n", err);
        rc = 1;
    } else if (diag_report_from_json(body.data, out) != 0) {
        fprintf(stderr, "gpuwatch diagnose: %s/api/v1/findings: not a findings report\n", http_client_base(c));
        rc = 1;
    }
    buf_release(&body);
    http_client_close(c);
    return rc;
}
