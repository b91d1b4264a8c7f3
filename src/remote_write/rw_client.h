/* rw_client.h - one endpoint's HTTP side: POSTs a compressed request with the headers its version
 * requires (Content-Encoding, Content-Type, X-Prometheus-Remote-Write-Version, User-Agent), the
 * endpoint's own headers, basic auth or a bearer token read from its file at each request (so a
 * rotated secret is picked up), its TLS files; and reads what the answer says (status, Retry-After,
 * the 2.0 Written headers, an excerpt of the body for the log). https:// goes through libcurl
 * (loaded lazily), http:// through rw_http.c (no TLS library loaded); the connection is kept
 * between requests. */
#ifndef GPUWATCH_RW_CLIENT_H
#define GPUWATCH_RW_CLIENT_H

#include <stddef.h>
#include "rw_settings.h"

typedef struct rw_response {
    long status;          /* HTTP status; 0 when no answer came (see error) */
    double retry_after_s; /* Retry-After, seconds from now; -1 when absent or unreadable */
    long long written;    /* X-Prometheus-Remote-Write-Samples-Written; -1 when absent */
    int written_headers;  /* any X-Prometheus-Remote-Write-*-Written header came */
    char body[256];       /* the start of the body, cleaned for the log */
    char error[256];      /* why no answer came */
} rw_response;

typedef struct rw_client rw_client;

/* abort: a request in progress ends soon after *abort becomes non-zero. NULL when out of memory or
 * libcurl cannot be loaded (why in err). */
rw_client *rw_client_new(const rw_endpoint_settings *ep, const volatile int *abort, char *err, size_t n);
void rw_client_free(rw_client *c);
/* POSTs body (len bytes, snappy-compressed) as a request of version (1 or 2). Returns 0 when an
 * answer came (any status), -1 when none did (r->error says why). */
int rw_client_post(rw_client *c, const void *body, size_t len, int version, rw_response *r);
/* Parses a Retry-After value (delay-seconds or an HTTP-date) into seconds from now_s; -1 when it is
 * neither. */
double rw_parse_retry_after(const char *value, double now_s);

#endif
