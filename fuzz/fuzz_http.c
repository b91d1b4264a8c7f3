/* fuzz_http.c - the agent's HTTP routes without a socket: a running agent (gpusim's two-GPU scenario,
 * the history, alerts and diagnosis plugins) answers requests built from the input through
 * http_route, the routing on_request does after authorization: /, /healthz, /api/v1/gpus,
 * /api/v1/processes, /api/v1/samples and the plugins' routes (/api/v1/query_range, /api/v1/alerts,
 * /api/v1/findings). Input: "PATH?QUERY" (name=value pairs split on '&', %XX decoded as
 * libmicrohttpd decodes them); a first byte 'H' makes it a HEAD, 'P' a POST. */
#include "agent.h"
#include "common.h"
#include "plugins.h"
#include "http_server.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static agent *A;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_quiet();
    setenv("GPUWATCH_NVML_LIB", GW_BUILD_DIR "/gpusim/libnvidia-ml.so.1", 1);
    setenv("GPUSIM_SCENARIO", GW_SOURCE_DIR "/tests/scenarios/agent_two.yaml", 1);
    char text[4400];
    snprintf(text, sizeof text,
             "listen: 127.0.0.1:0\ninterval: 100ms\nhistory:\n  path: %s/agent.db\n  flush_interval: 200ms\n"
             "diagnosis:\n  interval: 1s\n",
             fuzz_dir());
    gw_config *cfg = malloc(sizeof *cfg);
    config_init(cfg);
    agent_cli cli = {0};
    A = calloc(1, sizeof *A);
    char err[256];
    if (config_load_string(cfg, text, "fuzz.yaml") != 0 || agent_init(A, cfg, &cli) != 0 ||
        agent_add_plugin(A, &history_plugin, A->cfg) != 0 || agent_add_plugin(A, &alerts_plugin, A->cfg) != 0 ||
        agent_add_plugin(A, &diagnosis_plugin, A->cfg) != 0 || agent_start(A, err, sizeof err) != 0) {
        fprintf(stderr, "fuzz_http: the agent did not start\n");
        exit(1);
    }
    usleep(1500000); /* a few rounds in the ring, a flush in the history */
    return 0;
}

typedef struct query {
    int n;
    char *name[64], *value[64];
} query;

static const char *param(const agent_request *req, const char *name)
{
    const query *q = req->impl;
    for (int i = 0; i < q->n; i++)
        if (strcmp(q->name[i], name) == 0)
            return q->value[i];
    return NULL;
}

static int hex(int c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* %XX decoded in place (an embedded %00 ends the text, as it would in a C string). */
static void unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (*r == '%' && hex(r[1]) >= 0 && hex(r[2]) >= 0) {
            *w++ = (char)(hex(r[1]) * 16 + hex(r[2]));
            r += 2;
        } else {
            *w++ = *r;
        }
    }
    *w = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *method = "GET";
    if (size && (data[0] == 'H' || data[0] == 'P')) {
        method = data[0] == 'H' ? "HEAD" : "POST";
        data++, size--;
    }
    char *url = fuzz_text(data, size);
    if (!url)
        return 0;
    query q = {0};
    char *qs = strchr(url, '?');
    if (qs) {
        *qs++ = 0;
        for (char *save = NULL, *kv = strtok_r(qs, "&", &save); kv && q.n < 64; kv = strtok_r(NULL, "&", &save)) {
            char *eq = strchr(kv, '=');
            if (eq)
                *eq++ = 0;
            unescape(kv);
            if (eq)
                unescape(eq);
            q.name[q.n] = kv;
            q.value[q.n++] = eq ? eq : "";
        }
    }
    unescape(url);
    agent_request req = {method, url, param, &q};
    agent_response resp = {.status = 200, .content_type = "application/json"};
    buf_init(&resp.body);
    http_route(A, &req, &resp);
    buf_release(&resp.body);
    free(url);
    return 0;
}
