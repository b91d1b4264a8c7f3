/* http_guard.h - keeps slow and idle clients from taking the HTTP server's connections: every
 * connection is followed from accept to close; one that has not sent a whole request's headers
 * within request_timeout (from its accept, or from its previous response) is closed, whatever it
 * trickles meanwhile; and a new connection that would pass the per-address or the global limit
 * makes room by closing the oldest connection that is waiting for a request (of that address, or
 * of all), so a scraper always gets in. A connection whose request is being answered is never
 * closed by the guard. Closing is a shutdown() of the socket: libmicrohttpd sees the end of the
 * stream and cleans up on its own thread.
 *
 * guard_notify, guard_request_started and guard_request_done run on the HTTP thread; the
 * guard's own thread closes the connections that ran out of time; guard_stats from any thread. */
#ifndef GPUWATCH_HTTP_GUARD_H
#define GPUWATCH_HTTP_GUARD_H

#include <microhttpd.h>
#include <stdint.h>

typedef struct http_guard http_guard;

typedef struct guard_limits {
    int max_connections;      /* open at once, all addresses */
    int max_per_address;      /* open at once from one client address */
    double request_timeout_s; /* to send a request's headers, from accept or the previous response */
    double rate_per_address;  /* new connections a second from one address, a second's worth in a
                               * burst; past it a connection is closed at accept (0: no limit) */
} guard_limits;

typedef struct guard_stats {
    int open;              /* connections open now */
    uint64_t timed_out;    /* closed: no whole request within request_timeout */
    uint64_t evicted;      /* closed to make room for a newer connection */
    uint64_t refused;      /* closed at once: their address's connections were all busy */
    uint64_t rate_limited; /* closed at accept: their address opened connections too fast */
} guard_stats;

/* NULL when out of memory or threads. */
http_guard *guard_start(const guard_limits *limits);
void guard_stop(http_guard *g);

/* MHD_OPTION_ACCEPT_POLICY's callback; cls is the guard: MHD_NO (closed before anything is read)
 * when the address opens connections faster than rate_per_address. */
enum MHD_Result guard_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen);
/* MHD_OPTION_NOTIFY_CONNECTION's callback; cls is the guard. */
void guard_notify(void *cls, struct MHD_Connection *c, void **socket_context, enum MHD_ConnectionNotificationCode code);
/* A request's headers are in (the request handler's first call): busy until guard_request_done. */
void guard_request_started(http_guard *g, struct MHD_Connection *c);
/* Its response is done or abandoned (MHD_OPTION_NOTIFY_COMPLETED): waiting for the next request. */
void guard_request_done(http_guard *g, struct MHD_Connection *c);

void guard_get_stats(http_guard *g, guard_stats *out);

#endif
