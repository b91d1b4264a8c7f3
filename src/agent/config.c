/* config.c - loads and checks the agent's YAML configuration (see config.h). */
#include "config.h"
#include "exposition.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void config_init(gw_config *c)
{
    memset(c, 0, sizeof *c);
    c->listen = strdup(":9400");
    c->interval = 1.0;
    c->ring_duration = 15 * 60;
    c->series = EXPO_DCGM | EXPO_NATIVE;
    c->process_series_limit = 100;
    c->log_level = GW_LOG_INFO;
    tls_settings_default(&c->tls);
    c->http_max_connections = 1000;
    c->http_max_connections_per_ip = 100;
    c->http_connection_rate_per_ip = 1000;
    c->http_request_timeout = 10;
    c->http_idle_timeout = 10;
    c->doc.errs = &c->errs;
}

static void free_users(gw_config *c)
{
    for (int i = 0; i < c->nusers; i++) {
        free(c->users[i].name);
        free(c->users[i].hash);
    }
    free(c->users);
    c->users = NULL;
    c->nusers = 0;
}

void config_free(gw_config *c)
{
    free(c->path);
    free(c->listen);
    for (int i = 0; i < c->nmetrics; i++)
        free(c->metrics[i]);
    free(c->metrics);
    free(c->metric_lines);
    free(c->tls_cert);
    free(c->tls_key);
    free_users(c);
    doc_free(&c->doc);
    errlist_free(&c->errs);
    memset(c, 0, sizeof *c);
}

static void set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = s ? strdup(s) : NULL;
}

static int finish(gw_config *c)
{
    errlist_sort(&c->errs);
    return c->errs.n;
}

/* A key's value, or NULL when absent or null. */
static doc_node *value(gw_doc *d, const doc_node *map, const char *key)
{
    doc_node *v = doc_get(d, map, key);
    return doc_is_null(v) ? NULL : v;
}

/* A section that may be left empty; 1 when it is a mapping to read. */
static int section(gw_doc *d, const doc_node *n, const char *what, const char *const *keys)
{
    if (doc_is_null(n))
        return 0;
    return doc_check_map(d, n, what, keys) == 0;
}

static void parse_exporter(gw_config *c, gw_doc *d, const doc_node *n)
{
    static const char *const keys[] = {"series", "metrics", "process_series_limit", NULL};
    if (!section(d, n, "exporter", keys))
        return;
    doc_node *v;
    if ((v = value(d, n, "series"))) {
        const char *s = doc_string(d, v, "exporter.series");
        if (s && !strcmp(s, "dcgm"))
            c->series = EXPO_DCGM;
        else if (s && !strcmp(s, "native"))
            c->series = EXPO_NATIVE;
        else if (s && !strcmp(s, "both"))
            c->series = EXPO_DCGM | EXPO_NATIVE;
        else if (s)
            doc_error(d, v, "exporter.series: '%s' is not one of dcgm, native, both", s);
    }
    if ((v = value(d, n, "metrics")) && doc_check_seq(d, v, "exporter.metrics: a list of metric names") == 0) {
        expo_options probe;
        expo_options_default(&probe);
        int count = doc_seq_len(v);
        c->metrics = calloc((size_t)(count ? count : 1), sizeof *c->metrics);
        c->metric_lines = calloc((size_t)(count ? count : 1), sizeof *c->metric_lines);
        for (int i = 0; c->metrics && c->metric_lines && i < count; i++) {
            doc_node *m = doc_seq_at(d, v, i);
            const char *name = doc_string(d, m, "exporter.metrics");
            if (!name)
                continue;
            if (expo_enable(&probe, name) != 0) {
                doc_error(d, m, "exporter.metrics: unknown metric '%s' (a catalog field, DCGM_FI_ or gpuwatch_ name)",
                          name);
                continue;
            }
            c->metrics[c->nmetrics] = strdup(name);
            c->metric_lines[c->nmetrics++] = (int)m->start_mark.line + 1;
        }
    }
    long lim;
    if ((v = value(d, n, "process_series_limit")) &&
        doc_int(d, v, "exporter.process_series_limit", 0, 100000, &lim) == 0)
        c->process_series_limit = (int)lim;
}

