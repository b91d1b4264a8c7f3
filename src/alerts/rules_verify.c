/* rules_verify.c - `gpuwatch rules test`: unit tests for rule files written like `promtool test rules`
 * (input series in the a+bxn notation, eval_time, exp_alerts), run against our engine. */
#include "rules_verify.h"
#include "util.h"
#include "alerts.h"
#include "rules.h"
#include "series_notation.h"
#include "synth_source.h"
#include "template.h"
#include "doc.h"
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct alert_check {
    int64_t at;
    const char *alertname;
    yaml_node_t *node, *exp;
} alert_check;

/* "labels: {...} annotations: {...}" of one alert, for comparing and printing; frees l and a. ok: they
 * are complete. NULL when out of memory. */
static char *describe_sets(labels *l, labels *a, int ok)
{
    char b1[2048], b2[2048], *out = NULL;
    if (ok && asprintf(&out, "labels: %s annotations: %s", labels_format(l, b1, sizeof b1),
                       labels_format(a, b2, sizeof b2)) < 0)
        out = NULL;
    labels_free(l);
    labels_free(a);
    return out;
}

static char *describe(char **ln, char **lv, int nl, char **an, char **av, int na)
{
    labels l = {0}, a = {0};
    int ok = 1;
    for (int i = 0; ok && i < nl; i++)
        ok = labels_set(&l, ln[i], lv[i]) == 0;
    for (int i = 0; ok && i < na; i++)
        ok = labels_set(&a, an[i], av[i]) == 0;
    return describe_sets(&l, &a, ok);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_strs(char **s, int n)
{
    for (int i = 0; s && i < n; i++)
        free(s[i]);
    free(s);
}

/* The check's exp_alerts, described and sorted; NULL when out of memory. */
static char **expected_alerts(gw_doc *d, const alert_check *c, int *n)
{
    int count = c->exp && doc_check_seq(d, c->exp, "exp_alerts") == 0 ? doc_seq_len(c->exp) : 0;
    char **out = calloc((size_t)count + 1, sizeof *out);
    if (!out)
        return NULL;
    for (int i = 0; i < count; i++) {
        yaml_node_t *e = doc_seq_at(d, c->exp, i);
        static const char *const keys[] = {"exp_labels", "exp_annotations", NULL};
        doc_check_map(d, e, "exp_alerts item", keys);
        labels l = {0}, a = {0};
        int ok = 1;
        for (int part = 0; part < 2; part++) {
            yaml_node_t *m = doc_get(d, e, part ? "exp_annotations" : "exp_labels");
            if (m && doc_check_map(d, m, part ? "exp_annotations" : "exp_labels", NULL) == 0)
                for (int k_i = 0; ok && k_i < doc_map_len(m); k_i++) {
                    const char *k = doc_string(d, doc_map_key(d, m, k_i), "label name");
                    const char *v = doc_string(d, doc_map_value(d, m, k_i), "label value");
                    if (k && v)
                        ok = labels_set(part ? &a : &l, k, v) == 0;
                }
        }
        ok = ok && labels_set(&l, "alertname", c->alertname) == 0;
        out[i] = describe_sets(&l, &a, ok);
        if (!out[i]) {
            free_strs(out, i);
            return NULL;
        }
    }
    *n = count;
    qsort(out, (size_t)count, sizeof *out, cmp_str);
    return out;
}

/* The engine's firing alerts called alertname, described and sorted; NULL when out of memory.
 * *marker: an annotation shows TMPL_OOM_MARKER (it could not be expanded). */
static char **firing_alerts(alert_engine *e, const char *alertname, int *n, int *marker)
{
    alert_list l;
    if (alert_engine_snapshot(e, &l) != 0)
        return NULL;
    char **out = calloc((size_t)l.n + 1, sizeof *out);
    int count = 0;
    for (int i = 0; out && i < l.n; i++) {
        alert_view *v = &l.v[i];
        if (v->state != ALERT_FIRING || strcmp(v->alertname, alertname) != 0)
            continue;
        for (int k = 0; k < v->nannotations; k++)
            *marker |= strcmp(v->annotation_values[k], TMPL_OOM_MARKER) == 0;
        out[count] = describe(v->label_names, v->label_values, v->nlabels, v->annotation_names, v->annotation_values,
                              v->nannotations);
        if (!out[count]) {
            free_strs(out, count);
            out = NULL;
        }
        count++;
    }
    alert_list_free(&l);
    if (out)
        qsort(out, (size_t)count, sizeof *out, cmp_str);
    *n = count;
    return out;
}

/* Returns 0 when the firing alerts are the expected ones, 1 when not (printed), -1 when out of memory. */
static int check(gw_doc *d, alert_engine *e, const alert_check *c, const char *testname, FILE *out)
{
    int ne = 0, ng = 0, marker = 0;
    char **exp = expected_alerts(d, c, &ne);
    char **got = exp ? firing_alerts(e, c->alertname, &ng, &marker) : NULL;
    if (!exp || !got) {
        free_strs(exp, ne);
        return -1;
    }
    int same = ne == ng;
    for (int i = 0; same && i < ne; i++)
        same = strcmp(exp[i], got[i]) == 0;
    if (!same && marker) { /* an annotation ran out of memory, not the rule */
        free_strs(exp, ne);
        free_strs(got, ng);
        return -1;
    }
    if (!same) {
        fprintf(out, "%s:%d:%d: FAILED %s: alertname %s at eval_time %llds\n  expected (%d):\n", d->name,
                (int)c->node->start_mark.line + 1, (int)c->node->start_mark.column + 1, testname, c->alertname,
                (long long)(c->at / 1000000), ne);
        for (int i = 0; i < ne; i++)
            fprintf(out, "    %s\n", exp[i]);
        fprintf(out, "  got (%d):\n", ng);
        for (int i = 0; i < ng; i++)
            fprintf(out, "    %s\n", got[i]);
    }
    free_strs(exp, ne);
    free_strs(got, ng);
    return same ? 0 : 1;
}

/* One input_series item into the synthetic source (its problems go to d's errors). Returns 0, or -1
 * when out of memory. */
static int add_series(gw_doc *d, yaml_node_t *n, synth *y)
{
    static const char *const keys[] = {"metric", "gpu", "values", "pid", "command", "user", NULL};
    if (doc_check_map(d, n, "input_series item", keys) != 0)
        return 0;
    yaml_node_t *m = doc_get(d, n, "metric"), *g = doc_get(d, n, "gpu"), *vals = doc_get(d, n, "values");
    const char *metric = m ? doc_string(d, m, "metric") : NULL;
    const char *values = vals ? doc_string(d, vals, "values") : NULL;
    int gpu = g && doc_string(d, g, "gpu") ? atoi((const char *)g->data.scalar.value) : 0;
    if (!metric || !values) {
        doc_error(d, n, "input series need 'metric' and 'values'");
        return 0;
    }
    if (gpu < 0 || gpu >= y->gpus) {
        doc_error(d, g, "gpu %d out of range (0..%d)", gpu, y->gpus - 1);
        return 0;
    }
    const metric_def *def = catalog_find(metric);
    int ps = pseudo_find(metric);
    int proc = ps == PS_PROC_MEMORY || ps == PS_PROC_SM;
    if ((!def || metric_is_string(def->id)) && ps != PS_GPU_LOST && ps != PS_GPU_ERROR && !proc) {
        doc_error(d, m,
                  "'%s' cannot be an input series (catalog numbers, gpu.lost, gpu.error, process.memory, process.sm)",
                  metric);
        return 0;
    }
    if (def && (def->flags & MF_BIT)) {
        doc_error(d, m, "'%s' is one bit of '%s': give that bitmask as the input series", metric,
                  catalog_get(def->parent)->field);
        return 0;
    }
    series_values sv;
    char err[200];
    int rc = series_expand(values, &sv, err, sizeof err);
    if (rc == SERIES_OOM)
        return -1;
    if (rc != 0) {
        doc_error(d, vals, "%s", err);
        return 0;
    }
    synth_proc *p = NULL;
    if (proc) {
        yaml_node_t *pid = doc_get(d, n, "pid"), *cmd = doc_get(d, n, "command"), *user = doc_get(d, n, "user");
        if (!pid || !doc_string(d, pid, "pid")) {
            doc_error(d, n, "process series need 'pid'");
            series_values_free(&sv);
            return 0;
        }
        p = synth_proc_get(y, gpu, (unsigned)strtoul((const char *)pid->data.scalar.value, NULL, 10),
                           cmd ? doc_string(d, cmd, "command") : "", user ? doc_string(d, user, "user") : "");
        rc = p ? 0 : -1;
    }
    for (int k = 0; k < sv.n && rc == 0; k++) {
        if (!sv.present[k])
            continue;
        if (p)
            rc = synth_proc_set(y, p, k, ps == PS_PROC_SM, sv.v[k]);
        else if (ps == PS_GPU_LOST)
            rc = synth_status(y, gpu, k, sv.v[k] != 0 ? GPU_LOST : GPU_OK);
        else if (ps == PS_GPU_ERROR)
            rc = synth_status(y, gpu, k, sv.v[k] != 0 ? GPU_ERROR : GPU_OK);
        else
            rc = synth_set(y, gpu, k, def->id, sv.v[k]);
    }
    series_values_free(&sv);
    return rc;
}

static int get_dur(gw_doc *d, yaml_node_t *n, const char *what, int64_t *out)
{
    const char *s = doc_string(d, n, what);
    if (!s || gw_parse_duration_us(s, out) != 0) {
        if (s)
            doc_error(d, n, "%s: bad duration '%s'", what, s);
        return -1;
    }
    return 0;
}

static int max_gpu(gw_doc *d, yaml_node_t *series)
{
    int max = 0;
    for (int i = 0; i < doc_seq_len(series); i++) {
        yaml_node_t *g = doc_get(d, doc_seq_at(d, series, i), "gpu");
        if (g && g->type == YAML_SCALAR_NODE && atoi((const char *)g->data.scalar.value) > max)
            max = atoi((const char *)g->data.scalar.value);
    }
    return max < RULES_MAX_GPUS ? max : RULES_MAX_GPUS - 1;
}

static void add_gpu_info(gw_doc *d, yaml_node_t *list, synth *y)
{
    int count = doc_check_seq(d, list, "gpus") == 0 ? doc_seq_len(list) : 0;
    for (int i = 0; i < count; i++) {
        yaml_node_t *n = doc_seq_at(d, list, i);
        static const char *const keys[] = {"gpu", "name", "uuid", NULL};
        if (doc_check_map(d, n, "gpus item", keys) != 0)
            continue;
        yaml_node_t *g = doc_get(d, n, "gpu"), *name = doc_get(d, n, "name"), *uuid = doc_get(d, n, "uuid");
        int gpu = g && doc_string(d, g, "gpu") ? atoi((const char *)g->data.scalar.value) : 0;
        if (gpu < 0 || gpu >= y->gpus) {
            doc_error(d, n, "gpu %d has no input series", gpu);
            continue;
        }
        synth_info(y, gpu, name ? doc_string(d, name, "name") : NULL, uuid ? doc_string(d, uuid, "uuid") : NULL);
    }
}

/* The alert_rule_test items of a test case (art may be NULL) into *checks (malloc'ed); a bad item
 * is reported into d's errors and left out. 0, or -1 when memory ran out. */
static int read_checks(gw_doc *d, yaml_node_t *art, alert_check **checks, int *nchecks)
{
    int count = art && doc_check_seq(d, art, "alert_rule_test") == 0 ? doc_seq_len(art) : 0;
    for (int i = 0; i < count; i++) {
        yaml_node_t *n = doc_seq_at(d, art, i);
        static const char *const ck[] = {"eval_time", "alertname", "exp_alerts", NULL};
        if (doc_check_map(d, n, "alert_rule_test item", ck) != 0)
            continue;
        alert_check c = {0, NULL, n, doc_get(d, n, "exp_alerts")};
        yaml_node_t *et = doc_get(d, n, "eval_time"), *an = doc_get(d, n, "alertname");
        if (!et || !an) {
            doc_error(d, n, "alert_rule_test items need eval_time and alertname");
            continue;
        }
        if (get_dur(d, et, "eval_time", &c.at) != 0 || !(c.alertname = doc_string(d, an, "alertname")))
            continue;
        alert_check *grown = realloc(*checks, (size_t)(*nchecks + 1) * sizeof *grown);
        if (!grown)
            return -1;
        *checks = grown;
        (*checks)[(*nchecks)++] = c;
    }
    return 0;
}

/* Runs one test case; returns the number of failed checks (errors are in d->errs), or -1 when it could
 * not run: its rule files have errors (printed), or memory ran out (*oom = 1). */
static int run_case(gw_doc *d, yaml_node_t *t, int idx, char **rule_files, int nfiles, int64_t eval_iv, FILE *out,
                    int *oom)
{
    static const char *const keys[] = {
        "name", "interval", "input_series", "alert_rule_test", "gpus", "promql_expr_test", NULL};
    if (doc_check_map(d, t, "test", keys) != 0)
        return 0;
    if (doc_get(d, t, "promql_expr_test"))
        doc_error(d, doc_get(d, t, "promql_expr_test"), "promql_expr_test is for promtool; gpuwatch tests alerts only");
    char testname[128];
    yaml_node_t *nm = doc_get(d, t, "name");
    snprintf(testname, sizeof testname, "%s",
             nm && doc_string(d, nm, "name") ? (const char *)nm->data.scalar.value : "");
    if (!*testname)
        snprintf(testname, sizeof testname, "test %d", idx + 1);
    int64_t step = eval_iv;
    yaml_node_t *iv = doc_get(d, t, "interval");
    if (iv && (get_dur(d, iv, "interval", &step) != 0 || step <= 0))
        return 0;
    yaml_node_t *series = doc_get(d, t, "input_series");
    synth y;
    if (synth_init(&y, series ? max_gpu(d, series) + 1 : 1, 0, step) != 0) {
        *oom = 1;
        return -1;
    }
    int count = series && doc_check_seq(d, series, "input_series") == 0 ? doc_seq_len(series) : 0;
    for (int i = 0; i < count && !*oom; i++)
        *oom = add_series(d, doc_seq_at(d, series, i), &y) != 0;
    if (doc_get(d, t, "gpus"))
        add_gpu_info(d, doc_get(d, t, "gpus"), &y);
    alert_check *checks = NULL;
    int nchecks = 0;
    if (!*oom)
        *oom = read_checks(d, doc_get(d, t, "alert_rule_test"), &checks, &nchecks) != 0;
    int failed = 0;
    alert_engine *e = *oom ? NULL : alert_engine_new();
    *oom = *oom || !e;
    int load_errors = 0;
    for (int f = 0; f < nfiles && !*oom; f++)
        load_errors += alert_engine_load(e, rule_files[f], out);
    if (*oom) {
        failed = -1; /* reported by the caller */
    } else if (load_errors) {
        doc_error(d, t, "rule files have errors (above)");
        failed = -1; /* even when that message cannot be kept */
    } else if (d->errs->n == 0) {
        int64_t maxt = 0;
        for (int i = 0; i < nchecks; i++)
            if (checks[i].at > maxt)
                maxt = checks[i].at;
        sample_source src;
        synth_source(&y, &src);
        for (int64_t ts = 0; ts <= maxt && !*oom; ts += eval_iv) {
            *oom = alert_engine_eval(e, &src, ts, 1) < 0; /* a skipped evaluation: no result to check */
            for (int i = 0; i < nchecks && !*oom; i++) {
                if (checks[i].at < ts || checks[i].at >= ts + eval_iv)
                    continue;
                int rc = check(d, e, &checks[i], testname, out);
                *oom = rc < 0;
                failed += rc > 0;
            }
        }
    }
    alert_engine_free(e);
    free(checks);
    synth_free(&y);
    return *oom ? -1 : failed;
}

int rules_verify_file(const char *path, FILE *out, FILE *err)
{
    errlist errs = {0};
    gw_doc d;
    int failed = 0, ntests = 0, oom = 0, errors = 0;
    int loaded = doc_load_file(&d, path, &errs) == 0;
    if (loaded) {
        yaml_node_t *root = doc_root(&d);
        static const char *const keys[] = {"rule_files", "evaluation_interval", "tests", NULL};
        if (doc_check_map(&d, root, "a test file", keys) == 0) {
            int64_t eval_iv = 60LL * 1000000;
            yaml_node_t *ei = doc_get(&d, root, "evaluation_interval");
            if (ei && get_dur(&d, ei, "evaluation_interval", &eval_iv) == 0 && eval_iv <= 0)
                doc_error(&d, ei, "evaluation_interval must be longer than 0");
            int nf = 0, nt = 0;
            yaml_node_t *rf = doc_get(&d, root, "rule_files"), *tests = doc_get(&d, root, "tests");
            nf = rf && doc_check_seq(&d, rf, "rule_files") == 0 ? doc_seq_len(rf) : 0;
            if (!rf)
                doc_error(&d, root, "a test file needs 'rule_files'");
            char **files = calloc((size_t)nf + 1, sizeof *files);
            oom = !files;
            char dir[PATH_MAX];
            snprintf(dir, sizeof dir, "%s", path);
            char *base = dirname(dir);
            for (int i = 0; i < nf && !oom; i++) {
                const char *f = doc_string(&d, doc_seq_at(&d, rf, i), "rule file");
                if (f && f[0] == '/')
                    files[i] = strdup(f);
                else if (f && asprintf(&files[i], "%s/%s", base, f) < 0)
                    files[i] = NULL;
                oom = f && !files[i];
            }
            nt = tests && doc_check_seq(&d, tests, "tests") == 0 ? doc_seq_len(tests) : 0;
            if (!tests)
                doc_error(&d, root, "a test file needs 'tests'");
            for (int i = 0; !oom && !errors && errs.n == 0 && i < nt; i++, ntests++) {
                int rc = run_case(&d, doc_seq_at(&d, tests, i), i, files, nf, eval_iv, out, &oom);
                errors = rc < 0;
                failed += rc > 0 ? rc : 0;
            }
            for (int i = 0; files && i < nf; i++)
                free(files[i]);
            free(files);
        }
    }
    doc_free(&d); /* after a failed load too: one that fails before parsing keeps the name */
    for (int i = 0; i < errs.n; i++)
        fprintf(err, "%s\n", errs.msg[i]);
    oom = oom || (!loaded && errs.n == 0); /* not loaded, and even the message could not be kept */
    if (oom)
        fprintf(err, "%s: out of memory\n", path);
    int rc = oom || errors || errs.n ? -1 : failed;
    if (rc == 0)
        fprintf(out, "%s: %d test%s SUCCESS\n", path, ntests, ntests == 1 ? "" : "s");
    errlist_free(&errs);
    return rc;
}
