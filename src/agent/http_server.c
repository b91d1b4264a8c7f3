/* http_server.c - HTTP(S) on libmicrohttpd: listening address, TLS, basic auth, methods, routing. */
#include "http_server.h"
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "accept_encoding.h"
#include "agent.h"
#include "api_json.h"
#include "auth.h"
#include "http_deferred.h"
#include "http_guard.h"
#include "metrics_page.h"
#include "util.h"

/* One HTTP thread that only does quick work (the cached /metrics page, snapshot routes, cached
 * passwords); bcrypt and slow routes run on work queues (http_deferred.c). One thread gives the
 * lowest p99 (docs/agent.md, Performance). */
#define THREADS 1
#define AUTH_QUEUE 8   /* password checks waiting for the bcrypt thread; more get 429 */
#define ROUTE_QUEUE 32 /* slow API requests waiting; more get 503 */
/* Per connection: the request's line and headers (at most about half of it: a longer request gets
 * 431 or 414) and the response's headers. Bodies are never read (413 at the headers). */
#define CONNECTION_MEMORY 16384
/* Connections libmicrohttpd takes beyond the guard's limit: room for those the guard has shut
 * down and libmicrohttpd has not yet cleaned up, so that a new one is never refused for them. */
#define CONNECTION_SLACK 64
#define FDS_BESIDES_CONNECTIONS 128 /* history, logs, epoll, pipes, the library's own */

struct http_server {
    struct MHD_Daemon *d;
    agent *a;
    auth *auth;
    http_guard *guard;
    guard_limits limits;
    double idle_timeout_s;
    char priorities[512];    /* GnuTLS priority string (TLS only) */
    work_queue *auth_queue;  /* bcrypt checks */
    work_queue *route_queue; /* routes that may be slow */
    char *cert, *key;        /* PEM text, kept for the daemon's lifetime */
    int port;
    char address[300];
};

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        msg[--n] = 0;
    for (char *p = msg; *p; p++)
        if (*p == '"')
            *p = '\'';
    gw_log(GW_LOG_DEBUG, "http", "detail=\"%s\"", msg);
}

static const char *param_of(const agent_request *req, const char *name)
{
    return MHD_lookup_connection_value((struct MHD_Connection *)req->impl, MHD_GET_ARGUMENT_KIND, name);
}

/* close: ask libmicrohttpd to close the connection after this answer. */
static enum MHD_Result send_buf(struct MHD_Connection *c, int status, const char *type, gw_buf *body, int close)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(body->len, body->data ? body->data : (void *)"", MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type ? type : "application/json");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    if (status == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Basic realm=\"gpuwatch\", charset=\"UTF-8\"");
    if (status == MHD_HTTP_TOO_MANY_REQUESTS)
        MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
    if (close)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

static void page_free(void *cls)
{
    metrics_page *p = cls;
    metrics_page_release(p);
    free(p);
}

static enum MHD_Result send_metrics(http_server *h, struct MHD_Connection *c)
{
    metrics_page *p = calloc(1, sizeof *p);
    guard_stats gs;
    guard_get_stats(h->guard, &gs);
    if (!p || metrics_page_get(h->a, &gs, p) != 0) {
        free(p);
        gw_buf b = {0};
        buf_puts(&b, "cannot build the page\n");
        enum MHD_Result r = send_buf(c, 500, "text/plain", &b, 0);
        buf_release(&b);
        return r;
    }
    /* gzip: one buffer, sent with the headers in one system call (libmicrohttpd sends the headers
     * of an iovec response separately: fewer req/s, docs/agent.md). */
    int gz = accept_gzip(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING)) &&
             metrics_page_gzip(p) == 0;
    struct MHD_Response *r;
    if (gz) {
        unsigned char *body = p->gz;
        size_t n = p->gz_len;
        p->gz = NULL;
        page_free(p);
        r = MHD_create_response_from_buffer_with_free_callback(n, body, free);
        if (!r)
            free(body);
    } else {
        const struct MHD_IoVec iov[2] = {{p->gpus, p->gpus_len}, {p->tail, p->tail_len}};
        r = MHD_create_response_from_iovec(iov, 2, page_free, p);
        if (!r)
            page_free(p);
    }
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
    MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, MHD_HTTP_HEADER_ACCEPT_ENCODING);
    if (gz)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

