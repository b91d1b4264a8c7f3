/* http_client.h - GET requests to a gpuwatch agent (top --host, diagnose --host, run): one keep-alive
 * connection over libcurl (loaded on first use), TLS and basic auth as the agent's web config asks. */
#ifndef GPUWATCH_HTTP_CLIENT_H
#define GPUWATCH_HTTP_CLIENT_H

#include <stddef.h>
#include "args.h"
#include "buf.h"

typedef struct http_client_opts {
    const char *host;          /* HOST:PORT */
    int tls;                   /* https */
    const char *cacert;        /* CA file for the agent's certificate, or NULL */
    int insecure;              /* do not verify the certificate */
    const char *user;          /* basic auth user, or NULL */
    const char *password_file; /* its password: the first line of this file */
    const char *user_agent;    /* "gpuwatch-top" */
    long timeout_ms;           /* per request; 0: 5000 */
    const char *peer;          /* what errors call the other end: "agent" when NULL, "engine" */
} http_client_opts;

/* The options that name an agent on a command line (top, diagnose), for the http_client_opts (or a
 * struct with the same fields) at member of type: --host HOST:PORT, --tls, --cacert FILE, --insecure,
 * --user USER, --password-file FILE. */
#define HTTP_CLIENT_ROWS(type, member)                                                              \
    {"--host", GW_OPT_CUSTOM, .off = offsetof(type, member.host), .check = http_client_check_host}, \
        {"--tls", GW_OPT_FLAG, .off = offsetof(type, member.tls)},                                  \
        {"--cacert", GW_OPT_FILE, .off = offsetof(type, member.cacert)},                            \
        {"--insecure", GW_OPT_FLAG, .off = offsetof(type, member.insecure)},                        \
        {"--user", GW_OPT_TEXT, .off = offsetof(type, member.user)},                                \
    {                                                                                               \
        "--password-file", GW_OPT_FILE, .off = offsetof(type, member.password_file)                 \
    }
/* A HOST:PORT ("gpu1:9400", "10.0.0.5:9400", "[::1]:9400"), no scheme or path: 0, or -1 with why. */
int http_client_valid_host(const char *value, char *why, size_t n);
/* --host: a valid HOST:PORT. */
int http_client_check_host(const gw_opt *opt, const char *value, void *out, char *why, size_t n);
/* After parsing those rows: --user and --password-file go together. GW_ARGS_RUN, or a usage error. */
int http_client_check_args(const gw_args *a);

typedef struct http_client http_client;

/* NULL with the reason in err (libcurl missing, password file unreadable). */
http_client *http_client_open(const http_client_opts *o, char *err, size_t n);
void http_client_close(http_client *c);
/* GETs path ("/api/v1/gpus", at most 16 KiB with its query) into body (cleared first). Returns the HTTP status, or -1 with the
 * reason in err ("agent https://HOST:PORT: Couldn't connect to server"); a status other than 200
 * also fills err. Bodies over API_MAX_BODY (16 MiB, after
 * decompression) are refused. */
long http_client_get(http_client *c, const char *path, gw_buf *body, char *err, size_t n);
/* "https://HOST:PORT" */
const char *http_client_base(const http_client *c);

#endif
