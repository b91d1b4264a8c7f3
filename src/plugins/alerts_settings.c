/* alerts_settings.c - reading and checking the agent config's `alerts:` section (rule files, default
 * rules, thresholds, external labels, receivers). */
#include "alerts_settings.h"
#include "alerts.h"
#include "rules.h"
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static yaml_node_t *node(gw_config *c, int id)
{
    return yaml_document_get_node(&c->doc, id);
}

static const char *text(gw_config *c, yaml_node_t *n, const char *what)
{
    if (!n || n->type != YAML_SCALAR_NODE) {
        config_error(c, n, "%s: expected a single value", what);
        return NULL;
    }
    return (const char *)n->data.scalar.value;
}

static yaml_node_t *get(gw_config *c, yaml_node_t *map, const char *key)
{
    int n = config_map_size(c, map);
    for (int i = 0; i < n; i++) {
        yaml_node_t *v;
        if (strcmp(config_map_key(c, map, i, &v), key) == 0)
            return v;
    }
    return NULL;
}

static void check_keys(gw_config *c, yaml_node_t *map, const char *what, const char *const *allowed)
{
    int n = config_map_size(c, map);
    for (int i = 0; i < n; i++) {
        yaml_node_t *v;
        const char *k = config_map_key(c, map, i, &v);
        int ok = 0;
        for (int a = 0; allowed[a]; a++)
            ok |= strcmp(allowed[a], k) == 0;
        if (!ok)
            config_error(c, node(c, map->data.mapping.pairs.start[i].key), "unknown key '%s.%s'", what, k);
    }
}

/* The items of a list (a single value counts as a list of one). */
static int items(gw_config *c, yaml_node_t *n, const char *what, yaml_node_t **out, int max)
{
    if (n->type == YAML_SCALAR_NODE) {
        out[0] = n;
        return 1;
    }
    if (n->type != YAML_SEQUENCE_NODE) {
        config_error(c, n, "%s: expected a list", what);
        return 0;
    }
    int k = 0;
    for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top && k < max; i++)
        out[k++] = node(c, *i);
    return k;
}

static double seconds(gw_config *c, yaml_node_t *n, const char *what, double def)
{
    const char *s = n ? text(c, n, what) : NULL;
    double v = def;
    if (s && gw_parse_duration(s, &v) != 0) {
        config_error(c, n, "%s: '%s' is not a duration (e.g. 10s, 500ms)", what, s);
        v = def;
    }
    return v;
}

static int boolean(gw_config *c, yaml_node_t *n, const char *what, int def)
{
    const char *s = n ? text(c, n, what) : NULL;
    if (!s)
        return def;
    if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on"))
        return 1;
    if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off"))
        return 0;
    config_error(c, n, "%s: '%s' is not true or false", what, s);
    return def;
}

static char *dup_text(gw_config *c, yaml_node_t *n, const char *what)
{
    const char *s = n ? text(c, n, what) : NULL;
    return s ? strdup(s) : NULL;
}