static int parse_version(gw_config *c, const doc_node *n, const char *what, const char *key, int *out)
{
    doc_node *v = value(&c->doc, n, key);
    const char *s = v ? doc_string(&c->doc, v, key) : NULL;
    if (!s)
        return 0;
    int ver = tls_version_parse(s);
    if (ver < 0)
        return doc_error(&c->doc, v, "%s.%s: '%s' is not one of TLS10, TLS11, TLS12, TLS13", what, key, s);
    *out = ver;
    return 0;
}

/* A list of Go names into a bit set; parse gives each name's bit, -1 unknown, -2 refused. */
static void parse_names(gw_config *c, const doc_node *n, const char *what, const char *key, int (*parse)(const char *),
                        const char *known, uint32_t *out)
{
    gw_doc *d = &c->doc;
    doc_node *v = value(d, n, key);
    char msg[96];
    snprintf(msg, sizeof msg, "%s.%s: a list of names", what, key);
    if (!v || doc_check_seq(d, v, msg) != 0)
        return;
    for (int i = 0; i < doc_seq_len(v); i++) {
        doc_node *e = doc_seq_at(d, v, i);
        const char *s = doc_string(d, e, key);
        int bit = s ? parse(s) : -1;
        if (s && bit == -2)
            doc_error(d, e, "%s.%s: '%s' is broken (RC4, 3DES) and not offered", what, key, s);
        else if (s && bit < 0)
            doc_error(d, e, "%s.%s: unknown name '%s' (%s)", what, key, s, known);
        else if (s)
            *out |= 1u << bit;
    }
    if (doc_seq_len(v) == 0)
        doc_error(d, v, "%s.%s: an empty list offers nothing; leave it out for the defaults", what, key);
}

