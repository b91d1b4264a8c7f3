/* rw_http.c - HTTP/1.1 POSTs over a kept-alive TCP connection (see rw_http.h). */
#include "rw_http.h"
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include "buf.h"
#include "text.h"
#include "util.h"

#define HEADERS_MAX (64u << 10)
#define SLICE_MS 200 /* waits are cut in slices to see an abort */

struct rw_http {
    char host[256], port[16], path[1024], hostport[300];
    double timeout_s;
    const volatile int *abort;
    int fd; /* -1: not connected */
    gw_buf req;
};

rw_http *rw_http_new(const char *url, double timeout_s, const volatile int *abort, char *err, size_t n)
{
    if (strncmp(url, "http://", 7) != 0) {
        snprintf(err, n, "%s: not an http:// URL", url);
        return NULL;
    }
    const char *h = url + 7, *end = h + strcspn(h, "/?#"), *colon = NULL;
    rw_http *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    if (*h == '[') { /* [IPv6]:port */
        const char *close = memchr(h, ']', (size_t)(end - h));
        if (!close)
            goto bad;
        snprintf(c->host, sizeof c->host, "%.*s", (int)(close - h - 1), h + 1);
        colon = close[1] == ':' ? close + 1 : NULL;
    } else {
        colon = memchr(h, ':', (size_t)(end - h));
        snprintf(c->host, sizeof c->host, "%.*s", (int)((colon ? colon : end) - h), h);
    }
    if (colon) {
        size_t pl = (size_t)(end - colon - 1);
        if (pl == 0 || pl >= sizeof c->port || strspn(colon + 1, "0123456789") < pl)
            goto bad;
        snprintf(c->port, sizeof c->port, "%.*s", (int)pl, colon + 1);
    } else {
        snprintf(c->port, sizeof c->port, "80");
    }
    if (!c->host[0] || strlen(end) >= sizeof c->path)
        goto bad;
    snprintf(c->path, sizeof c->path, "%s", *end == '/' ? end : "/");
    if (*end && *end != '/')
        snprintf(c->path, sizeof c->path, "/%s", end);
    snprintf(c->hostport, sizeof c->hostport, "%.*s", (int)(end - h), h);
    c->timeout_s = timeout_s;
    c->abort = abort;
    c->fd = -1;
    buf_init(&c->req);
    return c;
bad:
    snprintf(err, n, "%s: not a URL of the form http://host[:port]/path", url);
    free(c);
    return NULL;
}

static void disconnect(rw_http *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

void rw_http_free(rw_http *c)
{
    if (!c)
        return;
    disconnect(c);
    buf_release(&c->req);
    free(c);
}

/* Waits until fd is ready for events, the monotonic deadline passes (0, ETIMEDOUT) or *abort is set
 * (0, ECANCELED). 1 when ready. */
static int wait_fd(rw_http *c, short events, uint64_t deadline)
{
    for (;;) {
        if (*c->abort) {
            errno = ECANCELED;
            return 0;
        }
        uint64_t now = gw_mono_us();
        if (now >= deadline) {
            errno = ETIMEDOUT;
            return 0;
        }
        uint64_t left_ms = (deadline - now) / 1000 + 1;
        struct pollfd p = {c->fd, events, 0};
        int r = poll(&p, 1, (int)(left_ms < SLICE_MS ? left_ms : SLICE_MS));
        if (r > 0)
            return 1;
        if (r < 0 && errno != EINTR)
            return 0;
    }
}

static int connect_to(rw_http *c, uint64_t deadline, char *err, size_t n)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    int rc = getaddrinfo(c->host, c->port, &hints, &res);
    if (rc != 0) {
        snprintf(err, n, "%.100s: %.100s", c->host, gai_strerror(rc));
        return -1;
    }
    int saved = ECONNREFUSED;
    for (struct addrinfo *ai = res; ai && c->fd < 0; ai = ai->ai_next) {
        c->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (c->fd < 0) {
            saved = errno;
            continue;
        }
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (connect(c->fd, ai->ai_addr, ai->ai_addrlen) != 0 &&
            (errno != EINPROGRESS || !wait_fd(c, POLLOUT, deadline) ||
             getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0 || soerr != 0)) {
            saved = soerr ? soerr : errno;
            disconnect(c);
        }
    }
    freeaddrinfo(res);
    if (c->fd < 0) {
        snprintf(err, n, "connect %.100s:%s: %.100s", c->host, c->port, strerror(saved));
        return -1;
    }
    return 0;
}

static int send_all(rw_http *c, const char *p, size_t len, uint64_t deadline)
{
    while (len) {
        ssize_t w = send(c->fd, p, len, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            len -= (size_t)w;
        } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (!wait_fd(c, POLLOUT, deadline))
                return -1;
        } else {
            return -1;
        }
    }
    return 0;
}

/* Reads what is there (waiting up to the deadline) into b. Returns bytes read, 0 at the end, -1. */
static ssize_t read_some(rw_http *c, gw_buf *b, uint64_t deadline)
{
    if (buf_reserve(b, 16384) != 0)
        return -1;
    for (;;) {
        ssize_t r = recv(c->fd, b->data + b->len, b->cap - b->len - 1, 0);
        if (r >= 0) {
            b->len += (size_t)r;
            b->data[b->len] = 0;
            return r;
        }
        if ((errno != EAGAIN && errno != EINTR) || !wait_fd(c, POLLIN, deadline))
            return -1;
    }
}

