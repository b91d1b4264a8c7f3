/* http_guard.c - request deadlines and connection limits by eviction (see http_guard.h). */
#include "http_guard.h"
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include "util.h"

/* One connection (libmicrohttpd's socket context). Under the guard's lock. */
typedef struct gconn {
    struct gconn *prev, *next;
    int fd;
    unsigned char addr[16]; /* client address (IPv4 as IPv4-mapped IPv6) */
    int busy;               /* a request is being answered */
    int shut;               /* closed by the guard, waiting for libmicrohttpd to notice */
    uint64_t since_us;      /* monotonic: when it began waiting for a request */
} gconn;

/* New connections per address, as a token bucket; addresses share a slot by hash (an address that
 * finds its slot held by another starts it over, full). */
#define RATE_SLOTS 512
typedef struct rate_slot {
    unsigned char addr[16];
    double tokens;
    uint64_t last_us;
} rate_slot;

struct http_guard {
    guard_limits lim;
    pthread_mutex_t lock;
    pthread_cond_t wake; /* CLOCK_MONOTONIC: stop */
    pthread_t thread;
    int stopping, started;
    int sweeper_idle;   /* the thread waits with no deadline: wake it when a connection starts waiting */
    gconn *head, *tail; /* every open connection, oldest accept first */
    int open;
    uint64_t timed_out, evicted, refused, rate_limited;
    rate_slot rate[RATE_SLOTS];
};

/* A client address as 16 bytes (IPv4 mapped into IPv6). */
static void address_bytes(const struct sockaddr *sa, unsigned char out[16])
{
    memset(out, 0, 16);
    if (sa && sa->sa_family == AF_INET) {
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    } else if (sa && sa->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
    }
}

static void address_of(struct MHD_Connection *c, unsigned char out[16])
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    address_bytes(ci ? ci->client_addr : NULL, out);
}

/* Lock held. The socket is shut down, not closed: the descriptor stays libmicrohttpd's (it is
 * closed only after the CLOSED notification has taken the connection out of the list). */
static void shut(gconn *k)
{
    if (k->shut)
        return;
    k->shut = 1;
    shutdown(k->fd, SHUT_RDWR);
}

/* The oldest connection waiting for a request, of one address (addr) or of all (NULL). */
static gconn *oldest_waiting(http_guard *g, const unsigned char *addr, const gconn *except)
{
    gconn *best = NULL;
    for (gconn *k = g->head; k; k = k->next)
        if (k != except && !k->busy && !k->shut && (!addr || !memcmp(k->addr, addr, 16)) &&
            (!best || k->since_us < best->since_us))
            best = k;
    return best;
}

/* 1 when addr has opened connections faster than rate_per_address (the new one is refused). */
static int too_fast(http_guard *g, const unsigned char addr[16], uint64_t now)
{
    double rate = g->lim.rate_per_address;
    if (rate <= 0)
        return 0;
    uint32_t h = 2166136261u;
    for (int i = 0; i < 16; i++)
        h = (h ^ addr[i]) * 16777619u;
    rate_slot *r = &g->rate[h % RATE_SLOTS];
    double burst = rate < 1 ? 1 : rate;
    if (memcmp(r->addr, addr, 16) != 0 || r->last_us == 0) {
        memcpy(r->addr, addr, 16);
        r->tokens = burst;
    } else {
        r->tokens += (double)(now - r->last_us) / 1e6 * rate;
        if (r->tokens > burst)
            r->tokens = burst;
    }
    r->last_us = now;
    if (r->tokens < 1)
        return 1;
    r->tokens -= 1;
    return 0;
}

/* A new connection: make room within the limits by closing the oldest waiting ones. */
static void make_room(http_guard *g, gconn *fresh)
{
    int same = 0, live = 0;
    for (gconn *k = g->head; k; k = k->next)
        if (!k->shut) {
            live++;
            same += !memcmp(k->addr, fresh->addr, 16);
        }
    if (same > g->lim.max_per_address) {
        gconn *old = oldest_waiting(g, fresh->addr, fresh);
        if (!old) { /* every connection of that address is being answered */
            shut(fresh);
            g->refused++;
            return;
        }
        shut(old);
        g->evicted++;
        live--;
    }
    if (live > g->lim.max_connections) {
        gconn *old = oldest_waiting(g, NULL, fresh);
        if (old) {
            shut(old);
            g->evicted++;
        } else {
            shut(fresh);
            g->refused++;
        }
    }
}

