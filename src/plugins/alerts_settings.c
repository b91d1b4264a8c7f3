/* alerts_settings.c - reading and checking the `alerts:` section of the agent's config or top's
 * settings (rule files, default rules, thresholds, external labels, receivers). */
#include "alerts_settings.h"
#include "util.h"
#include "alerts.h"
#include "rules.h"
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The items of a list (a single value counts as a list of one); at most max. */
static int items(gw_doc *d, doc_node *n, const char *what, doc_node **out, int max)
{
    if (doc_text(n)) {
        out[0] = n;
        return 1;
    }
    if (doc_check_seq(d, n, what) != 0)
        return 0;
    int k = 0;
    for (int i = 0; i < doc_seq_len(n) && k < max; i++)
        out[k++] = doc_seq_at(d, n, i);
    return k;
}

static char *dup_text(gw_doc *d, doc_node *n, const char *what)
{
    const char *s = n ? doc_string(d, n, what) : NULL;
    return s ? strdup(s) : NULL;
}

/* A webhook's or Alertmanager's headers, basic_auth and tls. */
static void read_http_settings(gw_doc *d, doc_node *n, receiver_config *r)
{
    doc_node *x;
    if ((x = doc_get(d, n, "headers")) && doc_check_map(d, x, "alerts.receivers[].headers", NULL) == 0)
        for (int i = 0; i < doc_map_len(x) && r->nheaders < RCV_MAX_HEADERS; i++) {
            const char *hk = doc_text(doc_map_key(d, x, i));
            doc_node *hv = doc_map_value(d, x, i);
            const char *val = doc_string(d, hv, "alerts.receivers[].headers value");
            if (!hk || !val)
                continue;
            if (strchr(hk, '\n') || strchr(val, '\n') || strchr(hk, ':')) {
                doc_error(d, hv, "alerts.receivers[].headers: a header name or value with ':' or a newline");
                continue;
            }
            char *h = NULL;
            if (asprintf(&h, "%s: %s", hk, val) > 0)
                r->headers[r->nheaders++] = h;
        }
    if ((x = doc_get(d, n, "basic_auth"))) {
        static const char *const bk[] = {"username", "password", NULL};
        if (doc_check_map(d, x, "alerts.receivers[].basic_auth", bk) == 0) {
            r->basic_user = dup_text(d, doc_get(d, x, "username"), "basic_auth.username");
            r->basic_password = dup_text(d, doc_get(d, x, "password"), "basic_auth.password");
        }
    }
    if ((x = doc_get(d, n, "tls"))) {
        static const char *const tk[] = {"ca_file", "cert_file", "key_file", "insecure_skip_verify", NULL};
        if (doc_check_map(d, x, "alerts.receivers[].tls", tk) == 0) {
            r->ca_file = dup_text(d, doc_get(d, x, "ca_file"), "tls.ca_file");
            r->cert_file = dup_text(d, doc_get(d, x, "cert_file"), "tls.cert_file");
            r->key_file = dup_text(d, doc_get(d, x, "key_file"), "tls.key_file");
            doc_opt_bool(d, x, "tls", "insecure_skip_verify", &r->insecure_skip_verify);
        }
    }
}