/* The value of a header in the block [h, end), or NULL; *len its length. */
static const char *header(const char *h, const char *end, const char *name, size_t *len)
{
    size_t nl = strlen(name);
    for (const char *line = h; line < end;) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol)
            eol = end;
        if ((size_t)(eol - line) > nl && strncasecmp(line, name, nl) == 0 && line[nl] == ':') {
            const char *v = line + nl + 1;
            while (v < eol && (*v == ' ' || *v == '\t'))
                v++;
            const char *ve = eol;
            while (ve > v && (ve[-1] == '\r' || ve[-1] == ' '))
                ve--;
            *len = (size_t)(ve - v);
            return v;
        }
        line = eol + 1;
    }
    return NULL;
}

/* Reads the response: status, headers, then the body (kept: its first bytes). 0, or -1. */
static int read_response(rw_http *c, rw_http_answer *a, uint64_t deadline, int *keep)
{
    gw_buf b;
    buf_init(&b);
    char *end = NULL;
    int rc = -1;
    while (!(end = strstr(b.data ? b.data : "", "\r\n\r\n"))) {
        if (b.len > HEADERS_MAX || read_some(c, &b, deadline) <= 0)
            goto out;
    }
    int minor = 0;
    if (sscanf(b.data, "HTTP/1.%d %ld", &minor, &a->status) != 2 || a->status < 100 || a->status > 999) {
        snprintf(a->error, sizeof a->error, "not an HTTP response");
        a->status = 0;
        goto out;
    }
    const char *hs = strchr(b.data, '\n') + 1, *he = end + 2;
    size_t len;
    const char *v;
    *keep = minor >= 1 && !((v = header(hs, he, "Connection", &len)) && len == 5 && strncasecmp(v, "close", 5) == 0);
    if ((v = header(hs, he, "Retry-After", &len)) && len < sizeof a->retry_after)
        snprintf(a->retry_after, sizeof a->retry_after, "%.*s", (int)len, v);
    if ((v = header(hs, he, "X-Prometheus-Remote-Write-Samples-Written", &len)))
        a->written = strtoll(v, NULL, 10);
    a->written_headers = a->written >= 0 || header(hs, he, "X-Prometheus-Remote-Write-Histograms-Written", &len) ||
                         header(hs, he, "X-Prometheus-Remote-Write-Exemplars-Written", &len);
    int chunked = (v = header(hs, he, "Transfer-Encoding", &len)) && len >= 7 && strncasecmp(v, "chunked", 7) == 0;
    long long want = (v = header(hs, he, "Content-Length", &len)) ? strtoll(v, NULL, 10) : -1;
    size_t body_at = (size_t)(end + 4 - b.data);
    /* the body: up to Content-Length, to the last chunk, or to the end of the connection */
    for (;;) {
        size_t have = b.len - body_at;
        if (want >= 0 && (long long)have >= want)
            break;
        if (chunked && strstr(b.data + body_at, "\r\n0\r\n\r\n"))
            break;
        if (chunked && have >= 5 && strncmp(b.data + body_at, "0\r\n\r\n", 5) == 0)
            break;
        if (a->status == 204 || a->status == 304 || (a->status >= 100 && a->status < 200))
            break;
        if (have > (1u << 20)) { /* a huge body: stop reading it; the connection is not reused */
            *keep = 0;
            break;
        }
        ssize_t r = read_some(c, &b, deadline);
        if (r == 0 && want < 0 && !chunked) {
            *keep = 0;
            break; /* the body ended with the connection */
        }
        if (r <= 0)
            goto out;
    }
    snprintf(a->body, sizeof a->body, "%.*s", (int)(b.len - body_at < 255 ? b.len - body_at : 255), b.data + body_at);
    gw_clean_text(a->body);
    rc = 0;
out:
    buf_release(&b);
    return rc;
}

int rw_http_post(rw_http *c, const char *const *headers, int nheaders, const void *body, size_t len, rw_http_answer *a)
{
    memset(a, 0, sizeof *a);
    a->written = -1;
    uint64_t deadline = gw_mono_us() + (uint64_t)(c->timeout_s * 1e6);
    buf_clear(&c->req);
    buf_printf(&c->req, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %zu\r\n", c->path, c->hostport, len);
    for (int i = 0; i < nheaders; i++) {
        buf_puts(&c->req, headers[i]);
        buf_puts(&c->req, "\r\n");
    }
    buf_puts(&c->req, "\r\n");
    if (c->req.oom) {
        snprintf(a->error, sizeof a->error, "out of memory");
        return -1;
    }
    /* a kept connection the receiver closed meanwhile fails at once: then one new connection */
    for (int attempt = 0; attempt < 2; attempt++) {
        int reused = c->fd >= 0, keep = 0;
        if (c->fd < 0 && connect_to(c, deadline, a->error, sizeof a->error) != 0)
            return -1;
        if (send_all(c, c->req.data, c->req.len, deadline) == 0 && send_all(c, body, len, deadline) == 0 &&
            read_response(c, a, deadline, &keep) == 0) {
            if (!keep)
                disconnect(c);
            return 0;
        }
        int e = errno;
        disconnect(c);
        if (a->status || !reused || e == ETIMEDOUT || e == ECANCELED) {
            if (!a->error[0])
                snprintf(a->error, sizeof a->error, "%.100s:%s: %.100s", c->host, c->port,
                         e == ECANCELED ? "abandoned (stopping)" : strerror(e ? e : EPROTO));
            a->status = 0;
            return -1;
        }
    }
    return -1;
}
