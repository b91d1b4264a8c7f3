/* rw_settings.c - reading and checking the `remote_write:` section (see rw_settings.h). */
#include "rw_settings.h"
#include "exposition.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* What reading one section needs at hand. */
typedef struct reader {
    gw_doc *d;
    int oom;
} reader;

/* A copy of a string node's text into *out (NULL node: nothing). */
static void dup_node(reader *r, doc_node *n, const char *what, char **out)
{
    const char *s = n ? doc_string(r->d, n, what) : NULL;
    if (!s)
        return;
    free(*out);
    *out = strdup(s);
    if (!*out)
        r->oom = 1;
}

static int has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

/* A file named in the section must be readable now (a typo is caught by `config check`). */
static void readable_file(reader *r, doc_node *n, const char *what, const char *path)
{
    if (path && access(path, R_OK) != 0)
        doc_error(r->d, n, "%s: '%s' cannot be read", what, path);
}

static int label_name_ok(const char *s)
{
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_') || strncmp(s, "__", 2) == 0)
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

/* HTTP header names the protocol or the client sets itself. */
static int reserved_header(const char *name)
{
    static const char *const reserved[] = {"Authorization",
                                           "Host",
                                           "Content-Encoding",
                                           "Content-Length",
                                           "Content-Type",
                                           "User-Agent",
                                           "Connection",
                                           "Keep-Alive",
                                           "Proxy-Authorization",
                                           "Accept-Encoding",
                                           "Transfer-Encoding",
                                           "X-Prometheus-Remote-Write-Version",
                                           NULL};
    for (int i = 0; reserved[i]; i++)
        if (strcasecmp(name, reserved[i]) == 0)
            return 1;
    return 0;
}

static int token_char(int c)
{
    return isalnum(c) || (c && strchr("!#$%&'*+.^_`|~-", c));
}

static void read_headers(reader *r, doc_node *x, rw_endpoint_settings *ep)
{
    gw_doc *d = r->d;
    if (doc_check_map(d, x, "remote_write.endpoints[].headers", NULL) != 0)
        return;
    for (int i = 0; i < doc_map_len(x); i++) {
        doc_node *k = doc_map_key(d, x, i), *v = doc_map_value(d, x, i);
        const char *name = doc_text(k);
        const char *val = doc_string(d, v, "remote_write.endpoints[].headers value");
        if (!name || !val)
            continue;
        int ok = *name != 0;
        for (const char *p = name; *p && ok; p++)
            ok = token_char((unsigned char)*p);
        if (!ok) {
            doc_error(d, k, "remote_write.endpoints[].headers: '%s' is not a header name", name);
        } else if (reserved_header(name)) {
            doc_error(d, k,
                      "remote_write.endpoints[].headers: %s is set by gpuwatch (use basic_auth or authorization "
                      "for credentials)",
                      name);
        } else if (has_control(val)) {
            doc_error(d, v, "remote_write.endpoints[].headers: the value of %s has a control character", name);
        } else if (ep->nheaders == RW_MAX_HEADERS) {
            doc_error(d, k, "remote_write.endpoints[].headers: at most %d", RW_MAX_HEADERS);
        } else {
            char *h = NULL;
            if (asprintf(&h, "%s: %s", name, val) < 0)
                r->oom = 1;
            else
                ep->headers[ep->nheaders++] = h;
        }
    }
}

static void read_auth(reader *r, doc_node *n, rw_endpoint_settings *ep)
{
    gw_doc *d = r->d;
    doc_node *x;
    if ((x = doc_get(d, n, "basic_auth"))) {
        static const char *const keys[] = {"username", "password", "password_file", NULL};
        if (doc_check_map(d, x, "remote_write.endpoints[].basic_auth", keys) == 0) {
            dup_node(r, doc_get(d, x, "username"), "basic_auth.username", &ep->username);
            dup_node(r, doc_get(d, x, "password"), "basic_auth.password", &ep->password);
            dup_node(r, doc_get(d, x, "password_file"), "basic_auth.password_file", &ep->password_file);
            if (!ep->username || !*ep->username)
                doc_error(d, x, "remote_write.endpoints[].basic_auth: a username is needed");
            if (ep->password && ep->password_file)
                doc_error(d, x, "remote_write.endpoints[].basic_auth: password or password_file, not both");
            readable_file(r, doc_get(d, x, "password_file"), "basic_auth.password_file", ep->password_file);
        }
    }
    if ((x = doc_get(d, n, "authorization"))) {
        static const char *const keys[] = {"type", "credentials_file", "credentials", NULL};
        if (doc_check_map(d, x, "remote_write.endpoints[].authorization", keys) == 0) {
            const char *type = "Bearer";
            doc_opt_string(d, x, "authorization", "type", &type);
            if (strcmp(type, "Bearer") != 0)
                doc_error(d, doc_get(d, x, "type"), "remote_write.endpoints[].authorization.type: only Bearer");
            if (doc_get(d, x, "credentials"))
                doc_error(d, doc_get(d, x, "credentials"),
                          "remote_write.endpoints[].authorization: put the token in a file (credentials_file), "
                          "not in the config");
            dup_node(r, doc_get(d, x, "credentials_file"), "authorization.credentials_file", &ep->bearer_file);
            if (!ep->bearer_file)
                doc_error(d, x, "remote_write.endpoints[].authorization: credentials_file is needed");
        }
    }
    if ((x = doc_get(d, n, "bearer_token_file")))
        dup_node(r, x, "bearer_token_file", &ep->bearer_file);
    doc_node *token = doc_get(d, n, "bearer_token_file")
                          ? doc_get(d, n, "bearer_token_file")
                          : doc_get(d, doc_get(d, n, "authorization"), "credentials_file");
    readable_file(r, token, "remote_write.endpoints[] token file", ep->bearer_file);
    if (ep->username && ep->bearer_file)
        doc_error(d, n, "remote_write.endpoints[]: basic_auth or a bearer token, not both");
}

static void read_tls(reader *r, doc_node *x, rw_endpoint_settings *ep)
{
    gw_doc *d = r->d;
    static const char *const keys[] = {"ca_file", "cert_file", "key_file", "insecure_skip_verify", NULL};
    if (doc_check_map(d, x, "remote_write.endpoints[].tls_config", keys) != 0)
        return;
    dup_node(r, doc_get(d, x, "ca_file"), "tls_config.ca_file", &ep->ca_file);
    dup_node(r, doc_get(d, x, "cert_file"), "tls_config.cert_file", &ep->cert_file);
    dup_node(r, doc_get(d, x, "key_file"), "tls_config.key_file", &ep->key_file);
    doc_opt_bool(d, x, "tls_config", "insecure_skip_verify", &ep->insecure_skip_verify);
    if (!ep->cert_file != !ep->key_file)
        doc_error(d, x, "remote_write.endpoints[].tls_config: cert_file and key_file go together");
    readable_file(r, doc_get(d, x, "ca_file"), "tls_config.ca_file", ep->ca_file);
    readable_file(r, doc_get(d, x, "cert_file"), "tls_config.cert_file", ep->cert_file);
    readable_file(r, doc_get(d, x, "key_file"), "tls_config.key_file", ep->key_file);
}

static void read_rule(reader *r, doc_node *x, rw_rule *rule)
{
    gw_doc *d = r->d;
    static const char *const keys[] = {"source_labels", "separator", "regex", "action", NULL};
    const char *what = "remote_write.endpoints[].write_relabel_configs[]";
    if (doc_check_map(d, x, what, keys) != 0)
        return;
    doc_node *src = doc_get(d, x, "source_labels");
    if (src && doc_check_seq(d, src, "write_relabel_configs[].source_labels: a list of label names") == 0) {
        for (int i = 0; i < doc_seq_len(src); i++) {
            if (rule->nsources == RW_MAX_SOURCES) {
                doc_error(d, src, "write_relabel_configs[].source_labels: at most %d", RW_MAX_SOURCES);
                break;
            }
            dup_node(r, doc_seq_at(d, src, i), "source_labels item", &rule->sources[rule->nsources]);
            if (rule->sources[rule->nsources])
                rule->nsources++;
        }
    } else if (!src) {
        rule->sources[0] = strdup("__name__");
        rule->nsources = rule->sources[0] ? 1 : 0;
        r->oom |= !rule->sources[0];
    }
    dup_node(r, doc_get(d, x, "separator"), "write_relabel_configs[].separator", &rule->separator);
    if (!rule->separator && !(rule->separator = strdup(";")))
        r->oom = 1;
    const char *regex = "(.*)", *action = NULL;
    doc_opt_string(d, x, what, "regex", &regex);
    doc_opt_string(d, x, what, "action", &action);
    if (!action || (strcmp(action, "keep") != 0 && strcmp(action, "drop") != 0))
        doc_error(d, doc_get(d, x, "action") ? doc_get(d, x, "action") : x,
                  "write_relabel_configs[].action: keep or drop (what remote write can do to a series)");
    rule->keep = action && strcmp(action, "keep") == 0;
    char *anchored = NULL;
    if (asprintf(&anchored, "^(%s)$", regex) < 0) {
        r->oom = 1;
        return;
    }
    int rc = regcomp(&rule->re, anchored, REG_EXTENDED | REG_NOSUB);
    free(anchored);
    if (rc != 0) {
        char why[128];
        regerror(rc, &rule->re, why, sizeof why);
        doc_error(d, doc_get(d, x, "regex"), "write_relabel_configs[].regex: %s", why);
        return;
    }
    rule->compiled = 1;
}

static void read_queue(reader *r, doc_node *x, rw_endpoint_settings *ep)
{
    gw_doc *d = r->d;
    static const char *const keys[] = {"max_samples_per_send", "batch_send_deadline", "min_backoff",
                                       "max_backoff",          "retry_on_http_429",   NULL};
    const char *sec = "remote_write.endpoints[].queue_config";
    if (doc_check_map(d, x, sec, keys) != 0)
        return;
    long v = ep->max_samples_per_send;
    if (doc_opt_int(d, x, sec, "max_samples_per_send", 1, 1000000, &v) == 0)
        ep->max_samples_per_send = (int)v;
    if (doc_opt_duration(d, x, sec, "batch_send_deadline", &ep->batch_send_deadline_s) == 0 &&
        (ep->batch_send_deadline_s < 0.01 || ep->batch_send_deadline_s > 600))
        doc_error(d, doc_get(d, x, "batch_send_deadline"), "%s.batch_send_deadline: between 10ms and 10m", sec);
    doc_opt_duration(d, x, sec, "min_backoff", &ep->min_backoff_s);
    doc_opt_duration(d, x, sec, "max_backoff", &ep->max_backoff_s);
    if (ep->min_backoff_s < 0.001 || ep->max_backoff_s > 600 || ep->min_backoff_s > ep->max_backoff_s)
        doc_error(d, x, "%s: 1ms <= min_backoff <= max_backoff <= 10m", sec);
    doc_opt_bool(d, x, sec, "retry_on_http_429", &ep->retry_on_429);
}

/* A name for progress files and metrics from the URL: "mimir-9009-api-v1-push". */
static void name_from_url(const char *url, char *out, size_t n)
{
    const char *s = strstr(url, "://");
    s = s ? s + 3 : url;
    size_t k = 0;
    for (; *s && k + 1 < n; s++) {
        int ok = isalnum((unsigned char)*s);
        if (ok)
            out[k++] = *s;
        else if (k && out[k - 1] != '-')
            out[k++] = '-';
    }
    while (k && out[k - 1] == '-')
        k--;
    out[k] = 0;
}

static void read_endpoint(reader *r, doc_node *n, rw_endpoint_settings *ep)
{
    gw_doc *d = r->d;
    static const char *const keys[] = {"url",           "name",
                                       "protocol",      "remote_timeout",
                                       "headers",       "basic_auth",
                                       "authorization", "bearer_token_file",
                                       "tls_config",    "write_relabel_configs",
                                       "queue_config",  NULL};
    const char *sec = "remote_write.endpoints[]";
    ep->timeout_s = 30;
    ep->max_samples_per_send = 10000;
    ep->batch_send_deadline_s = 5;
    ep->min_backoff_s = 0.03;
    ep->max_backoff_s = 5;
    ep->retry_on_429 = 1;
    if (doc_check_map(d, n, sec, keys) != 0)
        return;
    dup_node(r, doc_get(d, n, "url"), "remote_write.endpoints[].url", &ep->url);
    if (!ep->url)
        doc_error(d, n, "remote_write.endpoints[]: a url is needed");
    else if ((strncmp(ep->url, "http://", 7) != 0 && strncmp(ep->url, "https://", 8) != 0) || strchr(ep->url, ' ') ||
             has_control(ep->url))
        doc_error(d, doc_get(d, n, "url"), "remote_write.endpoints[].url: '%s' is not an http(s) URL", ep->url);
    dup_node(r, doc_get(d, n, "name"), "remote_write.endpoints[].name", &ep->name);
    if (ep->name) {
        int ok = *ep->name && strlen(ep->name) <= 64;
        for (const char *p = ep->name; *p && ok; p++)
            ok = isalnum((unsigned char)*p) || *p == '_' || *p == '-';
        if (!ok)
            doc_error(d, doc_get(d, n, "name"), "remote_write.endpoints[].name: 1-64 of A-Z a-z 0-9 _ -");
    } else if (ep->url) {
        char def[65];
        name_from_url(ep->url, def, sizeof def);
        if (!(ep->name = strdup(*def ? def : "remote")))
            r->oom = 1;
    }
    const char *proto = "auto";
    doc_opt_string(d, n, sec, "protocol", &proto);
    if (strcmp(proto, "auto") == 0)
        ep->protocol = RW_PROTO_AUTO;
    else if (strcmp(proto, "1.0") == 0 || strcmp(proto, "1") == 0)
        ep->protocol = RW_PROTO_V1;
    else if (strcmp(proto, "2.0") == 0 || strcmp(proto, "2") == 0)
        ep->protocol = RW_PROTO_V2;
    else
        doc_error(d, doc_get(d, n, "protocol"), "remote_write.endpoints[].protocol: auto, \"1.0\" or \"2.0\"");
    if (doc_opt_duration(d, n, sec, "remote_timeout", &ep->timeout_s) == 0 &&
        (ep->timeout_s < 0.1 || ep->timeout_s > 600))
        doc_error(d, doc_get(d, n, "remote_timeout"), "remote_write.endpoints[].remote_timeout: between 100ms and 10m");
    doc_node *x;
    if ((x = doc_get(d, n, "headers")))
        read_headers(r, x, ep);
    read_auth(r, n, ep);
    if ((x = doc_get(d, n, "tls_config")))
        read_tls(r, x, ep);
    if ((x = doc_get(d, n, "write_relabel_configs")) &&
        doc_check_seq(d, x, "remote_write.endpoints[].write_relabel_configs: a list") == 0)
        for (int i = 0; i < doc_seq_len(x); i++) {
            if (ep->nrules == RW_MAX_RULES) {
                doc_error(d, x, "remote_write.endpoints[].write_relabel_configs: at most %d", RW_MAX_RULES);
                break;
            }
            read_rule(r, doc_seq_at(d, x, i), &ep->rules[ep->nrules++]);
        }
    if ((x = doc_get(d, n, "queue_config")))
        read_queue(r, x, ep);
}

static void read_external(reader *r, doc_node *x, rw_settings *s)
{
    gw_doc *d = r->d;
    if (doc_check_map(d, x, "remote_write.external_labels", NULL) != 0)
        return;
    for (int i = 0; i < doc_map_len(x); i++) {
        doc_node *k = doc_map_key(d, x, i), *v = doc_map_value(d, x, i);
        const char *name = doc_text(k), *val = doc_string(d, v, "remote_write.external_labels value");
        if (!name || !val)
            continue;
        if (!label_name_ok(name))
            doc_error(d, k,
                      "remote_write.external_labels: '%s' is not a label name ([a-zA-Z_][a-zA-Z0-9_]*, not __...)",
                      name);
        else if (!*val || has_control(val))
            doc_error(d, v, "remote_write.external_labels: %s needs a value without control characters", name);
        else if (s->nexternal == RW_MAX_EXTERNAL)
            doc_error(d, k, "remote_write.external_labels: at most %d", RW_MAX_EXTERNAL);
        else {
            rw_label_value *l = &s->external[s->nexternal++];
            l->name = strdup(name);
            l->value = strdup(val);
            r->oom |= !l->name || !l->value;
        }
    }
}

static void read_series(reader *r, doc_node *sec, rw_settings *s)
{
    const char *v = NULL;
    doc_opt_string(r->d, sec, "remote_write", "series", &v);
    if (!v)
        return;
    if (strcmp(v, "dcgm") == 0)
        s->series = EXPO_DCGM;
    else if (strcmp(v, "native") == 0)
        s->series = EXPO_NATIVE;
    else if (strcmp(v, "both") == 0)
        s->series = EXPO_DCGM | EXPO_NATIVE;
    else
        doc_error(r->d, doc_get(r->d, sec, "series"), "remote_write.series: '%s' is not one of dcgm, native, both", v);
}

int rw_settings_read(gw_doc *d, int series, rw_settings *out)
{
    static const char *const keys[] = {
        "series", "external_labels", "queue_capacity", "resend_max_age", "resend_rate", "endpoints", NULL};
    reader r = {d, 0};
    int errors = d->errs->n;
    memset(out, 0, sizeof *out);
    out->series = series;
    out->queue_capacity = 25000;
    out->resend_max_age_s = 3600;
    out->resend_rate = 20000;
    doc_node *sec = doc_path(d, "remote_write"), *eps = NULL;
    if (doc_is_null(sec))
        return 0;
    if (doc_is_seq(sec)) {
        eps = sec; /* the list of endpoints alone, as Prometheus' remote_write: */
    } else if (doc_check_map(d, sec, "remote_write", keys) == 0) {
        read_series(&r, sec, out);
        doc_node *x = doc_get(d, sec, "external_labels");
        if (x)
            read_external(&r, x, out);
        doc_opt_int(d, sec, "remote_write", "queue_capacity", 1000, 10000000, &out->queue_capacity);
        if (doc_opt_duration(d, sec, "remote_write", "resend_max_age", &out->resend_max_age_s) == 0 &&
            out->resend_max_age_s > 30 * 86400)
            doc_error(d, doc_get(d, sec, "resend_max_age"), "remote_write.resend_max_age: at most 30d");
        if (doc_opt_number(d, sec, "remote_write", "resend_rate", &out->resend_rate) == 0 &&
            !(out->resend_rate >= 100 && out->resend_rate <= 10000000))
            doc_error(d, doc_get(d, sec, "resend_rate"), "remote_write.resend_rate: 100 to 10000000 samples a second");
        eps = doc_get(d, sec, "endpoints");
        if (!eps)
            doc_error(d, sec, "remote_write: no endpoints (a list of {url: ...})");
    }
    if (eps && doc_check_seq(d, eps, "remote_write.endpoints: a list of {url: ...}") == 0) {
        for (int i = 0; i < doc_seq_len(eps); i++) {
            if (out->nendpoints == RW_MAX_ENDPOINTS) {
                doc_error(d, eps, "remote_write.endpoints: at most %d", RW_MAX_ENDPOINTS);
                break;
            }
            read_endpoint(&r, doc_seq_at(d, eps, i), &out->ep[out->nendpoints++]);
        }
        for (int i = 0; i < out->nendpoints; i++)
            for (int k = 0; k < i; k++)
                if (out->ep[i].name && out->ep[k].name && strcmp(out->ep[i].name, out->ep[k].name) == 0)
                    doc_error(d, doc_seq_at(d, eps, i),
                              "remote_write.endpoints[]: two endpoints named '%s' (give each a name)", out->ep[i].name);
    }
    if (r.oom)
        doc_error(d, sec, "remote_write: out of memory");
    if (d->errs->n > errors) {
        rw_settings_free(out);
        return -1;
    }
    return 0;
}

static void endpoint_free(rw_endpoint_settings *ep)
{
    free(ep->name);
    free(ep->url);
    for (int i = 0; i < ep->nheaders; i++)
        free(ep->headers[i]);
    free(ep->username);
    free(ep->password);
    free(ep->password_file);
    free(ep->bearer_file);
    free(ep->ca_file);
    free(ep->cert_file);
    free(ep->key_file);
    for (int i = 0; i < ep->nrules; i++) {
        rw_rule *rule = &ep->rules[i];
        for (int k = 0; k < rule->nsources; k++)
            free(rule->sources[k]);
        free(rule->separator);
        if (rule->compiled)
            regfree(&rule->re);
    }
}

void rw_settings_free(rw_settings *s)
{
    for (int i = 0; i < s->nendpoints; i++)
        endpoint_free(&s->ep[i]);
    for (int i = 0; i < s->nexternal; i++) {
        free(s->external[i].name);
        free(s->external[i].value);
    }
    memset(s, 0, sizeof *s);
}

int rw_rules_keep(const rw_endpoint_settings *ep, const char *(*label)(void *ctx, const char *name), void *ctx)
{
    for (int i = 0; i < ep->nrules; i++) {
        const rw_rule *rule = &ep->rules[i];
        char joined[1024];
        size_t k = 0;
        joined[0] = 0;
        for (int s = 0; s < rule->nsources; s++) {
            const char *v = label(ctx, rule->sources[s]);
            int w = snprintf(joined + k, sizeof joined - k, "%s%s", s ? rule->separator : "", v);
            if (w < 0 || (size_t)w >= sizeof joined - k)
                break;
            k += (size_t)w;
        }
        int match = rule->compiled && regexec(&rule->re, joined, 0, NULL, 0) == 0;
        if (match != rule->keep)
            return 0;
    }
    return 1;
}