static void parse_tls(gw_config *c, const doc_node *n, const char *what)
{
    static const char *const keys[] = {"cert_file",
                                       "key_file",
                                       "min_version",
                                       "max_version",
                                       "cipher_suites",
                                       "curve_preferences",
                                       "prefer_server_cipher_suites",
                                       NULL};
    gw_doc *d = &c->doc;
    if (!section(d, n, what, keys))
        return;
    doc_node *cert = value(d, n, "cert_file"), *key = value(d, n, "key_file");
    const char *cs = cert ? doc_string(d, cert, "cert_file") : NULL;
    const char *ks = key ? doc_string(d, key, "key_file") : NULL;
    if (!cs != !ks)
        doc_error(d, n, "%s: cert_file and key_file go together", what);
    set_str(&c->tls_cert, cs);
    set_str(&c->tls_key, ks);
    tls_settings *t = &c->tls;
    parse_version(c, n, what, "min_version", &t->min_version);
    parse_version(c, n, what, "max_version", &t->max_version);
    if (t->min_version > t->max_version)
        doc_error(d, n, "%s: min_version is above max_version", what);
    parse_names(c, n, what, "cipher_suites", tls_cipher_parse, "Go's names, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                &t->ciphers);
    parse_names(c, n, what, "curve_preferences", tls_curve_parse, "X25519, CurveP256, CurveP384, CurveP521",
                &t->curves);
    doc_node *v = value(d, n, "prefer_server_cipher_suites");
    int b;
    if (v && doc_bool(d, v, "prefer_server_cipher_suites", &b) == 0)
        t->prefer_server = b;
}

/* http: connection limits and timeouts. */
static void parse_http(gw_config *c, const doc_node *n)
{
    static const char *const keys[] = {"max_connections", "max_connections_per_ip", "connection_rate_per_ip",
                                       "request_timeout", "idle_timeout",           NULL};
    gw_doc *d = &c->doc;
    if (!section(d, n, "http", keys))
        return;
    doc_node *v;
    long l;
    if ((v = value(d, n, "max_connections")) && doc_int(d, v, "http.max_connections", 16, 60000, &l) == 0)
        c->http_max_connections = (int)l;
    if ((v = value(d, n, "max_connections_per_ip")) && doc_int(d, v, "http.max_connections_per_ip", 1, 60000, &l) == 0)
        c->http_max_connections_per_ip = (int)l;
    double s;
    if ((v = value(d, n, "connection_rate_per_ip")) && doc_number(d, v, "http.connection_rate_per_ip", &s) == 0) {
        if (!(s >= 0 && s <= 1e6))
            doc_error(d, v, "http.connection_rate_per_ip: must be between 0 (no limit) and 1000000");
        else
            c->http_connection_rate_per_ip = s;
    }
    if ((v = value(d, n, "request_timeout")) && doc_duration(d, v, "http.request_timeout", &s) == 0) {
        if (s < 1 || s > 600)
            doc_error(d, v, "http.request_timeout: must be between 1s and 10m");
        else
            c->http_request_timeout = s;
    }
    if ((v = value(d, n, "idle_timeout")) && doc_duration(d, v, "http.idle_timeout", &s) == 0) {
        if (s < 1 || s > 3600)
            doc_error(d, v, "http.idle_timeout: must be between 1s and 1h");
        else
            c->http_idle_timeout = s;
    }
}

static void parse_users(gw_config *c, const doc_node *n)
{
    gw_doc *d = &c->doc;
    if (!section(d, n, "basic_auth_users", NULL))
        return;
    int count = doc_map_len(n);
    c->users = calloc((size_t)(count ? count : 1), sizeof *c->users);
    for (int i = 0; c->users && i < count; i++) {
        const char *name = doc_text(doc_map_key(d, n, i));
        doc_node *v = doc_map_value(d, n, i);
        const char *hash = doc_string(d, v, "basic_auth_users");
        if (!name || !hash)
            continue;
        if (!*name || strchr(name, ':'))
            doc_error(d, v, "basic_auth_users: user name '%s' is empty or has a ':'", name);
        else if (strncmp(hash, "$2a$", 4) && strncmp(hash, "$2b$", 4) && strncmp(hash, "$2y$", 4))
            doc_error(d, v,
                      "basic_auth_users.%s: not a bcrypt hash ($2y$...); make one with 'gpuwatch agent "
                      "--hash-password'",
                      name);
        else {
            c->users[c->nusers].name = strdup(name);
            c->users[c->nusers++].hash = strdup(hash);
        }
    }
}

/* A duration key of the top level within [min, max] seconds. */
static void parse_seconds(gw_config *c, const doc_node *root, const char *key, double min, double max,
                          const char *range, double *out)
{
    doc_node *v = value(&c->doc, root, key);
    double s;
    if (!v || doc_duration(&c->doc, v, key, &s) != 0)
        return;
    if (s < min || s > max)
        doc_error(&c->doc, v, "%s: must be between %s", key, range);
    else
        *out = s;
}

int config_check_listen(const char *listen, char *why, size_t n)
{
    const char *colon = strrchr(listen, ':');
    if (!colon) {
        snprintf(why, n, "expected [host]:port");
        return -1;
    }
    char *end;
    errno = 0;
    long port = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end || errno || port < 0 || port > 65535) {
        snprintf(why, n, "the port must be a whole number from 0 to 65535 (0: any free port)");
        return -1;
    }
    size_t hl = (size_t)(colon - listen);
    if (hl >= 256 || (hl && (listen[0] == '[') != (listen[hl - 1] == ']'))) {
        snprintf(why, n, "expected [host]:port (an IPv6 host in brackets)");
        return -1;
    }
    return 0;
}

const char *const config_agent_keys[] = {"listen", "interval", "ring_duration",    "exporter", "tls",
                                         "http",   "log",      "basic_auth_users", NULL};

/* The top level: the agent's keys. The others are the plugins' sections, each checked by its
 * plugin; a key that nobody owns is reported by config_check_keys. */
