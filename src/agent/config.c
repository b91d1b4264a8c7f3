/* config.c - loads and checks the agent's YAML configuration (see config.h). */
#include "config.h"
#include "exposition.h"
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void config_init(gw_config *c)
{
    memset(c, 0, sizeof *c);
    c->listen = strdup(":9400");
    c->interval = 1.0;
    c->ring_duration = 15 * 60;
    c->series = EXPO_DCGM | EXPO_NATIVE;
    c->process_series_limit = 100;
    c->log_level = GW_LOG_INFO;
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
    for (int i = 0; i < c->nusers; i++) {
        free(c->users[i].name);
        free(c->users[i].hash);
    }
    free(c->users);
    if (c->has_doc)
        yaml_document_delete(&c->doc);
    for (int i = 0; i < c->nerrors; i++)
        free(c->errors[i]);
    free(c->errors);
    free(c->error_pos);
    memset(c, 0, sizeof *c);
}

static void add_error_at(gw_config *c, int line, int col, const char *msg)
{
    char *e = NULL;
    const char *file = c->path ? c->path : "config";
    int n = line > 0 ? asprintf(&e, "%s:%d:%d: %s", file, line, col, msg) : asprintf(&e, "%s: %s", file, msg);
    if (n < 0)
        return;
    char **p = realloc(c->errors, (size_t)(c->nerrors + 1) * sizeof *p);
    if (p)
        c->errors = p;
    long *q = realloc(c->error_pos, (size_t)(c->nerrors + 1) * sizeof *q);
    if (q)
        c->error_pos = q;
    if (!p || !q) {
        free(e);
        return;
    }
    long pos = (long)line * 100000 + col;
    int at = c->nerrors;
    while (at > 0 && c->error_pos[at - 1] > pos) {
        c->errors[at] = c->errors[at - 1];
        c->error_pos[at] = c->error_pos[at - 1];
        at--;
    }
    c->errors[at] = e;
    c->error_pos[at] = pos;
    c->nerrors++;
}

void config_error(gw_config *c, const yaml_node_t *node, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (node)
        add_error_at(c, (int)node->start_mark.line + 1, (int)node->start_mark.column + 1, msg);
    else
        add_error_at(c, 0, 0, msg);
}

/* ---------- document access ---------- */

static yaml_node_t *node_at(const gw_config *c, int id)
{
    return yaml_document_get_node((yaml_document_t *)&c->doc, id);
}

int config_map_size(const gw_config *c, const yaml_node_t *map)
{
    (void)c;
    if (!map || map->type != YAML_MAPPING_NODE)
        return 0;
    return (int)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
}

const char *config_map_key(const gw_config *c, const yaml_node_t *map, int i, yaml_node_t **value)
{
    yaml_node_pair_t *p = map->data.mapping.pairs.start + i;
    yaml_node_t *k = node_at(c, p->key);
    if (value)
        *value = node_at(c, p->value);
    return k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "";
}

static yaml_node_t *map_get(const gw_config *c, const yaml_node_t *map, const char *key, size_t keylen)
{
    int n = config_map_size(c, map);
    for (int i = 0; i < n; i++) {
        yaml_node_t *v;
        const char *k = config_map_key(c, map, i, &v);
        if (strlen(k) == keylen && memcmp(k, key, keylen) == 0)
            return v;
    }
    return NULL;
}

yaml_node_t *config_node(const gw_config *c, const char *path)
{
    if (!c->has_doc)
        return NULL;
    yaml_node_t *n = yaml_document_get_root_node((yaml_document_t *)&c->doc);
    for (const char *p = path; n && p && *p;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        n = map_get(c, n, p, len);
        p = dot ? dot + 1 : NULL;
    }
    return n;
}

static int is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    const char *s = (const char *)n->data.scalar.value;
    return !*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0;
}

static const char *scalar(gw_config *c, const yaml_node_t *n, const char *what)
{
    if (n->type != YAML_SCALAR_NODE) {
        config_error(c, n, "%s: expected a single value", what);
        return NULL;
    }
    return (const char *)n->data.scalar.value;
}

const char *config_get_string(gw_config *c, const char *path, const char *def)
{
    yaml_node_t *n = config_node(c, path);
    if (!n || is_null(n))
        return def;
    const char *s = scalar(c, n, path);
    return s ? s : def;
}

