/* remote_http.h - the HTTP side of top --host: one keep-alive libcurl handle to the agent and
 * small JSON readers. Used by the remote source and its history prefill. */
#ifndef GPUWATCH_TOP_REMOTE_HTTP_H
#define GPUWATCH_TOP_REMOTE_HTTP_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "top_model.h"

typedef struct remote_http {
    void *curl;     /* CURL * */
    char base[128]; /* http(s)://HOST:PORT */
    char password[256];
    char *body;
    size_t len;
} remote_http;

/* Sets the handle up from the options; returns 0, or -1 with err filled. */
int remote_http_open(remote_http *h, const top_remote_opts *o, char *err, size_t errlen);
void remote_http_close(remote_http *h);
/* GETs path and parses the JSON answer; NULL with err filled (HTTP status, curl error, not JSON). */
cJSON *remote_get_json(remote_http *h, const char *path, char *err, size_t errlen);

const char *jstr(const cJSON *o, const char *key);
/* A number (or a boolean as 0/1) under key; 0 when absent or null. */
int jnum(const cJSON *o, const char *key, double *out);

/* Fills the chart ring with the agent's recent history of the charted metrics (best effort). */
void remote_prefill_history(remote_http *h, ring *r, int ngpus);

#endif
