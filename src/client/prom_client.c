/* prom_client.c - queries to an engine's Prometheus HTTP API (see prom_client.h). */
#include "prom_client.h"
#include "buf.h"
#include "util.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct prom_client {
    http_client *http;
    char url[512];    /* as given, no trailing slash */
    char prefix[256]; /* the path before /api/v1, "" or "/prom" */
    char host[300];   /* HOST[:PORT] */
    gw_buf path, body;
};

/* Splits an URL into tls, host and path prefix. 0, or -1 with why filled. */
static int split_url(const char *url, int *tls, char *host, size_t nhost, char *prefix, size_t nprefix, char *why,
                     size_t n)
{
    const char *rest = NULL;
    if (strncmp(url, "http://", 7) == 0)
        rest = url + 7, *tls = 0;
    else if (strncmp(url, "https://", 8) == 0)
        rest = url + 8, *tls = 1;
    size_t hlen = rest ? strcspn(rest, "/") : 0;
    if (!rest || !hlen || hlen >= nhost || strlen(url) >= 480 || strpbrk(url, " \t@?#\\\"'") || rest[0] == ':') {
        snprintf(why, n, "expected http(s)://HOST[:PORT][/PATH] (http://prometheus:9090), got '%s'", url);
        return -1;
    }
    for (size_t i = 0; i < strlen(url); i++)
        if ((unsigned char)url[i] <= 0x20 || (unsigned char)url[i] >= 0x7f) {
            snprintf(why, n, "expected http(s)://HOST[:PORT][/PATH] of printable ASCII, got '%s'", url);
            return -1;
        }
    memcpy(host, rest, hlen);
    host[hlen] = 0;
    const char *colon = strrchr(host, ':');
    if (colon && host[0] != '[') {
        char *end;
        long port = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || *end || port < 1 || port > 65535) {
            snprintf(why, n, "a port from 1 to 65535 after HOST:, got '%s'", url);
            return -1;
        }
    }
    gw_strlcpy(prefix, rest + hlen, nprefix);
    size_t plen = strlen(prefix);
    while (plen && prefix[plen - 1] == '/')
        prefix[--plen] = 0;
    return 0;
}

int prom_client_check_url(const gw_opt *opt, const char *value, void *out, char *why, size_t n)
{
    char host[300], prefix[256];
    int tls;
    if (!value || split_url(value, &tls, host, sizeof host, prefix, sizeof prefix, why, n) != 0)
        return -1;
    *(const char **)gw_opt_dst(opt, out) = value;
    return 0;
}

prom_client *prom_client_open(const char *url, const http_client_opts *auth, char *err, size_t n)
{
    prom_client *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    http_client_opts o = auth ? *auth : (http_client_opts){0};
    if (split_url(url, &o.tls, c->host, sizeof c->host, c->prefix, sizeof c->prefix, err, n) != 0) {
        free(c);
        return NULL;
    }
    gw_strlcpy(c->url, url, sizeof c->url);
    size_t ulen = strlen(c->url);
    while (ulen && c->url[ulen - 1] == '/')
        c->url[--ulen] = 0;
    o.host = c->host;
    o.peer = "engine";
    if (!o.user_agent)
        o.user_agent = "gpuwatch";
    if (!o.timeout_ms)
        o.timeout_ms = PROM_TIMEOUT_MS;
    c->http = http_client_open(&o, err, n);
    if (!c->http) {
        free(c);
        return NULL;
    }
    buf_init(&c->path);
    buf_init(&c->body);
    return c;
}

void prom_client_close(prom_client *c)
{
    if (!c)
        return;
    http_client_close(c->http);
    buf_release(&c->path);
    buf_release(&c->body);
    free(c);
}

const char *prom_client_url(const prom_client *c)
{
    return c->url;
}

/* Appends s percent-encoded (all but RFC 3986's unreserved characters). */
static void put_encoded(gw_buf *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (isalnum(*p) || *p == '-' || *p == '_' || *p == '.' || *p == '~') {
            buf_putc(b, (char)*p);
        } else {
            char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            buf_append(b, e, 3);
        }
    }
}

static void put_time(gw_buf *b, const char *key, uint64_t t_us)
{
    buf_printf(b, "&%s=%.3f", key, (double)t_us / 1e6);
}

/* GETs c->path and decodes the answer. */
static int fetch(prom_client *c, const prom_context *ctx, prom_kind kind, prom_result *out, char *err, size_t n)
{
    memset(out, 0, sizeof *out);
    if (c->path.oom) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    char why[512] = "";
    long st = http_client_get(c->http, c->path.data, &c->body, why, sizeof why);
    if (st < 0) {
        snprintf(err, n, "%s", why);
        return -1;
    }
    char what[480];
    if (prom_decode(c->body.data, c->body.len, st, ctx, kind, out, what, sizeof what) != 0) {
        snprintf(err, n, "engine %s: %s", c->url, what);
        return -1;
    }
    return 0;
}

int prom_client_query_range(prom_client *c, const char *query, uint64_t from_us, uint64_t to_us, double step_s,
                            prom_result *out, char *err, size_t n)
{
    buf_clear(&c->path);
    buf_printf(&c->path, "%s/api/v1/query_range?query=", c->prefix);
    put_encoded(&c->path, query);
    put_time(&c->path, "start", from_us);
    put_time(&c->path, "end", to_us);
    buf_printf(&c->path, "&step=%.3f", step_s);
    prom_context ctx = {.from_us = from_us, .to_us = to_us, .slack_us = (uint64_t)(step_s * 1e6) + 1000};
    return fetch(c, &ctx, PROM_MATRIX, out, err, n);
}

int prom_client_query(prom_client *c, const char *query, uint64_t t_us, prom_result *out, char *err, size_t n)
{
    buf_clear(&c->path);
    buf_printf(&c->path, "%s/api/v1/query?query=", c->prefix);
    put_encoded(&c->path, query);
    put_time(&c->path, "time", t_us);
    prom_context ctx = {.from_us = t_us, .to_us = t_us, .slack_us = 1000};
    return fetch(c, &ctx, PROM_VECTOR, out, err, n);
}

int prom_client_series(prom_client *c, const char *selector, uint64_t from_us, uint64_t to_us, prom_result *out,
                       char *err, size_t n)
{
    buf_clear(&c->path);
    buf_printf(&c->path, "%s/api/v1/series?match%%5B%%5D=", c->prefix);
    put_encoded(&c->path, selector);
    put_time(&c->path, "start", from_us);
    put_time(&c->path, "end", to_us);
    return fetch(c, NULL, PROM_SERIES, out, err, n);
}

double prom_step(double range_s, double min_step_s)
{
    double step = range_s / (PROM_MAX_POINTS - 1);
    if (step < min_step_s)
        step = min_step_s;
    return step >= 1 ? ceil(step) : ceil(step * 1000) / 1000;
}
