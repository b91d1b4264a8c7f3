/* prom_client.h - an engine with the Prometheus HTTP query API (Prometheus, VictoriaMetrics, Thanos,
 * Mimir) as its clients see it: queries over one keep-alive connection (http_client.h), answers
 * decoded by prom_api.h, bounded and validated. What diagnose --prometheus and top --prometheus read
 * a fleet through. */
#ifndef GPUWATCH_PROM_CLIENT_H
#define GPUWATCH_PROM_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include "args.h"
#include "http_client.h"
#include "prom_api.h"

#define PROM_TIMEOUT_MS 30000 /* one query; an engine answers a large range in seconds */

/* --prometheus URL: http(s)://HOST[:PORT][/PATH] (the path a proxy puts the API under, as
 * "http://thanos:9090/prom"), no query, fragment or user in it. A custom row's check (args.h). */
int prom_client_check_url(const gw_opt *opt, const char *value, void *out, char *why, size_t n);

typedef struct prom_client prom_client;

/* url as prom_client_check_url takes it; auth NULL or its cacert, insecure, user and password_file
 * (its host and tls are the URL's). NULL with the reason in err. Nothing is fetched yet. */
prom_client *prom_client_open(const char *url, const http_client_opts *auth, char *err, size_t n);
void prom_client_close(prom_client *c);
/* The URL as given, without a trailing slash. */
const char *prom_client_url(const prom_client *c);

/* Each runs one query and decodes its answer into out: 0, or -1 with err filled ("engine
 * http://HOST:PORT: Couldn't connect to server", "engine http://...: HTTP 400: bad_data: ...");
 * out is then empty. Times in microseconds since the epoch. */
int prom_client_query_range(prom_client *c, const char *query, uint64_t from_us, uint64_t to_us, double step_s,
                            prom_result *out, char *err, size_t n);
int prom_client_query(prom_client *c, const char *query, uint64_t t_us, prom_result *out, char *err, size_t n);
/* /api/v1/series?match[]=selector over the range: the label sets only. */
int prom_client_series(prom_client *c, const char *selector, uint64_t from_us, uint64_t to_us, prom_result *out,
                       char *err, size_t n);

/* The step of a range query over range_s seconds: at least min_step_s, and coarse enough that a
 * series has at most PROM_MAX_POINTS points; whole seconds (or milliseconds below one second). */
double prom_step(double range_s, double min_step_s);

#endif