void guard_notify(void *cls, struct MHD_Connection *c, void **socket_context, enum MHD_ConnectionNotificationCode code)
{
    http_guard *g = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        gconn *k = calloc(1, sizeof *k);
        *socket_context = k;
        if (!k)
            return;
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        k->fd = ci ? ci->connect_fd : -1;
        address_of(c, k->addr);
        k->since_us = gw_mono_us();
        pthread_mutex_lock(&g->lock);
        k->prev = g->tail;
        if (g->tail)
            g->tail->next = k;
        else
            g->head = k;
        g->tail = k;
        g->open++;
        if (k->fd >= 0)
            make_room(g, k);
        else
            k->shut = 1; /* never shut down what is not known */
        if (g->sweeper_idle && !k->shut)
            pthread_cond_signal(&g->wake);
        pthread_mutex_unlock(&g->lock);
        return;
    }
    gconn *k = *socket_context;
    *socket_context = NULL;
    if (!k)
        return;
    pthread_mutex_lock(&g->lock);
    if (k->prev)
        k->prev->next = k->next;
    else
        g->head = k->next;
    if (k->next)
        k->next->prev = k->prev;
    else
        g->tail = k->prev;
    g->open--;
    pthread_mutex_unlock(&g->lock);
    free(k);
}

enum MHD_Result guard_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    http_guard *g = cls;
    unsigned char a[16];
    address_bytes(addrlen > 0 ? addr : NULL, a);
    pthread_mutex_lock(&g->lock);
    int refuse = too_fast(g, a, gw_mono_us());
    g->rate_limited += (uint64_t)refuse;
    pthread_mutex_unlock(&g->lock);
    return refuse ? MHD_NO : MHD_YES;
}

static gconn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

void guard_request_started(http_guard *g, struct MHD_Connection *c)
{
    gconn *k = conn_of(c);
    if (!k)
        return;
    pthread_mutex_lock(&g->lock);
    k->busy = 1;
    pthread_mutex_unlock(&g->lock);
}

void guard_request_done(http_guard *g, struct MHD_Connection *c)
{
    gconn *k = conn_of(c);
    if (!k)
        return;
    pthread_mutex_lock(&g->lock);
    k->busy = 0;
    k->since_us = gw_mono_us();
    if (g->sweeper_idle && !k->shut)
        pthread_cond_signal(&g->wake);
    pthread_mutex_unlock(&g->lock);
}

static void *sweeper(void *arg)
{
    http_guard *g = arg;
    uint64_t limit = (uint64_t)(g->lim.request_timeout_s * 1e6);
    pthread_mutex_lock(&g->lock);
    while (!g->stopping) {
        /* sleeps until the first deadline of a connection waiting for a request (none: until one
         * starts waiting), so an idle agent's guard costs nothing */
        uint64_t now = gw_mono_us(), next = UINT64_MAX;
        for (gconn *k = g->head; k; k = k->next) {
            if (k->busy || k->shut)
                continue;
            if (now - k->since_us > limit) {
                shut(k);
                g->timed_out++;
            } else if (k->since_us + limit + 1000 < next) {
                next = k->since_us + limit + 1000;
            }
        }
        if (next == UINT64_MAX) {
            g->sweeper_idle = 1;
            pthread_cond_wait(&g->wake, &g->lock);
            g->sweeper_idle = 0;
            continue;
        }
        struct timespec ts = {(time_t)(next / 1000000u), (long)(next % 1000000u) * 1000L};
        pthread_cond_timedwait(&g->wake, &g->lock, &ts);
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

http_guard *guard_start(const guard_limits *limits)
{
    http_guard *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->lim = *limits;
    pthread_mutex_init(&g->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&g->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&g->thread, NULL, sweeper, g) != 0) {
        guard_stop(g);
        return NULL;
    }
    g->started = 1;
    pthread_setname_np(g->thread, "gw-http-guard");
    return g;
}

void guard_stop(http_guard *g)
{
    if (!g)
        return;
    if (g->started) {
        pthread_mutex_lock(&g->lock);
        g->stopping = 1;
        pthread_cond_broadcast(&g->wake);
        pthread_mutex_unlock(&g->lock);
        pthread_join(g->thread, NULL);
    }
    /* libmicrohttpd has stopped: every connection has been notified CLOSED and freed */
    pthread_cond_destroy(&g->wake);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

void guard_get_stats(http_guard *g, guard_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!g)
        return;
    pthread_mutex_lock(&g->lock);
    out->open = g->open;
    out->timed_out = g->timed_out;
    out->evicted = g->evicted;
    out->refused = g->refused;
    out->rate_limited = g->rate_limited;
    pthread_mutex_unlock(&g->lock);
}