static void parse_root(gw_config *c)
{
    gw_doc *d = &c->doc;
    doc_node *root = doc_root(d);
    if (doc_is_null(root))
        return;
    if (doc_check_map(d, root, "the top level", NULL) != 0)
        return;
    doc_node *v;
    if ((v = value(d, root, "listen"))) {
        const char *s = doc_string(d, v, "listen");
        char why[128];
        if (s && config_check_listen(s, why, sizeof why) != 0)
            doc_error(d, v, "listen: '%s': %s", s, why);
        else if (s)
            set_str(&c->listen, s);
    }
    parse_seconds(c, root, "interval", 0.1, 3600, "100ms and 1h", &c->interval);
    parse_seconds(c, root, "ring_duration", 1, 7 * 86400, "1s and 7d", &c->ring_duration);
    parse_exporter(c, d, doc_get(d, root, "exporter"));
    parse_tls(c, doc_get(d, root, "tls"), "tls");
    parse_http(c, doc_get(d, root, "http"));
    parse_users(c, doc_get(d, root, "basic_auth_users"));
    static const char *const log_keys[] = {"level", NULL};
    doc_node *log = doc_get(d, root, "log");
    if (section(d, log, "log", log_keys) && (v = value(d, log, "level"))) {
        const char *s = doc_string(d, v, "log.level");
        if (s && gw_log_parse_level(s, &c->log_level) != 0)
            doc_error(d, v, "log.level: '%s' is not one of debug, info, warn, error", s);
    }
}

int config_check_keys(gw_config *c, const char *const *sections)
{
    gw_doc *d = &c->doc;
    doc_node *root = doc_root(d);
    for (int i = 0; i < doc_map_len(root); i++) {
        doc_node *kn = doc_map_key(d, root, i);
        const char *k = doc_text(kn);
        int known = 0;
        for (int j = 0; k && config_agent_keys[j] && !known; j++)
            known = strcmp(k, config_agent_keys[j]) == 0;
        for (int j = 0; k && sections && sections[j] && !known; j++)
            known = strcmp(k, sections[j]) == 0;
        if (k && !known)
            doc_error(d, kn, "unknown key '%s' at the top level", k);
    }
    return finish(c);
}

int config_load_string(gw_config *c, const char *text, const char *name)
{
    set_str(&c->path, name);
    if (doc_load_text(&c->doc, name, text, strlen(text), &c->errs) == 0)
        parse_root(c);
    return finish(c);
}

int config_load_file(gw_config *c, const char *path, int must_exist)
{
    set_str(&c->path, path);
    if (!must_exist && access(path, F_OK) != 0 && errno == ENOENT)
        return 0;
    if (doc_load_file(&c->doc, path, &c->errs) == 0)
        parse_root(c);
    return finish(c);
}

/* Prometheus' web-config file: tls_server_config (cert_file, key_file, min_version, max_version,
 * cipher_suites, curve_preferences, prefer_server_cipher_suites) and basic_auth_users. Its problems
 * come after the config file's. */
int config_load_web_config(gw_config *c, const char *path)
{
    static const char *const keys[] = {"tls_server_config", "basic_auth_users", NULL};
    gw_config w;
    config_init(&w);
    if (doc_load_file(&w.doc, path, &w.errs) == 0) {
        doc_node *root = doc_root(&w.doc);
        if (!doc_is_null(root) && doc_check_map(&w.doc, root, "the top level", keys) == 0) {
            parse_tls(&w, doc_get(&w.doc, root, "tls_server_config"), "tls_server_config");
            parse_users(&w, doc_get(&w.doc, root, "basic_auth_users"));
        }
    }
    errlist_sort(&w.errs);
    for (int i = 0; i < w.errs.n; i++)
        errlist_add(&c->errs, NULL, 0, 0, "%s", w.errs.msg[i]);
    if (!w.errs.n) {
        if (w.tls_cert) {
            set_str(&c->tls_cert, w.tls_cert);
            set_str(&c->tls_key, w.tls_key);
            c->tls = w.tls; /* the web-config's versions and suites go with its certificate */
        }
        if (w.nusers) {
            free_users(c);
            c->users = w.users;
            c->nusers = w.nusers;
            w.users = NULL;
            w.nusers = 0;
        }
    }
    config_free(&w);
    return c->errs.n;
}

int config_read_exporter(gw_doc *d, gw_config *out)
{
    config_init(out);
    errlist *told = d->errs, quiet = {0};
    d->errs = &quiet; /* the agent's load told them */
    doc_node *root = doc_root(d);
    if (doc_is_map(root))
        parse_exporter(out, d, doc_get(d, root, "exporter"));
    d->errs = told;
    int bad = quiet.n;
    errlist_free(&quiet);
    return bad ? -1 : 0;
}