static void read_receiver(gw_config *c, yaml_node_t *n, receiver_config *r)
{
    static const char *const keys[] = {"name",    "type",    "command",       "url",        "urls",    "timeout",
                                       "retries", "backoff", "send_resolved", "queue_size", "headers", "basic_auth",
                                       "tls",     NULL};
    memset(r, 0, sizeof *r);
    if (n->type != YAML_MAPPING_NODE) {
        config_error(c, n, "alerts.receivers: each receiver is a mapping (name, type, ...)");
        return;
    }
    check_keys(c, n, "alerts.receivers[]", keys);
    const char *name = get(c, n, "name") ? text(c, get(c, n, "name"), "alerts.receivers[].name") : NULL;
    const char *type = get(c, n, "type") ? text(c, get(c, n, "type"), "alerts.receivers[].type") : NULL;
    if (!name || !*name)
        config_error(c, n, "alerts.receivers: a receiver needs a 'name'");
    snprintf(r->name, sizeof r->name, "%s", name ? name : "");
    int known = 1;
    if (type && !strcmp(type, "exec"))
        r->kind = RCV_EXEC;
    else if (type && !strcmp(type, "webhook"))
        r->kind = RCV_WEBHOOK;
    else if (type && !strcmp(type, "alertmanager"))
        r->kind = RCV_ALERTMANAGER;
    else {
        config_error(c, get(c, n, "type") ? get(c, n, "type") : n,
                     "alerts.receivers: 'type' must be exec, webhook or alertmanager");
        known = 0;
    }
    r->timeout_s = seconds(c, get(c, n, "timeout"), "alerts.receivers[].timeout", 10);
    r->backoff_s = seconds(c, get(c, n, "backoff"), "alerts.receivers[].backoff", 1);
    r->send_resolved = boolean(c, get(c, n, "send_resolved"), "alerts.receivers[].send_resolved", 1);
    long v;
    yaml_node_t *x;
    r->max_retries = 3;
    if ((x = get(c, n, "retries")) && text(c, x, "retries")) {
        v = strtol((const char *)x->data.scalar.value, NULL, 10);
        if (v < 0 || v > 20)
            config_error(c, x, "alerts.receivers[].retries: 0..20");
        else
            r->max_retries = (int)v;
    }
    if ((x = get(c, n, "queue_size")) && text(c, x, "queue_size")) {
        v = strtol((const char *)x->data.scalar.value, NULL, 10);
        if (v < 1 || v > 100000)
            config_error(c, x, "alerts.receivers[].queue_size: 1..100000");
        else
            r->queue_size = (int)v;
    }
    yaml_node_t *list[RCV_MAX_ARGS];
    if ((x = get(c, n, "command"))) {
        if (x->type == YAML_SCALAR_NODE)
            config_error(c, x, "alerts.receivers[].command: a list [program, arg, ...] (never a shell string)");
        int k = items(c, x, "command", list, RCV_MAX_ARGS);
        for (int i = 0; i < k && x->type == YAML_SEQUENCE_NODE; i++)
            r->argv[i] = dup_text(c, list[i], "command item");
    }
    if ((x = get(c, n, "url")))
        r->urls[r->nurls++] = dup_text(c, x, "url");
    if ((x = get(c, n, "urls"))) {
        int k = items(c, x, "urls", list, RCV_MAX_URLS);
        for (int i = 0; i < k && r->nurls < RCV_MAX_URLS; i++)
            r->urls[r->nurls++] = dup_text(c, list[i], "urls item");
    }
    if ((x = get(c, n, "headers")))
        for (int i = 0; i < config_map_size(c, x) && r->nheaders < RCV_MAX_HEADERS; i++) {
            yaml_node_t *hv;
            const char *hk = config_map_key(c, x, i, &hv);
            const char *val = text(c, hv, "header value");
            if (val && (strchr(hk, '\n') || strchr(val, '\n') || strchr(hk, ':'))) {
                config_error(c, hv, "alerts.receivers[].headers: a header name or value with ':' or a newline");
                continue;
            }
            char *h = NULL;
            if (val && asprintf(&h, "%s: %s", hk, val) > 0)
                r->headers[r->nheaders++] = h;
        }
    if ((x = get(c, n, "basic_auth"))) {
        static const char *const bk[] = {"username", "password", NULL};
        check_keys(c, x, "alerts.receivers[].basic_auth", bk);
        r->basic_user = dup_text(c, get(c, x, "username"), "basic_auth.username");
        r->basic_password = dup_text(c, get(c, x, "password"), "basic_auth.password");
    }
    if ((x = get(c, n, "tls"))) {
        static const char *const tk[] = {"ca_file", "cert_file", "key_file", "insecure_skip_verify", NULL};
        check_keys(c, x, "alerts.receivers[].tls", tk);
        r->ca_file = dup_text(c, get(c, x, "ca_file"), "tls.ca_file");
        r->cert_file = dup_text(c, get(c, x, "cert_file"), "tls.cert_file");
        r->key_file = dup_text(c, get(c, x, "key_file"), "tls.key_file");
        r->insecure_skip_verify = boolean(c, get(c, x, "insecure_skip_verify"), "tls.insecure_skip_verify", 0);
    }
    if (known && r->kind == RCV_EXEC && !r->argv[0] && !get(c, n, "command"))
        config_error(c, n, "alerts.receivers: an exec receiver needs 'command: [program, args...]'");
    if (known && r->kind != RCV_EXEC && r->nurls == 0)
        config_error(c, n, "alerts.receivers: a %s receiver needs 'url' or 'urls'", type ? type : "");
    for (int i = 0; i < r->nurls; i++)
        if (r->urls[i] && strncmp(r->urls[i], "http://", 7) && strncmp(r->urls[i], "https://", 8))
            config_error(c, get(c, n, "url") ? get(c, n, "url") : get(c, n, "urls"),
                         "alerts.receivers: '%s' is not an http(s) URL", r->urls[i]);
}

static void add_rule_file(alerts_settings *s, const char *path, yaml_node_t *n)
{
    char **f = realloc(s->rule_files, (size_t)(s->nrule_files + 1) * sizeof *f);
    yaml_node_t **nn = realloc(s->rule_nodes, (size_t)(s->nrule_files + 1) * sizeof *nn);
    if (f)
        s->rule_files = f;
    if (nn)
        s->rule_nodes = nn;
    if (!f || !nn)
        return;
    s->rule_files[s->nrule_files] = strdup(path);
    s->rule_nodes[s->nrule_files++] = n;
}

/* Rule files: globs expanded; a pattern that matches nothing is an error unless it has a wildcard. */
static void read_rule_files(gw_config *c, yaml_node_t *n, alerts_settings *s)
{
    yaml_node_t *list[256];
    int k = items(c, n, "alerts.rule_files", list, 256);
    for (int i = 0; i < k; i++) {
        const char *pat = text(c, list[i], "alerts.rule_files item");
        if (!pat)
            continue;
        glob_t g;
        int rc = glob(pat, GLOB_NOSORT | GLOB_BRACE | GLOB_TILDE, NULL, &g);
        if (rc == GLOB_NOMATCH && !strpbrk(pat, "*?["))
            config_error(c, list[i], "alerts.rule_files: no file '%s'", pat);
        for (size_t m = 0; rc == 0 && m < g.gl_pathc; m++)
            add_rule_file(s, g.gl_pathv[m], list[i]);
        if (rc == 0)
            globfree(&g);
    }
}