static void read_receiver(gw_doc *d, doc_node *n, receiver_config *r)
{
    static const char *const keys[] = {"name",    "type",    "command",       "url",        "urls",    "timeout",
                                       "retries", "backoff", "send_resolved", "queue_size", "headers", "basic_auth",
                                       "tls",     NULL};
    const char *sec = "alerts.receivers[]";
    memset(r, 0, sizeof *r);
    r->timeout_s = 10;
    r->backoff_s = 1;
    r->send_resolved = 1;
    r->max_retries = 3;
    if (doc_check_map(d, n, sec, keys) != 0)
        return;
    const char *name = NULL, *type = NULL;
    doc_opt_string(d, n, sec, "name", &name);
    doc_opt_string(d, n, sec, "type", &type);
    if (!name || !*name)
        doc_error(d, n, "alerts.receivers: a receiver needs a 'name'");
    snprintf(r->name, sizeof r->name, "%s", name ? name : "");
    int known = 1;
    if (type && !strcmp(type, "exec"))
        r->kind = RCV_EXEC;
    else if (type && !strcmp(type, "webhook"))
        r->kind = RCV_WEBHOOK;
    else if (type && !strcmp(type, "alertmanager"))
        r->kind = RCV_ALERTMANAGER;
    else {
        doc_error(d, doc_get(d, n, "type") ? doc_get(d, n, "type") : n,
                  "alerts.receivers: 'type' must be exec, webhook or alertmanager");
        known = 0;
    }
    doc_opt_duration(d, n, sec, "timeout", &r->timeout_s);
    doc_opt_duration(d, n, sec, "backoff", &r->backoff_s);
    doc_opt_bool(d, n, sec, "send_resolved", &r->send_resolved);
    long v = r->max_retries;
    if (doc_opt_int(d, n, sec, "retries", 0, 20, &v) == 0)
        r->max_retries = (int)v;
    v = r->queue_size;
    if (doc_opt_int(d, n, sec, "queue_size", 1, 100000, &v) == 0)
        r->queue_size = (int)v;
    doc_node *list[RCV_MAX_ARGS], *x;
    if ((x = doc_get(d, n, "command"))) {
        if (doc_text(x))
            doc_error(d, x, "alerts.receivers[].command: a list [program, arg, ...] (never a shell string)");
        int k = doc_is_seq(x) ? items(d, x, "alerts.receivers[].command", list, RCV_MAX_ARGS) : 0;
        for (int i = 0; i < k; i++)
            r->argv[i] = dup_text(d, list[i], "alerts.receivers[].command item");
    }
    if ((x = doc_get(d, n, "url")))
        r->urls[r->nurls++] = dup_text(d, x, "alerts.receivers[].url");
    if ((x = doc_get(d, n, "urls"))) {
        int k = items(d, x, "alerts.receivers[].urls", list, RCV_MAX_URLS);
        for (int i = 0; i < k && r->nurls < RCV_MAX_URLS; i++)
            r->urls[r->nurls++] = dup_text(d, list[i], "alerts.receivers[].urls item");
    }
    read_http_settings(d, n, r);
    if (known && r->kind == RCV_EXEC && !r->argv[0] && !doc_get(d, n, "command"))
        doc_error(d, n, "alerts.receivers: an exec receiver needs 'command: [program, args...]'");
    if (known && r->kind != RCV_EXEC && r->nurls == 0)
        doc_error(d, n, "alerts.receivers: a %s receiver needs 'url' or 'urls'", type ? type : "");
    for (int i = 0; i < r->nurls; i++)
        if (r->urls[i] && strncmp(r->urls[i], "http://", 7) && strncmp(r->urls[i], "https://", 8))
            doc_error(d, doc_get(d, n, "url") ? doc_get(d, n, "url") : doc_get(d, n, "urls"),
                      "alerts.receivers: '%s' is not an http(s) URL", r->urls[i]);
}

