/* config.h - the agent's YAML configuration: its own settings, typed with defaults, and the loaded
 * document (doc.h) in which the plugins read their sections (history:, alerts:, ...), with every
 * problem of the file collected as "FILE:LINE:COL: message". */
#ifndef GPUWATCH_CONFIG_H
#define GPUWATCH_CONFIG_H

#include "doc.h"
#include "tls_config.h"
#include "util.h"

#define GW_DEFAULT_CONFIG "/etc/gpuwatch/gpuwatch.yaml"

typedef struct cfg_user {
    char *name;
    char *hash; /* bcrypt ($2y$/$2b$/$2a$) */
} cfg_user;

typedef struct gw_config {
    char *path;           /* file it came from, or NULL for defaults only */
    char *listen;         /* "[host]:port" */
    double interval;      /* seconds */
    double ring_duration; /* seconds */
    int series;           /* EXPO_DCGM | EXPO_NATIVE */
    char **metrics;       /* exporter.metrics (empty: all) */
    int *metric_lines;    /* line of each, for errors */
    int nmetrics;
    int process_series_limit;
    char *tls_cert, *tls_key;
    tls_settings tls; /* tls.min_version, max_version, cipher_suites, curve_preferences, ... */
    /* http: what one client, or all of them, may hold (docs/reliability.md, Hostile clients) */
    int http_max_connections;           /* open at once (1000) */
    int http_max_connections_per_ip;    /* open at once from one address (100) */
    double http_connection_rate_per_ip; /* new connections a second from one address (1000; 0 off) */
    double http_request_timeout;        /* seconds to send a request's headers (10) */
    double http_idle_timeout;           /* seconds without traffic before a connection is closed (10) */
    cfg_user *users;
    int nusers;
    gw_log_level log_level;
    gw_doc doc;   /* the file, for the plugins' sections (doc_path(&cfg->doc, "history")) */
    errlist errs; /* every problem, in file order (the web config's after) */
} gw_config;

void config_init(gw_config *c); /* defaults */
/* An address to listen on, "[host]:port" with a port from 0 to 65535 (the host is resolved when the
 * agent starts). 0, or -1 with why filled. */
int config_check_listen(const char *listen, char *why, size_t n);
void config_free(gw_config *c);
/* Reads a file. must_exist=0: a missing file leaves the defaults without error.
 * Returns the number of errors (0 = fine); they are in c->errs. Plugins add theirs to the same list
 * with doc_error(&c->doc, node, ...). */
int config_load_file(gw_config *c, const char *path, int must_exist);
/* Same, from text (tests); name is used in error messages. */
int config_load_string(gw_config *c, const char *text, const char *name);

/* The exporter: section of d (series, metrics, process_series_limit) into out, over config_init's
 * defaults (free it with config_free), as the agent reads it, its problems not told again: for a
 * plugin that sends the series /metrics shows (remote write). 0, or -1 when the section has errors. */
int config_read_exporter(gw_doc *d, gw_config *out);

/* The agent's own top-level keys; the others are plugins' sections. */
extern const char *const config_agent_keys[];
/* Reports every top-level key that is neither the agent's nor in sections (the plugins' names,
 * NULL-terminated). Returns c's error count. */
int config_check_keys(gw_config *c, const char *const *sections);

/* Reads a Prometheus web-config file (tls_server_config: cert_file/key_file, basic_auth_users)
 * into c; its settings replace the config file's. Returns c's error count. */
int config_load_web_config(gw_config *c, const char *path);

#endif