/* Routes plugins answer (history, alerts), or 404. */
static void route_plugins(agent *a, const agent_request *req, agent_response *resp)
{
    if (!pipeline_handle_http(a->pl, req, resp))
        api_error(resp, MHD_HTTP_NOT_FOUND, "not found; see / for the endpoints");
}

/* Quick routes (answered from the latest snapshot) run on the HTTP thread; the others run on the
 * route queue: /api/v1/samples decodes the ring, plugins' routes may query the history. */
static const struct {
    const char *path;
    route_fn fn;
    int quick;
} routes[] = {
    {"/", api_index, 1},
    {"/healthz", api_healthz, 1},
    {"/api/v1/gpus", api_gpus, 1},
    {"/api/v1/processes", api_processes, 1},
    {"/api/v1/samples", api_samples, 0},
};

/* The request's state (*con_cls): this marker, or a deferred while (or after) work ran off-thread. */
static int headers_seen;

static deferred *deferred_for(struct MHD_Connection *c, void **con_cls)
{
    if (*con_cls == &headers_seen)
        *con_cls = deferred_new(c);
    return *con_cls;
}

/* 1: go on; 0: answer resp (401/429) as it is; -1: suspended until the password check ends. */
static int authorize(http_server *h, struct MHD_Connection *c, void **con_cls, agent_response *resp)
{
    deferred *d = *con_cls != &headers_seen ? *con_cls : NULL;
    int result;
    if (d && d->phase == DEF_AUTH_DONE) {
        result = d->auth_result; /* resumed: the check has ended */
    } else if (d) {
        result = DEF_ALLOWED; /* resumed after a route ran: it was authorized before */
    } else {
        auth_cred cred;
        auth_verdict v = auth_check_fast(
            h->auth, MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION), &cred);
        if (v == AUTH_VERIFY) {
            d = deferred_for(c, con_cls);
            if (d)
                deferred_check_password(d, h->auth_queue, h->auth, &cred);
            explicit_bzero(&cred, sizeof cred);
            if (d)
                return -1;
            result = DEF_BUSY;
        } else {
            result = v == AUTH_ALLOW ? DEF_ALLOWED : DEF_DENIED;
        }
    }
    if (result == DEF_ALLOWED)
        return 1;
    if (result == DEF_BUSY)
        api_error(resp, MHD_HTTP_TOO_MANY_REQUESTS, "too many password checks in progress; retry");
    else
        api_error(resp, MHD_HTTP_UNAUTHORIZED, "unauthorized");
    return 0;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode why)
{
    http_server *h = cls;
    (void)why;
    if (*con_cls && *con_cls != &headers_seen)
        deferred_free(*con_cls);
    *con_cls = NULL;
    guard_request_done(h->guard, c);
}

/* The request comes with a body (a length above 0, or chunks). */
static int has_body(struct MHD_Connection *c)
{
    const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING))
        return 1;
    if (!len)
        return 0;
    while (*len == ' ' || *len == '0')
        len++;
    return *len != 0;
}

/* No route takes a body: a request with one is answered at its headers and the body never read
 * (401 without credentials when auth is on, 405 for a method other than GET/HEAD, else 413), and
 * the connection is closed after the answer. */
