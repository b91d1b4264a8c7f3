/* rw_settings.h - the agent config's `remote_write:` section: which series, external labels, the
 * queue and resending, and one or more endpoints (URL, protocol, headers, basic auth or a bearer
 * token from a file, TLS, keep/drop rules, batching and backoff), in Prometheus' own key names. */
#ifndef GPUWATCH_RW_SETTINGS_H
#define GPUWATCH_RW_SETTINGS_H

#include <regex.h>
#include "config.h"

#define RW_MAX_ENDPOINTS 8
#define RW_MAX_HEADERS 16
#define RW_MAX_RULES 16
#define RW_MAX_SOURCES 8
#define RW_MAX_EXTERNAL 32

typedef enum { RW_PROTO_AUTO, RW_PROTO_V1, RW_PROTO_V2 } rw_protocol;

/* One write_relabel_configs entry: keep or drop the series whose source labels' values, joined by
 * separator, match regex (anchored at both ends, POSIX extended). */
typedef struct rw_rule {
    char *sources[RW_MAX_SOURCES];
    int nsources;
    char *separator;
    regex_t re;
    int compiled;
    int keep; /* 1 keep, 0 drop */
} rw_rule;

typedef struct rw_endpoint_settings {
    char *name; /* [A-Za-z0-9_-], unique; default: from the URL */
    char *url;
    rw_protocol protocol;
    double timeout_s;              /* remote_timeout (30 s) */
    char *headers[RW_MAX_HEADERS]; /* "Name: value" */
    int nheaders;
    char *username, *password, *password_file;
    char *bearer_file; /* authorization.credentials_file or bearer_token_file */
    char *ca_file, *cert_file, *key_file;
    int insecure_skip_verify;
    rw_rule rules[RW_MAX_RULES];
    int nrules;
    int max_samples_per_send;            /* queue_config (10000) */
    double batch_send_deadline_s;        /* (5 s) */
    double min_backoff_s, max_backoff_s; /* (30 ms, 5 s) */
    int retry_on_429;                    /* (true) */
} rw_endpoint_settings;

typedef struct rw_label_value {
    char *name, *value;
} rw_label_value;

typedef struct rw_settings {
    int series; /* EXPO_DCGM | EXPO_NATIVE (default: exporter.series) */
    rw_label_value external[RW_MAX_EXTERNAL];
    int nexternal;
    long queue_capacity;     /* samples kept in memory for the endpoints (25000) */
    double resend_max_age_s; /* what is older is not resent from the history (1 h) */
    double resend_rate;      /* samples per second at most while resending (20000) */
    rw_endpoint_settings ep[RW_MAX_ENDPOINTS];
    int nendpoints;
} rw_settings;

/* Reads the remote_write: section of d into out (zeroed first; an absent section gives no endpoint;
 * series, the exporter's choice, unless the section names its own), reporting every problem into
 * d's error list with its line. Returns 0, or -1 when the section has errors (out is then freed). */
int rw_settings_read(gw_doc *d, int series, rw_settings *out);
void rw_settings_free(rw_settings *s);

/* 1 when the rules of ep keep a series with these labels (label(ctx, name) gives a value or "").
 * Rules apply in order, as Prometheus' write_relabel_configs with keep and drop. */
int rw_rules_keep(const rw_endpoint_settings *ep, const char *(*label)(void *ctx, const char *name), void *ctx);

#endif