static void add_rule_file(alerts_settings *s, const char *path, doc_node *n)
{
    char **f = realloc(s->rule_files, (size_t)(s->nrule_files + 1) * sizeof *f);
    doc_node **nn = realloc(s->rule_nodes, (size_t)(s->nrule_files + 1) * sizeof *nn);
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
static void read_rule_files(gw_doc *d, doc_node *n, alerts_settings *s)
{
    doc_node *list[256];
    int k = items(d, n, "alerts.rule_files", list, 256);
    for (int i = 0; i < k; i++) {
        const char *pat = doc_string(d, list[i], "alerts.rule_files item");
        if (!pat)
            continue;
        glob_t g;
        int rc = glob(pat, GLOB_NOSORT | GLOB_BRACE | GLOB_TILDE, NULL, &g);
        if (rc == GLOB_NOMATCH && !strpbrk(pat, "*?["))
            doc_error(d, list[i], "alerts.rule_files: no file '%s'", pat);
        for (size_t m = 0; rc == 0 && m < g.gl_pathc; m++)
            add_rule_file(s, g.gl_pathv[m], list[i]);
        if (rc == 0)
            globfree(&g);
    }
}

/* Every rule file must load: its own errors (FILE:LINE:COL) are reported at the config entry. */
static void check_rule_files(gw_doc *d, alerts_settings *s)
{
    for (int i = 0; i < s->nrule_files + (s->default_rules_file ? 1 : 0); i++) {
        const char *f = i < s->nrule_files ? s->rule_files[i] : s->default_rules_file;
        ruleset rs = {0};
        errlist e = {0};
        rules_load_file(&rs, f, &e);
        errlist_sort(&e);
        for (int k = 0; k < e.n; k++)
            doc_error(d, i < s->nrule_files ? s->rule_nodes[i] : NULL, "alerts rule file: %s", e.msg[k]);
        errlist_free(&e);
        ruleset_free(&rs);
    }
}

int alerts_settings_read(gw_doc *d, alerts_settings *s)
{
    static const char *const keys[] = {
        "enabled",         "default_rules", "rule_files",           "evaluation_interval", "thresholds",
        "external_labels", "receivers",     "for_outage_tolerance", "for_grace_period",    NULL};
    memset(s, 0, sizeof *s);
    s->enabled = s->default_rules = 1;
    s->interval_s = 15;
    s->outage_tolerance_s = 3600;
    s->grace_period_s = 600;
    doc_node *sec = doc_path(d, "alerts"), *n;
    if (!doc_is_null(sec) && doc_check_map(d, sec, "alerts", keys) == 0) {
        doc_opt_bool(d, sec, "alerts", "enabled", &s->enabled);
        doc_opt_bool(d, sec, "alerts", "default_rules", &s->default_rules);
        if (doc_opt_duration(d, sec, "alerts", "evaluation_interval", &s->interval_s) == 0 && s->interval_s <= 0)
            doc_error(d, doc_get(d, sec, "evaluation_interval"), "alerts.evaluation_interval must be > 0");
        if (doc_opt_duration(d, sec, "alerts", "for_outage_tolerance", &s->outage_tolerance_s) == 0 &&
            (s->outage_tolerance_s < 0 || s->outage_tolerance_s > 30 * 86400))
            doc_error(d, doc_get(d, sec, "for_outage_tolerance"), "alerts.for_outage_tolerance: between 0 and 30d");
        if (doc_opt_duration(d, sec, "alerts", "for_grace_period", &s->grace_period_s) == 0 &&
            (s->grace_period_s < 0 || s->grace_period_s > 86400))
            doc_error(d, doc_get(d, sec, "for_grace_period"), "alerts.for_grace_period: between 0 and 1d");
        if ((n = doc_get(d, sec, "rule_files")) && !doc_is_null(n))
            read_rule_files(d, n, s);
        if ((n = doc_get(d, sec, "thresholds")) && !doc_is_null(n) &&
            doc_check_map(d, n, "alerts.thresholds", NULL) == 0) {
            int k = doc_map_len(n);
            s->thresholds = calloc((size_t)k + 1, sizeof *s->thresholds);
            for (int i = 0; s->thresholds && i < k; i++) {
                const char *name = doc_text(doc_map_key(d, n, i));
                doc_node *v = doc_map_value(d, n, i);
                char what[200];
                snprintf(what, sizeof what, "alerts.thresholds.%s", name ? name : "?");
                double value;
                if (name && doc_number(d, v, what, &value) == 0)
                    s->thresholds[s->nthresholds++] = (alerts_threshold){strdup(name), value, v};
            }
        }
        if ((n = doc_get(d, sec, "external_labels")) && !doc_is_null(n) &&
            doc_check_map(d, n, "alerts.external_labels", NULL) == 0)
            for (int i = 0; i < doc_map_len(n); i++) {
                const char *name = doc_text(doc_map_key(d, n, i));
                const char *t = doc_string(d, doc_map_value(d, n, i), "alerts.external_labels value");
                if (name && t)
                    labels_set(&s->external, name, t);
            }
        if ((n = doc_get(d, sec, "receivers")) && !doc_is_null(n) && doc_check_seq(d, n, "alerts.receivers") == 0) {
            doc_node *list[64];
            int k = items(d, n, "alerts.receivers", list, 64);
            s->receivers = calloc((size_t)k + 1, sizeof *s->receivers);
            for (int i = 0; s->receivers && i < k; i++) {
                read_receiver(d, list[i], &s->receivers[s->nreceivers++]);
                for (int j = 0; j < s->nreceivers - 1; j++)
                    if (!strcmp(s->receivers[j].name, s->receivers[s->nreceivers - 1].name))
                        doc_error(d, list[i], "alerts.receivers: name '%s' used twice", s->receivers[j].name);
            }
        }
    }
    if (s->enabled && s->default_rules) {
        s->default_rules_file = alerts_default_rules_path();
        if (!s->default_rules_file)
            gw_log(GW_LOG_WARN, "alerts: default rules not found (set GPUWATCH_DEFAULT_RULES)", NULL);
    }
    check_rule_files(d, s);
    return d->errs->n;
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
