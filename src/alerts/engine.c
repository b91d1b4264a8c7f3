/* engine.c - evaluating rule groups on a sample source: Prometheus' alert state machine
 * (inactive -> pending -> firing -> resolved, for / keep_firing_for, 15 minute retention). */
#include "engine.h"
#include "condition.h"
#include "notify.h"
#include "util.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PROCS 256

alert_engine *alert_engine_new(void)
{
    alert_engine *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    pthread_mutex_init(&e->mu, NULL);
    e->default_interval = ALERT_DEFAULT_INTERVAL_US;
    return e;
}

static void alert_free(active_alert *a)
{
    labels_free(&a->labels);
    labels_free(&a->annotations);
}

void alert_engine_free(alert_engine *e)
{
    if (!e)
        return;
    for (int g = 0; g < e->rs.ngroups; g++) {
        for (int r = 0; r < e->rs.groups[g].nrules; r++) {
            rule_rt *rt = &e->rt[g].rules[r];
            for (int i = 0; i < rt->n; i++)
                alert_free(&rt->a[i]);
            free(rt->a);
        }
        free(e->rt[g].rules);
    }
    free(e->rt);
    window_free(&e->win);
    ruleset_free(&e->rs);
    labels_free(&e->external);
    pthread_mutex_destroy(&e->mu);
    free(e);
}

char *alerts_default_rules_path(void)
{
    const char *env = getenv("GPUWATCH_DEFAULT_RULES");
    if (env && *env)
        return strdup(env);
    char exe[PATH_MAX], cand[PATH_MAX + 64];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = 0;
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = 0;
        snprintf(cand, sizeof cand, "%s/../share/gpuwatch/rules/gpuwatch-default.yaml", exe);
        if (access(cand, R_OK) == 0)
            return strdup(cand);
    }
    const char *fixed[] = {"/usr/share/gpuwatch/rules/gpuwatch-default.yaml",
                           GW_SOURCE_DIR "/deploy/rules/gpuwatch-default.yaml"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (access(fixed[i], R_OK) == 0)
            return strdup(fixed[i]);
    return NULL;
}

int alert_engine_load(alert_engine *e, const char *path, FILE *err)
{
    return alert_engine_load_text(e, path, NULL, err);
}

int alert_engine_load_text(alert_engine *e, const char *path, const char *text, FILE *err)
{
    errlist errs = {0};
    pthread_mutex_lock(&e->mu);
    int before = e->rs.ngroups;
    int n = rules_load_string(&e->rs, path, text, &errs);
    if (n == 0) {
        group_rt *rt = realloc(e->rt, (size_t)(e->rs.ngroups + 1) * sizeof *rt);
        if (!rt)
            abort();
        e->rt = rt;
        for (int g = before; g < e->rs.ngroups; g++) {
            rt[g].next_due = 0;
            rt[g].rules = calloc((size_t)e->rs.groups[g].nrules + 1, sizeof *rt[g].rules);
            if (!rt[g].rules)
                abort();
        }
        e->win_planned = 0;
    }
    pthread_mutex_unlock(&e->mu);
    errlist_sort(&errs);
    for (int i = 0; err && i < errs.n; i++)
        fprintf(err, "%s\n", errs.msg[i]);
    errlist_free(&errs);
    return n;
}

int alert_engine_rule_count(const alert_engine *e)
{
    return ruleset_count(&e->rs);
}
void alert_engine_set_default_interval(alert_engine *e, int64_t us)
{
    e->default_interval = us > 0 ? us : ALERT_DEFAULT_INTERVAL_US;
}
void alert_engine_set_notifier(alert_engine *e, notifier *n)
{
    e->notifier = n;
}

void alert_engine_set_listener(alert_engine *e, alert_listener fn, void *arg)
{
    e->listener = fn;
    e->listener_arg = arg;
}

void alert_engine_set_external_label(alert_engine *e, const char *name, const char *value)
{
    pthread_mutex_lock(&e->mu);
    labels_set(&e->external, name, value);
    pthread_mutex_unlock(&e->mu);
}

