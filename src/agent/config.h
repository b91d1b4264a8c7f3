/* config.h - the agent's YAML configuration: typed settings with defaults, the parsed document
 * kept for the history: and alerts: sections (read with config_node/config_get_*), and errors
 * collected as "FILE:LINE:COL: message". */
#ifndef GPUWATCH_CONFIG_H
#define GPUWATCH_CONFIG_H

#include <yaml.h>
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
    cfg_user *users;
    int nusers;
    gw_log_level log_level;
    yaml_document_t doc; /* the parsed file, for sections read by other layers */
    int has_doc;
    char **errors;   /* "FILE:LINE:COL: message", in file order */
    long *error_pos; /* line * 100000 + column of each, for the order */
    int nerrors;
} gw_config;

void config_init(gw_config *c); /* defaults */
void config_free(gw_config *c);
/* Reads a file. must_exist=0: a missing file leaves the defaults without error.
 * Returns the number of errors (0 = fine); they are in c->errors. */
int config_load_file(gw_config *c, const char *path, int must_exist);
/* Same, from text (tests); name is used in error messages. */
int config_load_string(gw_config *c, const char *text, const char *name);

/* Reads a Prometheus web-config file (tls_server_config: cert_file/key_file, basic_auth_users)
 * into c; its settings replace the config file's. Returns c's error count. */
int config_load_web_config(gw_config *c, const char *path);

/* Adds an error at a node's position (node may be NULL: no position). */
void config_error(gw_config *c, const yaml_node_t *node, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* --- access to any key of the document, by dotted path (e.g. "history.path") --- */
yaml_node_t *config_node(const gw_config *c, const char *path); /* NULL when absent */
/* A scalar's text, or def when absent; a non-scalar records an error and returns def. */
const char *config_get_string(gw_config *c, const char *path, const char *def);
/* A duration ("15m", "1.5", "250ms") or a plain number; returns 0, or -1 after recording an error. */
int config_get_duration(gw_config *c, const char *path, double def, double *out);
int config_get_int(gw_config *c, const char *path, long def, long *out);
int config_get_bool(gw_config *c, const char *path, int def, int *out);
/* Mapping iteration: number of pairs, and the i-th key text / value node. */
int config_map_size(const gw_config *c, const yaml_node_t *map);
const char *config_map_key(const gw_config *c, const yaml_node_t *map, int i, yaml_node_t **value);

#endif
