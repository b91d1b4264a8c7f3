/* http_client.c - GET requests to a gpuwatch agent over libcurl (see http_client.h). */
#include "http_client.h"
#include "agent_api.h"
#include "files.h"
#include "lazy_curl.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct http_client {
    CURL *curl;
    char base[300]; /* http(s)://HOST:PORT */
    char peer[16];  /* "agent", "engine" */
    char password[256];
    gw_buf *body; /* the request's, while it runs */
    int too_big;  /* the request's body went past API_MAX_BODY */
    long timeout_ms;
};

static size_t on_data(char *p, size_t size, size_t n, void *vctx)
{
    http_client *c = vctx;
    size_t add = size * n;
    if (c->body->len + add > API_MAX_BODY) {
        c->too_big = 1;
        return 0;
    }
    buf_append(c->body, p, add);
    return c->body->oom ? 0 : add;
}

http_client *http_client_open(const http_client_opts *o, char *err, size_t n)
{
    http_client *c = calloc(1, sizeof *c);
    if (!c) {
        gw_strlcpy(err, "out of memory", n);
        return NULL;
    }
    if (o->user) {
        char why[128];
        char *pw = o->password_file ? gw_read_file(o->password_file, 4096, NULL, why, sizeof why) : NULL;
        if (!pw) {
            snprintf(err, n, "--password-file %s: %s", o->password_file ? o->password_file : "(none)",
                     o->password_file ? why : "a password file is needed with --user");
            free(c);
            return NULL;
        }
        pw[strcspn(pw, "\r\n")] = 0;
        gw_strlcpy(c->password, pw, sizeof c->password);
        free(pw);
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(c->curl = curl_easy_init())) {
        gw_strlcpy(err, "cannot start libcurl (libcurl.so.4)", n);
        free(c);
        return NULL;
    }
    snprintf(c->base, sizeof c->base, "%s://%s", o->tls ? "https" : "http", o->host);
    gw_strlcpy(c->peer, o->peer ? o->peer : "agent", sizeof c->peer);
    curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, c);
    c->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 5000L;
    curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT_MS, c->timeout_ms < 2000L ? c->timeout_ms : 2000L);
    curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, c->timeout_ms);
    curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c->curl, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(c->curl, CURLOPT_USERAGENT, o->user_agent ? o->user_agent : "gpuwatch");
    if (o->cacert)
        curl_easy_setopt(c->curl, CURLOPT_CAINFO, o->cacert);
    if (o->insecure) {
        curl_easy_setopt(c->curl, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c->curl, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (o->user) {
        curl_easy_setopt(c->curl, CURLOPT_USERNAME, o->user);
        curl_easy_setopt(c->curl, CURLOPT_PASSWORD, c->password);
    }
    return c;
}

void http_client_close(http_client *c)
{
    if (!c)
        return;
    curl_easy_cleanup(c->curl);
    curl_global_cleanup();
    memset(c->password, 0, sizeof c->password);
    free(c);
}

const char *http_client_base(const http_client *c)
{
    return c->base;
}

long http_client_get(http_client *c, const char *path, gw_buf *body, char *err, size_t n)
{
    char url[16384 + 300];
    if ((size_t)snprintf(url, sizeof url, "%s%s", c->base, path) >= sizeof url) {
        snprintf(err, n, "%s %s: a request over %zu bytes", c->peer, c->base, sizeof url);
        return -1;
    }
    buf_clear(body);
    c->body = body;
    c->too_big = 0;
    curl_easy_setopt(c->curl, CURLOPT_URL, url);
    CURLcode rc = curl_easy_perform(c->curl);
    c->body = NULL;
    if (rc != CURLE_OK && c->too_big) {
        snprintf(err, n, "%s %s%s: an answer over %u bytes", c->peer, c->base, path, API_MAX_BODY);
        return -1;
    }
    if (rc != CURLE_OK) {
        /* The system's reason where there is one ("Connection refused"), the time waited for a timeout. */
        long os_errno = 0;
        curl_easy_getinfo(c->curl, CURLINFO_OS_ERRNO, &os_errno);
        if (rc == CURLE_OPERATION_TIMEDOUT)
            snprintf(err, n, "%s %s: %s (no answer in %g s)", c->peer, c->base, curl_easy_strerror(rc),
                     c->timeout_ms / 1000.0);
        else if (os_errno > 0)
            snprintf(err, n, "%s %s: %s (%s)", c->peer, c->base, curl_easy_strerror(rc), strerror((int)os_errno));
        else
            snprintf(err, n, "%s %s: %s", c->peer, c->base, curl_easy_strerror(rc));
        return -1;
    }
    long status = 0;
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200)
        snprintf(err, n, "%s %s%s: HTTP %ld%s", c->peer, c->base, path, status,
                 status == 401 ? " (wrong or missing --user/--password-file)" : "");
    if (body->oom) {
        snprintf(err, n, "%s %s%s: out of memory", c->peer, c->base, path);
        return -1;
    }
    return status;
}

/* A host name or IPv4 address (letters, digits, '.', '-', '_'), or an IPv6 address in brackets. */
static int valid_host_part(const char *s, size_t n)
{
    int bracketed = n >= 2 && s[0] == '[' && s[n - 1] == ']';
    size_t from = bracketed ? 1 : 0, to = bracketed ? n - 1 : n;
    if (to <= from)
        return 0;
    for (size_t i = from; i < to; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
                 c == '_' || (bracketed && (c == ':' || c == '%'));
        if (!ok)
            return 0;
    }
    return 1;
}

int http_client_valid_host(const char *value, char *why, size_t n)
{
    const char *colon = value ? strrchr(value, ':') : NULL;
    char *end;
    long port = colon ? strtol(colon + 1, &end, 10) : 0;
    if (!value || !colon || !valid_host_part(value, (size_t)(colon - value)) || end == colon + 1 || *end ||
        colon[1] == '-' || colon[1] == '+' || port < 1 || port > 65535) {
        snprintf(why, n, "expected HOST:PORT (gpu1:9400, [::1]:9400; no http://), got '%s'", value ? value : "");
        return -1;
    }
    return 0;
}

int http_client_check_host(const gw_opt *opt, const char *value, void *out, char *why, size_t n)
{
    if (http_client_valid_host(value, why, n) != 0)
        return -1;
    *(const char **)gw_opt_dst(opt, out) = value;
    return 0;
}

int http_client_check_args(const gw_args *a)
{
    if (gw_args_given(a, "--user") != gw_args_given(a, "--password-file"))
        return gw_usage_error(a->cmd, "%s: --user and --password-file go together",
                              gw_args_given(a, "--user") ? "--user" : "--password-file");
    return GW_ARGS_RUN;
}