int alert_engine_set_threshold(alert_engine *e, const char *alertname, double threshold)
{
    int n = 0;
    pthread_mutex_lock(&e->mu);
    for (int g = 0; g < e->rs.ngroups; g++)
        for (int r = 0; r < e->rs.groups[g].nrules; r++) {
            rule *ru = &e->rs.groups[g].rules[r];
            if (strcmp(ru->alert, alertname) != 0 || ru->cond.kind != COND_LEAF)
                continue;
            ru->cond.threshold.op = 0;
            ru->cond.threshold.a = (term){TERM_CONST, 0, threshold};
            snprintf(ru->cond.threshold.text, sizeof ru->cond.threshold.text, "%g", threshold);
            e->win_planned = 0;
            n++;
        }
    pthread_mutex_unlock(&e->mu);
    return n;
}

static int64_t group_interval(const alert_engine *e, int g)
{
    return e->rs.groups[g].interval_us ? e->rs.groups[g].interval_us : e->default_interval;
}

int64_t alert_engine_next_due(const alert_engine *e)
{
    int64_t next = INT64_MAX;
    for (int g = 0; g < e->rs.ngroups; g++)
        if (e->rt[g].next_due < next)
            next = e->rt[g].next_due;
    return next;
}

/* What one GPU offers to every rule of a group in one evaluation. */
typedef struct gpu_view {
    int gpu;
    labels labels; /* external + gpu, UUID, modelName */
    gpu_proc *procs;
    int nprocs;
    int64_t latest_us;
} gpu_view;

static void gpu_view_init(gpu_view *gv, alert_engine *e, const sample_source *src, int gpu, int64_t ts, gpu_proc *buf)
{
    memset(gv, 0, sizeof *gv);
    gv->gpu = gpu;
    labels_copy(&gv->labels, &e->external);
    char idx[16];
    snprintf(idx, sizeof idx, "%d", gpu);
    labels_set(&gv->labels, "gpu", idx);
    gpu_info info;
    if (src->gpu_info && src->gpu_info(src->ctx, gpu, &info)) {
        if (mset_has(&info.str_present, M_UUID))
            labels_set(&gv->labels, "UUID", info.str[M_UUID]);
        if (mset_has(&info.str_present, M_NAME))
            labels_set(&gv->labels, "modelName", info.str[M_NAME]);
    }
    gpu_sample *latest = malloc(sizeof *latest);
    if (latest && src->latest && src->latest(src->ctx, gpu, ts, latest))
        gv->latest_us = (int64_t)latest->t_us;
    free(latest);
    gv->procs = buf;
    gv->nprocs = src->procs ? src->procs(src->ctx, gpu, ts, buf, MAX_PROCS) : 0;
    if (gv->nprocs < 0)
        gv->nprocs = 0;
}

static active_alert *find_alert(rule_rt *rt, const labels *l)
{
    for (int i = 0; i < rt->n; i++)
        if (labels_equal(&rt->a[i].labels, l))
            return &rt->a[i];
    return NULL;
}

/* The condition held for this label set: create the alert (pending) or refresh it. */
static void upsert(rule_rt *rt, const rule *ru, labels *l, double value, int64_t ts)
{
    active_alert *a = find_alert(rt, l);
    if (a && a->state != ALERT_INACTIVE) {
        labels_free(&a->annotations);
    } else {
        if (a) {
            alert_free(a); /* a resolved alert becomes active again: a new one */
        } else {
            if (rt->n == rt->cap) {
                int cap = rt->cap ? rt->cap * 2 : 8;
                active_alert *p = realloc(rt->a, (size_t)cap * sizeof *p);
                if (!p)
                    abort();
                rt->a = p;
                rt->cap = cap;
            }
            a = &rt->a[rt->n++];
        }
        memset(a, 0, sizeof *a);
        labels_copy(&a->labels, l);
        a->state = ALERT_PENDING;
        a->active_at = ts;
        a->last_sent_at = INT64_MIN / 4; /* never sent */
    }
    a->value = value;
    a->seen = 1;
    for (int i = 0; i < ru->annotations.n; i++) {
        char *text = tmpl_expand(&ru->tmpls[i], l, value);
        labels_append(&a->annotations, ru->annotations.v[i].name, text);
        free(text);
    }
}