/* Every rule file must load: its own errors (FILE:LINE:COL) are reported at the config entry. */
static void check_rule_files(gw_config *c, alerts_settings *s)
{
    for (int i = 0; i < s->nrule_files + (s->default_rules_file ? 1 : 0); i++) {
        const char *f = i < s->nrule_files ? s->rule_files[i] : s->default_rules_file;
        ruleset rs = {0};
        errlist e = {0};
        rules_load_file(&rs, f, &e);
        errlist_sort(&e);
        for (int k = 0; k < e.n; k++)
            config_error(c, i < s->nrule_files ? s->rule_nodes[i] : NULL, "alerts rule file: %s", e.msg[k]);
        errlist_free(&e);
        ruleset_free(&rs);
    }
}

int alerts_settings_read(gw_config *c, alerts_settings *s)
{
    static const char *const keys[] = {"enabled",    "default_rules",   "rule_files", "evaluation_interval",
                                       "thresholds", "external_labels", "receivers",  NULL};
    memset(s, 0, sizeof *s);
    s->enabled = s->default_rules = 1;
    s->interval_s = 15;
    yaml_node_t *sec = config_node(c, "alerts"), *n;
    if (sec && sec->type == YAML_MAPPING_NODE) {
        check_keys(c, sec, "alerts", keys);
        s->enabled = boolean(c, get(c, sec, "enabled"), "alerts.enabled", 1);
        s->default_rules = boolean(c, get(c, sec, "default_rules"), "alerts.default_rules", 1);
        s->interval_s = seconds(c, get(c, sec, "evaluation_interval"), "alerts.evaluation_interval", 15);
        if (s->interval_s <= 0)
            config_error(c, get(c, sec, "evaluation_interval"), "alerts.evaluation_interval must be > 0");
        if ((n = get(c, sec, "rule_files")))
            read_rule_files(c, n, s);
        if ((n = get(c, sec, "thresholds"))) {
            int k = config_map_size(c, n);
            s->thresholds = calloc((size_t)k + 1, sizeof *s->thresholds);
            for (int i = 0; s->thresholds && i < k; i++) {
                yaml_node_t *v;
                const char *name = config_map_key(c, n, i, &v);
                const char *t = text(c, v, "alerts.thresholds value");
                char *end = NULL;
                double d = t ? strtod(t, &end) : 0;
                if (!t || end == t || *end) {
                    if (t)
                        config_error(c, v, "alerts.thresholds.%s: '%s' is not a number", name, t);
                    continue;
                }
                s->thresholds[s->nthresholds++] = (alerts_threshold){strdup(name), d, v};
            }
        }
        if ((n = get(c, sec, "external_labels")))
            for (int i = 0; i < config_map_size(c, n); i++) {
                yaml_node_t *v;
                const char *name = config_map_key(c, n, i, &v);
                const char *t = text(c, v, "alerts.external_labels value");
                if (t)
                    labels_set(&s->external, name, t);
            }
        if ((n = get(c, sec, "receivers"))) {
            yaml_node_t *list[64];
            int k = n->type == YAML_SEQUENCE_NODE ? items(c, n, "alerts.receivers", list, 64) : 0;
            if (n->type != YAML_SEQUENCE_NODE)
                config_error(c, n, "alerts.receivers: expected a list");
            s->receivers = calloc((size_t)k + 1, sizeof *s->receivers);
            for (int i = 0; s->receivers && i < k; i++) {
                read_receiver(c, list[i], &s->receivers[s->nreceivers++]);
                for (int j = 0; j < s->nreceivers - 1; j++)
                    if (!strcmp(s->receivers[j].name, s->receivers[s->nreceivers - 1].name))
                        config_error(c, list[i], "alerts.receivers: name '%s' used twice", s->receivers[j].name);
            }
        }
    }
    if (s->enabled && s->default_rules) {
        s->default_rules_file = alerts_default_rules_path();
        if (!s->default_rules_file)
            gw_log(GW_LOG_WARN, "alerts: default rules not found (set GPUWATCH_DEFAULT_RULES)", NULL);
    }
    check_rule_files(c, s);
    return c->nerrors;
}

void alerts_settings_free(alerts_settings *s)
{
    for (int i = 0; i < s->nrule_files; i++)
        free(s->rule_files[i]);
    free(s->rule_files);
    free(s->rule_nodes);
    for (int i = 0; i < s->nthresholds; i++)
        free(s->thresholds[i].alertname);
    free(s->thresholds);
    for (int i = 0; i < s->nreceivers; i++)
        receiver_config_free(&s->receivers[i]);
    free(s->receivers);
    free(s->default_rules_file);
    labels_free(&s->external);
    memset(s, 0, sizeof *s);
}