static int node_duration(gw_config *c, const yaml_node_t *n, const char *what, double *out)
{
    const char *s = scalar(c, n, what);
    if (!s)
        return -1;
    if (gw_parse_duration(s, out) != 0) {
        config_error(c, n, "%s: '%s' is not a duration (e.g. 1s, 500ms, 15m)", what, s);
        return -1;
    }
    return 0;
}

int config_get_duration(gw_config *c, const char *path, double def, double *out)
{
    *out = def;
    yaml_node_t *n = config_node(c, path);
    if (!n || is_null(n))
        return 0;
    return node_duration(c, n, path, out);
}

static int node_int(gw_config *c, const yaml_node_t *n, const char *what, long *out)
{
    const char *s = scalar(c, n, what);
    if (!s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end) {
        config_error(c, n, "%s: '%s' is not an integer", what, s);
        return -1;
    }
    *out = v;
    return 0;
}

int config_get_int(gw_config *c, const char *path, long def, long *out)
{
    *out = def;
    yaml_node_t *n = config_node(c, path);
    if (!n || is_null(n))
        return 0;
    return node_int(c, n, path, out);
}

int config_get_bool(gw_config *c, const char *path, int def, int *out)
{
    *out = def;
    yaml_node_t *n = config_node(c, path);
    if (!n || is_null(n))
        return 0;
    const char *s = scalar(c, n, path);
    if (!s)
        return -1;
    if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on")) {
        *out = 1;
        return 0;
    }
    if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off")) {
        *out = 0;
        return 0;
    }
    config_error(c, n, "%s: '%s' is not true or false", path, s);
    return -1;
}

/* ---------- the agent's own keys ---------- */

static void set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = s ? strdup(s) : NULL;
}

static int check_map(gw_config *c, const yaml_node_t *n, const char *what)
{
    if (n->type == YAML_MAPPING_NODE)
        return 1;
    if (!is_null(n))
        config_error(c, n, "%s: expected a mapping of keys", what);
    return 0;
}

/* Errors for keys of map that are not in allowed (NULL-terminated) or are repeated. */
static void check_keys(gw_config *c, const yaml_node_t *map, const char *section, const char *const *allowed)
{
    int n = config_map_size(c, map);
    for (int i = 0; i < n; i++) {
        yaml_node_pair_t *p = map->data.mapping.pairs.start + i;
        yaml_node_t *k = node_at(c, p->key);
        const char *key = config_map_key(c, map, i, NULL);
        for (int j = 0; j < i; j++)
            if (strcmp(key, config_map_key(c, map, j, NULL)) == 0)
                config_error(c, k, "%s%s%s: key given twice", section, *section ? "." : "", key);
        if (!allowed)
            continue;
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            ok |= strcmp(*a, key) == 0;
        if (!ok)
            config_error(c, k, "unknown key '%s%s%s'", section, *section ? "." : "", key);
    }
}

static void parse_exporter(gw_config *c, const yaml_node_t *n)
{
    static const char *const keys[] = {"series", "metrics", "process_series_limit", NULL};
    if (!check_map(c, n, "exporter"))
        return;
    check_keys(c, n, "exporter", keys);
    yaml_node_t *v;
    if ((v = map_get(c, n, "series", 6)) && !is_null(v)) {
        const char *s = scalar(c, v, "exporter.series");
        if (s && !strcmp(s, "dcgm"))
            c->series = EXPO_DCGM;
        else if (s && !strcmp(s, "native"))
            c->series = EXPO_NATIVE;
        else if (s && !strcmp(s, "both"))
            c->series = EXPO_DCGM | EXPO_NATIVE;
        else if (s)
            config_error(c, v, "exporter.series: '%s' is not one of dcgm, native, both", s);
    }
    if ((v = map_get(c, n, "metrics", 7)) && !is_null(v)) {
        if (v->type != YAML_SEQUENCE_NODE) {
            config_error(c, v, "exporter.metrics: expected a list of metric names");
        } else {
            expo_options probe;
            expo_options_default(&probe);
            for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
                yaml_node_t *m = node_at(c, *it);
                const char *name = scalar(c, m, "exporter.metrics");
                if (!name)
                    continue;
                if (expo_enable(&probe, name) != 0) {
                    config_error(c, m,
                                 "exporter.metrics: unknown metric '%s' (a catalog field, DCGM_FI_ or gpuwatch_ name)",
                                 name);
                    continue;
                }
                char **nm = realloc(c->metrics, (size_t)(c->nmetrics + 1) * sizeof *nm);
                int *nl = realloc(c->metric_lines, (size_t)(c->nmetrics + 1) * sizeof *nl);
                if (nm)
                    c->metrics = nm;
                if (nl)
                    c->metric_lines = nl;
                if (!nm || !nl)
                    continue;
                c->metrics[c->nmetrics] = strdup(name);
                c->metric_lines[c->nmetrics++] = (int)m->start_mark.line + 1;
            }
        }
    }
    if ((v = map_get(c, n, "process_series_limit", 20)) && !is_null(v)) {
        long lim;
        if (node_int(c, v, "exporter.process_series_limit", &lim) == 0) {
            if (lim < 0 || lim > 100000)
                config_error(c, v, "exporter.process_series_limit: %ld is out of range 0..100000", lim);
            else
                c->process_series_limit = (int)lim;
        }
    }
}

