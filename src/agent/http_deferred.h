/* http_deferred.h - requests answered off the HTTP thread. A password check (bcrypt) or a route
 * that may be slow runs on a work queue while its connection is suspended; libmicrohttpd calls the
 * request handler again once the job has resumed it, and the handler then answers from here. */
#ifndef GPUWATCH_HTTP_DEFERRED_H
#define GPUWATCH_HTTP_DEFERRED_H

#include <microhttpd.h>
#include "agent.h"
#include "auth.h"
#include "work_queue.h"

typedef void (*route_fn)(agent *a, const agent_request *req, agent_response *resp);

typedef enum { DEF_AUTH_WAIT, DEF_AUTH_DONE, DEF_ROUTE_WAIT, DEF_ROUTE_DONE } def_phase;
enum { DEF_DENIED, DEF_ALLOWED, DEF_BUSY }; /* auth_result */

typedef struct deferred {
    wq_job job; /* first: the queue hands this back */
    struct MHD_Connection *c;
    def_phase phase;
    /* a password check */
    auth *auth;
    auth_cred cred;  /* wiped once checked */
    int auth_result; /* DEF_* once DEF_AUTH_DONE */
    /* a route */
    agent *a;
    route_fn route;
    char *method, *path;
    char **args; /* query-string name, value, name, value, ... copied */
    int nargs;
    int busy;            /* the route queue refused it: answer 503 */
    agent_response resp; /* the answer once DEF_ROUTE_DONE */
} deferred;

deferred *deferred_new(struct MHD_Connection *c);
void deferred_free(deferred *d);
/* Suspends the connection and queues the bcrypt check of cred (copied, then wiped by the caller).
 * When the queue refuses, the connection is resumed at once with auth_result DEF_BUSY. */
void deferred_check_password(deferred *d, work_queue *q, auth *au, const auth_cred *cred);
/* Suspends the connection and queues route(a, request) with the request's method, path and query
 * arguments copied. When the queue refuses, it is resumed at once with busy set. */
void deferred_route(deferred *d, work_queue *q, agent *a, route_fn route, const char *method, const char *path);

#endif
