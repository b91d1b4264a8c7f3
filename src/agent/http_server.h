/* http_server.h - the agent's HTTP(S) server on libmicrohttpd: routing, methods, basic auth, TLS. */
#ifndef GPUWATCH_HTTP_SERVER_H
#define GPUWATCH_HTTP_SERVER_H

#include <stddef.h>

struct agent;
struct cfg_user;
struct agent_request;
struct agent_response;
typedef struct http_server http_server;

/* Starts listening on a->cfg->listen ("[host]:port", port 0 = any free port). */
http_server *http_start(struct agent *a, char *err, size_t errlen);
void http_stop(http_server *h);
/* The port actually bound. */
int http_port(const http_server *h);
/* Replaces the basic-auth users (after a reload). */
void http_set_users(http_server *h, const struct cfg_user *users, int n);

/* Answers a request as the server routes it once authorized, without a connection (tests, fuzz/):
 * 405 to a method other than GET and HEAD, the agent's API routes, then the plugins' (404 for none).
 * /metrics is not a route: the server writes that page itself. Runs the route on the calling thread. */
void http_route(struct agent *a, const struct agent_request *req, struct agent_response *resp);

#endif