static enum MHD_Result refuse_body(http_server *h, struct MHD_Connection *c, const char *method)
{
    agent_response resp = {.status = 200, .content_type = "application/json"};
    buf_init(&resp.body);
    auth_cred cred;
    if (auth_enabled(h->auth) &&
        auth_check_fast(h->auth, MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION),
                        &cred) == AUTH_DENY)
        api_error(&resp, MHD_HTTP_UNAUTHORIZED, "unauthorized");
    else if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        api_error(&resp, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: use GET");
    else
        api_error(&resp, 413, "request bodies are not accepted");
    explicit_bzero(&cred, sizeof cred);
    gw_log(GW_LOG_DEBUG, "request with a body refused", "status=%d", resp.status);
    enum MHD_Result ret = send_buf(c, resp.status, resp.content_type, &resp.body, 1);
    buf_release(&resp.body);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version, (void)upload_data;
    http_server *h = cls;
    /* First call: headers only. Answering on the second call keeps the connection alive. */
    if (*con_cls == NULL) {
        *con_cls = &headers_seen;
        guard_request_started(h->guard, c);
        if (has_body(c))
            return refuse_body(h, c, method);
        return MHD_YES;
    }
    if (*upload_data_size != 0) {
        *upload_data_size = 0; /* a body is never used: discard it */
        return MHD_YES;
    }
    deferred *d = *con_cls != &headers_seen ? *con_cls : NULL;
    if (d && d->phase == DEF_ROUTE_DONE) {
        if (d->busy) {
            buf_clear(&d->resp.body);
            api_error(&d->resp, MHD_HTTP_SERVICE_UNAVAILABLE, "too many API requests in progress; retry");
        }
        return send_buf(c, d->resp.status, d->resp.content_type, &d->resp.body, 0);
    }
    agent_response resp = {.status = 200, .content_type = "application/json"};
    buf_init(&resp.body);
    enum MHD_Result ret;
    if (auth_enabled(h->auth) || d) {
        int ok = authorize(h, c, con_cls, &resp);
        if (ok < 0) {
            buf_release(&resp.body);
            return MHD_YES;
        }
        if (ok == 0) {
            gw_log(GW_LOG_DEBUG, "unauthorized request", "path=\"%s\" status=%d", url, resp.status);
            goto send;
        }
    }
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
        api_error(&resp, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: use GET");
        goto send;
    }
    if (strcmp(url, "/metrics") == 0) {
        buf_release(&resp.body);
        return send_metrics(h, c);
    }
    route_fn slow = route_plugins;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (strcmp(url, routes[i].path) == 0) {
            if (routes[i].quick) {
                agent_request req = {method, url, param_of, c};
                routes[i].fn(h->a, &req, &resp);
                goto send;
            }
            slow = routes[i].fn;
        }
    d = deferred_for(c, con_cls);
    if (d) {
        buf_release(&resp.body);
        deferred_route(d, h->route_queue, h->a, slow, method, url);
        return MHD_YES;
    }
    api_error(&resp, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
send:
    ret = send_buf(c, resp.status, resp.content_type, &resp.body, 0);
    buf_release(&resp.body);
    return ret;
}

static char *read_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %m", path);
        return NULL;
    }
    gw_buf b;
    buf_init(&b);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_append(&b, chunk, n);
    fclose(f);
    if (b.oom || !b.data) {
        snprintf(err, errlen, "cannot read %s: empty or out of memory", path);
        buf_release(&b);
        return NULL;
    }
    return b.data;
}

/* "[host]:port" -> sockaddr; empty host -> NULL sa (any address). */
static int parse_listen(const char *listen, struct sockaddr_storage *sa, int *any, int *port, char *err, size_t errlen)
{
    const char *colon = strrchr(listen, ':');
    if (!colon) {
        snprintf(err, errlen, "listen '%s': expected [host]:port", listen);
        return -1;
    }
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end || p < 0 || p > 65535) {
        snprintf(err, errlen, "listen '%s': bad port", listen);
        return -1;
    }
    *port = (int)p;
    char host[256];
    size_t hl = (size_t)(colon - listen);
    if (hl >= sizeof host) {
        snprintf(err, errlen, "listen '%s': host too long", listen);
        return -1;
    }
    memcpy(host, listen, hl);
    host[hl] = 0;
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = 0;
    }
    *any = host[0] == 0;
    if (*any)
        return 0;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV}, *res;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", *port);
    int rc = getaddrinfo(host, ps, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "listen '%s': %s", listen, gai_strerror(rc));
        return -1;
    }
    memcpy(sa, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return 0;
}