static void parse_tls(gw_config *c, const yaml_node_t *n, const char *section)
{
    static const char *const keys[] = {"cert_file", "key_file", NULL};
    if (!check_map(c, n, section))
        return;
    check_keys(c, n, section, keys);
    yaml_node_t *cert = map_get(c, n, "cert_file", 9), *key = map_get(c, n, "key_file", 8);
    const char *cs = cert && !is_null(cert) ? scalar(c, cert, "cert_file") : NULL;
    const char *ks = key && !is_null(key) ? scalar(c, key, "key_file") : NULL;
    if (!cs != !ks)
        config_error(c, n, "%s: cert_file and key_file go together", section);
    set_str(&c->tls_cert, cs);
    set_str(&c->tls_key, ks);
}

static void parse_users(gw_config *c, const yaml_node_t *n)
{
    if (!check_map(c, n, "basic_auth_users"))
        return;
    check_keys(c, n, "basic_auth_users", NULL);
    int count = config_map_size(c, n);
    c->users = calloc((size_t)(count ? count : 1), sizeof *c->users);
    if (!c->users)
        return;
    for (int i = 0; i < count; i++) {
        yaml_node_t *v;
        const char *name = config_map_key(c, n, i, &v);
        const char *hash = scalar(c, v, "basic_auth_users");
        if (!hash)
            continue;
        if (!*name || strchr(name, ':'))
            config_error(c, v, "basic_auth_users: user name '%s' is empty or has a ':'", name);
        else if (strncmp(hash, "$2a$", 4) && strncmp(hash, "$2b$", 4) && strncmp(hash, "$2y$", 4))
            config_error(
                c, v,
                "basic_auth_users.%s: not a bcrypt hash ($2y$...); make one with 'gpuwatch agent --hash-password'",
                name);
        else {
            c->users[c->nusers].name = strdup(name);
            c->users[c->nusers++].hash = strdup(hash);
        }
    }
}

static void parse_root(gw_config *c, yaml_node_t *root)
{
    static const char *const keys[] = {"listen",           "interval", "ring_duration", "exporter", "tls",
                                       "basic_auth_users", "log",      "history",       "alerts",   NULL};
    if (!root || is_null(root))
        return;
    if (root->type != YAML_MAPPING_NODE) {
        config_error(c, root, "expected a mapping of keys at the top level");
        return;
    }
    check_keys(c, root, "", keys);
    yaml_node_t *v;
    if ((v = map_get(c, root, "listen", 6)) && !is_null(v)) {
        const char *s = scalar(c, v, "listen");
        if (s && !strrchr(s, ':'))
            config_error(c, v, "listen: '%s' is not [host]:port", s);
        else if (s)
            set_str(&c->listen, s);
    }
    if ((v = map_get(c, root, "interval", 8)) && !is_null(v)) {
        double d;
        if (node_duration(c, v, "interval", &d) == 0) {
            if (d < 0.1 || d > 3600)
                config_error(c, v, "interval: must be between 100ms and 1h");
            else
                c->interval = d;
        }
    }
    if ((v = map_get(c, root, "ring_duration", 13)) && !is_null(v)) {
        double d;
        if (node_duration(c, v, "ring_duration", &d) == 0) {
            if (d < 1 || d > 7 * 86400)
                config_error(c, v, "ring_duration: must be between 1s and 7d");
            else
                c->ring_duration = d;
        }
    }
    if ((v = map_get(c, root, "exporter", 8)))
        parse_exporter(c, v);
    if ((v = map_get(c, root, "tls", 3)))
        parse_tls(c, v, "tls");
    if ((v = map_get(c, root, "basic_auth_users", 16)))
        parse_users(c, v);
    if ((v = map_get(c, root, "log", 3)) && check_map(c, v, "log")) {
        static const char *const lkeys[] = {"level", NULL};
        check_keys(c, v, "log", lkeys);
        yaml_node_t *lv = map_get(c, v, "level", 5);
        const char *s = lv && !is_null(lv) ? scalar(c, lv, "log.level") : NULL;
        if (s && gw_log_parse_level(s, &c->log_level) != 0)
            config_error(c, lv, "log.level: '%s' is not one of debug, info, warn, error", s);
    }
    if ((v = map_get(c, root, "history", 7)))
        check_map(c, v, "history");
    if ((v = map_get(c, root, "alerts", 6)))
        check_map(c, v, "alerts");
}