static void eval_one(alert_engine *e, const rule *ru, rule_rt *rt, const gpu_view *gv, const sample_source *src,
                     int64_t ts, const gpu_proc *proc)
{
    eval_ctx x = {src, gv->gpu, ts, gv->latest_us, gv->procs, gv->nprocs, proc, &e->win};
    double value = 0;
    if (cond_eval(&ru->cond, &x, &value) != TRI_TRUE)
        return;
    labels l;
    labels_copy(&l, &gv->labels);
    if (proc) {
        char pid[16];
        snprintf(pid, sizeof pid, "%u", proc->pid);
        labels_set(&l, "pid", pid);
        labels_set(&l, "command", proc->name);
        labels_set(&l, "user", proc->user);
        labels_set(&l, "container", proc->container);
    }
    for (int i = 0; i < ru->labels.n; i++)
        labels_set(&l, ru->labels.v[i].name, ru->labels.v[i].value);
    labels_set(&l, "alertname", ru->alert);
    upsert(rt, ru, &l, value, ts);
    labels_free(&l);
}

static void log_transition(const active_alert *a, const char *what, gw_log_level lvl)
{
    char value[40];
    tmpl_format_value(a->value, value, sizeof value);
    const char *summary = labels_get(&a->annotations, "summary");
    char sum[300] = "";
    if (summary) { /* logfmt: quotes and backslashes escaped */
        size_t o = 0;
        for (const char *c = summary; *c && o + 3 < sizeof sum; c++) {
            if (*c == '"' || *c == '\\')
                sum[o++] = '\\';
            sum[o++] = *c == '\n' ? ' ' : *c;
        }
        sum[o] = 0;
    }
    const char *gpu = labels_get(&a->labels, "gpu"), *sev = labels_get(&a->labels, "severity");
    gw_log(lvl, what, "alertname=%s gpu=%s severity=%s value=%s summary=\"%s\"", labels_get(&a->labels, "alertname"),
           gpu ? gpu : "", sev ? sev : "", value, sum);
}

/* Prometheus' AlertingRule.Eval after the query: states of alerts not in the result, for, keep_firing_for. */
static void advance(const rule *ru, rule_rt *rt, int64_t ts, unsigned char *changed)
{
    for (int i = 0; i < rt->n; i++) {
        active_alert *a = &rt->a[i];
        changed[i] = 0;
        if (!a->seen) {
            int keep = 0;
            if (a->state == ALERT_FIRING && ru->keep_firing_us > 0) {
                if (!a->keep_firing_since)
                    a->keep_firing_since = ts;
                keep = ts - a->keep_firing_since < ru->keep_firing_us;
            }
            if (a->state == ALERT_PENDING || (a->resolved_at && ts - a->resolved_at > ALERT_RESOLVED_RETENTION_US)) {
                alert_free(a);
                rt->a[i] = rt->a[--rt->n];
                changed[rt->n] = 0;
                i--;
                continue;
            }
            if (a->state != ALERT_INACTIVE && !keep) {
                a->state = ALERT_INACTIVE;
                a->resolved_at = ts;
                changed[i] = 1;
                log_transition(a, "alert resolved", GW_LOG_INFO);
            }
            continue;
        }
        a->keep_firing_since = 0;
        if (a->state == ALERT_PENDING && ts - a->active_at >= ru->for_us) {
            a->state = ALERT_FIRING;
            a->fired_at = ts;
            changed[i] = 1;
            log_transition(a, "alert firing", GW_LOG_WARN);
        } else if (a->state == ALERT_PENDING && a->active_at == ts) {
            log_transition(a, "alert pending", GW_LOG_INFO);
        }
    }
}

/* Prometheus' needsSending and the endsAt it sends (resend every minute, valid for 4 intervals). */
static int needs_sending(const active_alert *a, int64_t ts)
{
    if (a->state == ALERT_PENDING)
        return 0;
    if (a->resolved_at > a->last_sent_at)
        return 1;
    return a->last_sent_at + ALERT_RESEND_DELAY_US < ts;
}

