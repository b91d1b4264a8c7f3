/* rw_http.h - HTTP/1.1 POSTs over a plain TCP connection kept alive between requests, for http://
 * endpoints. libcurl (rw_client.c) serves https://: loading it and its TLS libraries costs the agent
 * about 5 MB of resident memory (docs/fleet.md), a quarter of it, which an endpoint on the cluster's
 * network does not need. Bounded: response headers at most 64 KiB, the body read and dropped but
 * its first bytes. */
#ifndef GPUWATCH_RW_HTTP_H
#define GPUWATCH_RW_HTTP_H

#include <stddef.h>

typedef struct rw_http rw_http;

/* What a response said that the sender uses. */
typedef struct rw_http_answer {
    long status; /* 0: no answer (error says why) */
    char retry_after[64];
    long long written; /* X-Prometheus-Remote-Write-Samples-Written, -1 absent */
    int written_headers;
    char body[256];
    char error[256];
} rw_http_answer;

/* url: "http://host[:port][/path]" (host a name, an IPv4 address or [IPv6]). NULL with why in err
 * when it is not one. abort: a request in progress ends soon after *abort becomes non-zero. */
rw_http *rw_http_new(const char *url, double timeout_s, const volatile int *abort, char *err, size_t n);
void rw_http_free(rw_http *h);
/* POSTs body with headers ("Name: value" lines, n of them; Host, Content-Length and Connection are
 * added). Returns 0 when an answer came, -1 when none did (a->error). */
int rw_http_post(rw_http *h, const char *const *headers, int nheaders, const void *body, size_t len, rw_http_answer *a);

#endif