typedef void (*root_parser)(gw_config *c, yaml_node_t *root);

static int load(gw_config *c, yaml_parser_t *p, root_parser parse)
{
    if (!yaml_parser_load(p, &c->doc)) {
        add_error_at(c, (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1,
                     p->problem ? p->problem : "YAML syntax error");
        return c->nerrors;
    }
    c->has_doc = 1;
    parse(c, yaml_document_get_root_node(&c->doc));
    return c->nerrors;
}

static int load_file(gw_config *c, const char *path, int must_exist, root_parser parse)
{
    set_str(&c->path, path);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT && !must_exist)
            return 0;
        config_error(c, NULL, "cannot open: %s", strerror(errno));
        return c->nerrors;
    }
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, f);
    int n = load(c, &p, parse);
    yaml_parser_delete(&p);
    fclose(f);
    return n;
}

/* Prometheus' web-config file: tls_server_config (cert_file, key_file) and basic_auth_users. */
static void parse_web_root(gw_config *c, yaml_node_t *root)
{
    static const char *const keys[] = {"tls_server_config", "basic_auth_users", NULL};
    if (!root || is_null(root))
        return;
    if (root->type != YAML_MAPPING_NODE) {
        config_error(c, root, "expected a mapping of keys at the top level");
        return;
    }
    check_keys(c, root, "", keys);
    yaml_node_t *v;
    if ((v = map_get(c, root, "tls_server_config", 17)))
        parse_tls(c, v, "tls_server_config");
    if ((v = map_get(c, root, "basic_auth_users", 16)))
        parse_users(c, v);
}

int config_load_web_config(gw_config *c, const char *path)
{
    gw_config w;
    memset(&w, 0, sizeof w);
    load_file(&w, path, 1, parse_web_root);
    for (int i = 0; i < w.nerrors; i++) {
        char **p = realloc(c->errors, (size_t)(c->nerrors + 1) * sizeof *p);
        long *q = realloc(c->error_pos, (size_t)(c->nerrors + 1) * sizeof *q);
        if (p)
            c->errors = p;
        if (q)
            c->error_pos = q;
        if (!p || !q)
            break;
        c->errors[c->nerrors] = w.errors[i];
        c->error_pos[c->nerrors++] = LONG_MAX;
        w.errors[i] = NULL;
    }
    if (!w.nerrors) {
        if (w.tls_cert) {
            set_str(&c->tls_cert, w.tls_cert);
            set_str(&c->tls_key, w.tls_key);
        }
        if (w.nusers) {
            for (int i = 0; i < c->nusers; i++) {
                free(c->users[i].name);
                free(c->users[i].hash);
            }
            free(c->users);
            c->users = w.users;
            c->nusers = w.nusers;
            w.users = NULL;
            w.nusers = 0;
        }
    }
    config_free(&w);
    return c->nerrors;
}

int config_load_string(gw_config *c, const char *text, const char *name)
{
    set_str(&c->path, name);
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
    int n = load(c, &p, parse_root);
    yaml_parser_delete(&p);
    return n;
}

int config_load_file(gw_config *c, const char *path, int must_exist)
{
    return load_file(c, path, must_exist, parse_root);
}