static void collect_dispatch(rule_rt *rt, const unsigned char *changed, int64_t ts, int64_t interval, alert_list *out)
{
    for (int i = 0; i < rt->n; i++) {
        active_alert *a = &rt->a[i];
        int due = needs_sending(a, ts);
        if (!due && !changed[i])
            continue;
        if (due) {
            int64_t delta = interval > ALERT_RESEND_DELAY_US ? interval : ALERT_RESEND_DELAY_US;
            a->last_sent_at = ts;
            a->valid_until = ts + 4 * delta;
        }
        alert_view *v = realloc(out->v, (size_t)(out->n + 1) * sizeof *v);
        if (!v)
            abort();
        out->v = v;
        alert_view_fill(&v[out->n], a);
        v[out->n].ends_at_us = a->resolved_at ? a->resolved_at : a->valid_until;
        v[out->n].changed = changed[i];
        v[out->n].due = due;
        out->n++;
    }
}

static void eval_group(alert_engine *e, int g, const sample_source *src, int64_t ts, alert_list *out)
{
    rule_group *grp = &e->rs.groups[g];
    group_rt *grt = &e->rt[g];
    for (int r = 0; r < grp->nrules; r++)
        for (int i = 0; i < grt->rules[r].n; i++)
            grt->rules[r].a[i].seen = 0;
    int gpus = src->gpu_count(src->ctx);
    gpu_proc *buf = malloc(MAX_PROCS * sizeof *buf); /* the source fills what it returns */
    if (!buf)
        abort();
    for (int gpu = 0; gpu < gpus; gpu++) {
        gpu_view gv;
        gpu_view_init(&gv, e, src, gpu, ts, buf);
        for (int r = 0; r < grp->nrules; r++) {
            const rule *ru = &grp->rules[r];
            if (ru->has_gpus && (gpu >= RULES_MAX_GPUS || !ru->gpus[gpu]))
                continue;
            if (!ru->scope_process)
                eval_one(e, ru, &grt->rules[r], &gv, src, ts, NULL);
            for (int p = 0; ru->scope_process && p < gv.nprocs; p++)
                eval_one(e, ru, &grt->rules[r], &gv, src, ts, &gv.procs[p]);
        }
        labels_free(&gv.labels);
    }
    free(buf);
    for (int r = 0; r < grp->nrules; r++) {
        rule_rt *rt = &grt->rules[r];
        unsigned char *changed = calloc((size_t)rt->n + 1, 1);
        if (!changed)
            abort();
        advance(&grp->rules[r], rt, ts, changed);
        collect_dispatch(rt, changed, ts, group_interval(e, g), out);
        free(changed);
    }
}

void alert_engine_set_source_capacity(alert_engine *e, int samples)
{
    pthread_mutex_lock(&e->mu);
    if (e->win.capacity != samples)
        e->win_planned = 0; /* kept values start over */
    e->win.capacity = samples > 0 ? samples : 0;
    pthread_mutex_unlock(&e->mu);
}

static int group_due(const alert_engine *e, int g, int64_t now_us, int force)
{
    return force || !e->rt[g].next_due || now_us >= e->rt[g].next_due;
}

/* Brings the kept values up to now_us, once per evaluation that has a group due. */
static void update_window(alert_engine *e, const sample_source *src, int64_t now_us, int force)
{
    int due = 0;
    for (int g = 0; g < e->rs.ngroups && !due; g++)
        due = group_due(e, g, now_us, force);
    if (!due)
        return;
    if (!e->win_planned || memcmp(&e->win_src, src, sizeof *src) != 0) {
        window_plan(&e->win, &e->rs);
        e->win_planned = 1;
        e->win_src = *src;
    }
    window_update(&e->win, src, now_us);
}

int alert_engine_eval(alert_engine *e, const sample_source *src, int64_t now_us, int force)
{
    int evaluated = 0;
    alert_list out = {0};
    pthread_mutex_lock(&e->mu);
    update_window(e, src, now_us, force);
    for (int g = 0; g < e->rs.ngroups; g++) {
        group_rt *grt = &e->rt[g];
        if (!group_due(e, g, now_us, force))
            continue;
        eval_group(e, g, src, now_us, &out);
        int64_t iv = group_interval(e, g);
        if (!grt->next_due)
            grt->next_due = now_us;
        while (grt->next_due <= now_us)
            grt->next_due += iv;
        evaluated++;
    }
    pthread_mutex_unlock(&e->mu);
    if (e->notifier && out.n)
        notifier_dispatch(e->notifier, &out, now_us);
    if (e->listener && out.n)
        e->listener(&out, now_us, e->listener_arg);
    alert_list_free(&out);
    return evaluated;
}