/* Raises the open-file limit to what the connection limit needs (systemd's default soft limit is
 * 1024); where the hard limit is lower, the connection limits shrink to fit. */
static void fit_fd_limit(guard_limits *l)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)(l->max_connections + CONNECTION_SLACK + FDS_BESIDES_CONNECTIONS);
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need)
        return;
    rlim_t was = rl.rlim_cur;
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need ? need : rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        rl.rlim_cur = was;
    if (rl.rlim_cur >= need)
        return;
    int fit = (int)rl.rlim_cur - CONNECTION_SLACK - FDS_BESIDES_CONNECTIONS;
    l->max_connections = fit > 16 ? fit : 16;
    if (l->max_per_address > l->max_connections)
        l->max_per_address = l->max_connections;
    gw_log(GW_LOG_WARN, "open-file limit too low for http.max_connections; lowered", "nofile=%llu max_connections=%d",
           (unsigned long long)rl.rlim_cur, l->max_connections);
}

static struct MHD_Daemon *start_daemon(http_server *h, unsigned flags, int port, const struct sockaddr *sa)
{
    struct MHD_OptionItem opts[] = {
        {MHD_OPTION_THREAD_POOL_SIZE, THREADS, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)(h->idle_timeout_s + 0.5), NULL},
        {MHD_OPTION_CONNECTION_LIMIT, h->limits.max_connections + CONNECTION_SLACK, NULL},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONNECTION_MEMORY, NULL},
        {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)guard_notify, h->guard},
        {sa ? MHD_OPTION_SOCK_ADDR : MHD_OPTION_END, 0, (void *)sa},
        {h->cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, h->cert},
        {h->cert ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, h->key},
        {h->cert ? MHD_OPTION_HTTPS_PRIORITIES : MHD_OPTION_END, 0, h->priorities},
        {MHD_OPTION_END, 0, NULL},
    };
    /* MHD_OPTION_END entries in the middle would end the list early: compact it. */
    struct MHD_OptionItem list[sizeof opts / sizeof opts[0]];
    int n = 0;
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (opts[i].option != MHD_OPTION_END)
            list[n++] = opts[i];
    list[n] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    return MHD_start_daemon(flags, (uint16_t)port, guard_accept, h->guard, on_request, h, MHD_OPTION_EXTERNAL_LOGGER,
                            mhd_log, NULL, MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_ARRAY, list,
                            MHD_OPTION_END);
}

http_server *http_start(agent *a, char *err, size_t errlen)
{
    http_server *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    h->a = a;
    h->auth = auth_new();
    pthread_rwlock_rdlock(&a->cfg_lock);
    gw_config *cfg = a->cfg;
    char listen[256];
    gw_strlcpy(listen, cfg->listen, sizeof listen);
    if (h->auth)
        auth_set_users(h->auth, cfg->users, cfg->nusers);
    if (cfg->tls_cert) {
        h->cert = read_file(cfg->tls_cert, err, errlen);
        h->key = h->cert ? read_file(cfg->tls_key, err, errlen) : NULL;
    }
    int tls = cfg->tls_cert != NULL;
    tls_settings tls_set = cfg->tls;
    h->limits = (guard_limits){cfg->http_max_connections, cfg->http_max_connections_per_ip, cfg->http_request_timeout,
                               cfg->http_connection_rate_per_ip};
    h->idle_timeout_s = cfg->http_idle_timeout;
    pthread_rwlock_unlock(&a->cfg_lock);
    if (tls && tls_priority(&tls_set, h->priorities, sizeof h->priorities) != 0) {
        snprintf(err, errlen, "tls: the cipher settings do not fit a priority string");
        http_stop(h);
        return NULL;
    }
    if (tls && tls_set.min_version < TLS_V12)
        gw_log(GW_LOG_WARN, "TLS below 1.2 allowed by tls.min_version", "priorities=\"%s\"", h->priorities);
    fit_fd_limit(&h->limits);
    if (!h->auth || (tls && (!h->cert || !h->key))) {
        if (!h->auth)
            snprintf(err, errlen, "out of memory");
        http_stop(h);
        return NULL;
    }
    if (tls && !MHD_is_feature_supported(MHD_FEATURE_TLS)) {
        snprintf(err, errlen, "tls: this libmicrohttpd was built without TLS");
        http_stop(h);
        return NULL;
    }
    struct sockaddr_storage sa;
    int any = 0, port = 0;
    memset(&sa, 0, sizeof sa);
    if (parse_listen(listen, &sa, &any, &port, err, errlen) != 0) {
        http_stop(h);
        return NULL;
    }
    h->guard = guard_start(&h->limits);
    if (!h->guard) {
        snprintf(err, errlen, "cannot start the HTTP connection guard");
        http_stop(h);
        return NULL;
    }
    h->auth_queue = wq_start("gw-auth", AUTH_QUEUE);
    h->route_queue = wq_start("gw-api", ROUTE_QUEUE);
    if (!h->auth_queue || !h->route_queue) {
        snprintf(err, errlen, "cannot start the HTTP work threads");
        http_stop(h);
        return NULL;
    }
    unsigned flags =
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME | (tls ? MHD_USE_TLS : 0);
    if (MHD_is_feature_supported(MHD_FEATURE_EPOLL))
        flags |= MHD_USE_EPOLL | MHD_USE_TURBO;
    if (any) {
        h->d = start_daemon(h, flags | MHD_USE_DUAL_STACK, port, NULL);
        if (!h->d)
            h->d = start_daemon(h, flags, port, NULL);
    } else {
        if (sa.ss_family == AF_INET6)
            flags |= MHD_USE_IPv6;
        h->d = start_daemon(h, flags, port, (const struct sockaddr *)&sa);
    }
    if (!h->d) {
        snprintf(err, errlen, "cannot listen on %s (address in use or not available)", listen);
        http_stop(h);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : port;
    snprintf(h->address, sizeof h->address, "%.*s:%d", (int)(strrchr(listen, ':') - listen), listen, h->port);
    gw_log(GW_LOG_INFO, "listening",
           "addr=%s tls=%d auth=%d threads=%d max_connections=%d per_ip=%d request_timeout=%g", h->address, tls,
           auth_enabled(h->auth), THREADS, h->limits.max_connections, h->limits.max_per_address,
           h->limits.request_timeout_s);
    return h;
}

void http_stop(http_server *h)
{
    if (!h)
        return;
    /* The queues first: their jobs resume every connection they hold, which MHD needs before it stops. */
    wq_stop(h->auth_queue);
    wq_stop(h->route_queue);
    if (h->d)
        MHD_stop_daemon(h->d);
    guard_stop(h->guard); /* after the daemon: it has notified every connection closed */
    wq_free(h->auth_queue);
    wq_free(h->route_queue);
    auth_free(h->auth);
    free(h->cert);
    if (h->key)
        explicit_bzero(h->key, strlen(h->key));
    free(h->key);
    free(h);
}

int http_port(const http_server *h)
{
    return h ? h->port : 0;
}

void http_set_users(http_server *h, const cfg_user *users, int n)
{
    if (h && h->auth)
        auth_set_users(h->auth, users, n);
}

void http_route(agent *a, const agent_request *req, agent_response *resp)
{
    if (strcmp(req->method, MHD_HTTP_METHOD_GET) != 0 && strcmp(req->method, MHD_HTTP_METHOD_HEAD) != 0) {
        api_error(resp, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: use GET");
        return;
    }
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (strcmp(req->path, routes[i].path) == 0) {
            routes[i].fn(a, req, resp);
            return;
        }
    route_plugins(a, req, resp);
}
