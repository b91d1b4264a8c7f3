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

void active_alert_free(active_alert *a)
{
    labels_free(&a->labels);
    labels_free(&a->annotations);
}

static void rule_rt_free(rule_rt *rt)
{
    for (int i = 0; i < rt->n; i++)
        active_alert_free(&rt->a[i]);
    free(rt->a);
}

void alert_engine_free(alert_engine *e)
{
    if (!e)
        return;
    for (int g = 0; g < e->rs.ngroups; g++) {
        for (int r = 0; r < e->rs.groups[g].nrules; r++)
            rule_rt_free(&e->rt[g].rules[r]);
        free(e->rt[g].rules);
    }
    free(e->rt);
    rule_rt_free(&e->retired);
    free(e->procs);
    free(e->findings.v);
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

/* The state of the groups from before on (just loaded). Returns 0, or -1 when out of memory (e->rt
 * holds no more groups than before). */
static int add_group_rt(alert_engine *e, int before)
{
    group_rt *rt = realloc(e->rt, (size_t)(e->rs.ngroups + 1) * sizeof *rt);
    if (!rt)
        return -1;
    e->rt = rt;
    for (int g = before; g < e->rs.ngroups; g++) {
        rt[g].next_due = 0;
        rt[g].rules = calloc((size_t)e->rs.groups[g].nrules + 1, sizeof *rt[g].rules);
        if (!rt[g].rules) {
            while (g-- > before)
                free(rt[g].rules);
            return -1;
        }
    }
    return 0;
}

int alert_engine_load_text(alert_engine *e, const char *path, const char *text, FILE *err)
{
    errlist errs = {0};
    pthread_mutex_lock(&e->mu);
    int before = e->rs.ngroups;
    int n = rules_load_string(&e->rs, path, text, &errs);
    if (n == 0 && add_group_rt(e, before) != 0) {
        ruleset_truncate(&e->rs, before);
        errlist_add(&errs, path, 0, 0, "out of memory");
        n = 1;
    }
    if (n == 0)
        e->win_planned = 0;
    pthread_mutex_unlock(&e->mu);
    errlist_sort(&errs);
    for (int i = 0; err && i < errs.n; i++)
        fprintf(err, "%s\n", errs.msg[i]);
    if (err && n && !errs.n) /* out of memory, and its message could not be kept */
        fprintf(err, "%s: out of memory\n", path ? path : "-");
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

int alert_engine_set_external_label(alert_engine *e, const char *name, const char *value)
{
    pthread_mutex_lock(&e->mu);
    int rc = labels_set(&e->external, name, value);
    pthread_mutex_unlock(&e->mu);
    return rc;
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
            ru->cond.threshold.a = (term){.kind = TERM_CONST, .c = threshold};
            snprintf(ru->cond.threshold.text, sizeof ru->cond.threshold.text, "%g", threshold);
            e->win_planned = 0;
            n++;
        }
    pthread_mutex_unlock(&e->mu);
    return n;
}

finding_fact *finding_facts_get(finding_facts *ff, int gpu, const char *detector, int add)
{
    for (int i = 0; i < ff->n; i++)
        if (ff->v[i].gpu == gpu && strcmp(ff->v[i].detector, detector) == 0)
            return &ff->v[i];
    if (!add)
        return NULL;
    if (ff->n == ff->cap) {
        int cap = ff->cap ? ff->cap * 2 : 8;
        finding_fact *v = realloc(ff->v, (size_t)cap * sizeof *v);
        if (!v)
            return NULL;
        ff->v = v;
        ff->cap = cap;
    }
    finding_fact *f = &ff->v[ff->n++];
    memset(f, 0, sizeof *f);
    f->gpu = gpu;
    snprintf(f->detector, sizeof f->detector, "%s", detector);
    return f;
}

int alert_engine_set_finding(alert_engine *e, int gpu, const char *detector, int level)
{
    pthread_mutex_lock(&e->mu);
    finding_facts *ff = &e->findings;
    finding_fact *f = finding_facts_get(ff, gpu, detector, level > 0);
    if (f && level <= 0) {
        *f = ff->v[--ff->n];
        e->states_changed = 1;
    } else if (f) {
        e->states_changed |= f->level != level;
        f->level = level;
        f->until_us = 0; /* reported by the diagnosis: no longer a restored one */
    }
    pthread_mutex_unlock(&e->mu);
    return level > 0 && !f ? -1 : 0;
}

static int64_t group_interval(const alert_engine *e, int g)
{
    return e->rs.groups[g].interval_us ? e->rs.groups[g].interval_us : e->default_interval;
}

int64_t alert_engine_next_due(const alert_engine *e)
{
    int64_t next = e->retired.n ? e->retired_due : INT64_MAX;
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

/* Returns 0, or -1 when out of memory (gv->labels still to be freed). */
static int gpu_view_init(gpu_view *gv, alert_engine *e, const sample_source *src, int gpu, int64_t ts, gpu_proc *buf)
{
    memset(gv, 0, sizeof *gv);
    gv->gpu = gpu;
    char idx[16];
    snprintf(idx, sizeof idx, "%d", gpu);
    if (labels_copy(&gv->labels, &e->external) != 0 || labels_set(&gv->labels, "gpu", idx) != 0)
        return -1;
    gpu_info info;
    if (src->gpu_info && src->gpu_info(src->ctx, gpu, &info)) {
        if (mset_has(&info.str_present, M_UUID) && labels_set(&gv->labels, "UUID", info.str[M_UUID]) != 0)
            return -1;
        if (mset_has(&info.str_present, M_NAME) && labels_set(&gv->labels, "modelName", info.str[M_NAME]) != 0)
            return -1;
    }
    if (src->latest) {
        gpu_sample *latest = malloc(sizeof *latest);
        if (!latest)
            return -1;
        if (src->latest(src->ctx, gpu, ts, latest))
            gv->latest_us = (int64_t)latest->t_us;
        free(latest);
    }
    gv->procs = buf;
    gv->nprocs = src->procs ? src->procs(src->ctx, gpu, ts, buf, MAX_PROCS) : 0;
    if (gv->nprocs < 0)
        gv->nprocs = 0;
    return 0;
}

/* A rule's condition held for one label set in this evaluation: what its alert becomes. */
typedef struct hit {
    int rule;                   /* index in the group */
    labels labels, annotations; /* identity (alertname included), annotations expanded */
    double value;
} hit;

typedef struct hits {
    hit *v;
    int n, cap;
} hits;

static void hits_free(hits *h)
{
    for (int i = 0; i < h->n; i++) {
        labels_free(&h->v[i].labels);
        labels_free(&h->v[i].annotations);
    }
    free(h->v);
}

/* An alert's identity: the GPU's labels, the process's, the rule's, alertname. Returns 0, or -1 when
 * out of memory. */
static int alert_labels(labels *l, const rule *ru, const gpu_view *gv, const gpu_proc *proc)
{
    if (labels_copy(l, &gv->labels) != 0)
        return -1;
    if (proc) {
        char pid[16];
        snprintf(pid, sizeof pid, "%u", proc->pid);
        if (labels_set(l, "pid", pid) != 0 || labels_set(l, "command", proc->name) != 0 ||
            labels_set(l, "user", proc->user) != 0 || labels_set(l, "container", proc->container) != 0)
            return -1;
    }
    for (int i = 0; i < ru->labels.n; i++)
        if (labels_set(l, ru->labels.v[i].name, ru->labels.v[i].value) != 0)
            return -1;
    return labels_set(l, "alertname", ru->alert);
}

/* The rule's annotations for an alert; a template that cannot be expanded shows TMPL_OOM_MARKER.
 * Returns 0, or -1 when out of memory. */
static int alert_annotations(labels *out, const rule *ru, const labels *l, double value)
{
    for (int i = 0; i < ru->annotations.n; i++) {
        char *text = tmpl_expand(&ru->tmpls[i], l, value);
        int rc = labels_append(out, ru->annotations.v[i].name, text ? text : TMPL_OOM_MARKER);
        free(text);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Evaluates rule r on one GPU (one process); adds a hit when its condition holds. Returns 0, or -1
 * when out of memory. */
static int eval_one(alert_engine *e, int r, const rule *ru, const gpu_view *gv, const sample_source *src, int64_t ts,
                    const gpu_proc *proc, hits *out)
{
    eval_ctx x = {src, gv->gpu, ts, gv->latest_us, gv->procs, gv->nprocs, proc, &e->win, &e->findings};
    double value = 0;
    tri holds = cond_eval(&ru->cond, &x, &value);
    if (holds != TRI_TRUE)
        return holds == TRI_ERROR ? -1 : 0;
    if (out->n == out->cap) {
        int cap = out->cap ? out->cap * 2 : 8;
        hit *p = realloc(out->v, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        out->v = p;
        out->cap = cap;
    }
    hit *h = &out->v[out->n];
    memset(h, 0, sizeof *h);
    h->rule = r;
    h->value = value;
    if (alert_labels(&h->labels, ru, gv, proc) != 0 || alert_annotations(&h->annotations, ru, &h->labels, value) != 0) {
        labels_free(&h->labels);
        labels_free(&h->annotations);
        return -1;
    }
    out->n++;
    return 0;
}

/* What the rules of group g find at ts, the alerts left as they are. Returns 0, or -1 when out of memory. */
static int find_hits(alert_engine *e, int g, const sample_source *src, int64_t ts, hits *out)
{
    const rule_group *grp = &e->rs.groups[g];
    int gpus = src->gpu_count(src->ctx);
    if (!e->procs) { /* kept: a per-group allocation of this size would be the likeliest to fail */
        e->procs = malloc(MAX_PROCS * sizeof *e->procs);
        if (!e->procs)
            return -1;
    }
    int rc = 0;
    for (int gpu = 0; gpu < gpus && rc == 0; gpu++) {
        gpu_view gv;
        rc = gpu_view_init(&gv, e, src, gpu, ts, e->procs);
        for (int r = 0; r < grp->nrules && rc == 0; r++) {
            const rule *ru = &grp->rules[r];
            if (ru->has_gpus && (gpu >= RULES_MAX_GPUS || !ru->gpus[gpu]))
                continue;
            if (!ru->scope_process)
                rc = eval_one(e, r, ru, &gv, src, ts, NULL, out);
            for (int p = 0; ru->scope_process && p < gv.nprocs && rc == 0; p++)
                rc = eval_one(e, r, ru, &gv, src, ts, &gv.procs[p], out);
        }
        labels_free(&gv.labels);
    }
    return rc;
}

int rule_rt_reserve(rule_rt *rt, int n)
{
    if (n <= rt->cap)
        return 0;
    int cap = rt->cap ? rt->cap * 2 : 8;
    while (cap < n)
        cap *= 2;
    active_alert *p = realloc(rt->a, (size_t)cap * sizeof *p);
    if (!p)
        return -1;
    rt->a = p;
    rt->cap = cap;
    return 0;
}

active_alert *rule_rt_find(rule_rt *rt, const labels *l)
{
    for (int i = 0; i < rt->n; i++)
        if (labels_equal(&rt->a[i].labels, l))
            return &rt->a[i];
    return NULL;
}

/* The condition held for h's label set: create the alert (pending) or refresh it, taking h's labels and
 * annotations. rt has room for one more alert (rule_rt_reserve). Returns 1 when the alert is new. */
static int upsert(rule_rt *rt, hit *h, int64_t ts)
{
    active_alert *a = rule_rt_find(rt, &h->labels);
    int fresh = !a || a->state == ALERT_INACTIVE;
    if (!fresh) {
        labels_free(&a->annotations);
    } else {
        if (a)
            active_alert_free(a); /* a resolved alert becomes active again: a new one */
        else
            a = &rt->a[rt->n++];
        memset(a, 0, sizeof *a);
        a->labels = h->labels;
        memset(&h->labels, 0, sizeof h->labels);
        a->state = ALERT_PENDING;
        a->active_at = ts;
        a->last_sent_at = INT64_MIN / 4; /* never sent */
    }
    a->annotations = h->annotations;
    memset(&h->annotations, 0, sizeof h->annotations);
    a->value = h->value;
    a->seen = 1;
    return fresh;
}

void alert_log_transition(const active_alert *a, const char *what, gw_log_level lvl)
{
    char value[40];
    gw_format_number(a->value, value, sizeof value);
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

/* Prometheus' AlertingRule.Eval after the query: states of alerts not in the result, for, keep_firing_for.
 * Returns how many alerts changed what a restart would restore (state, keep_firing_for's start). */
static int advance(const rule *ru, rule_rt *rt, int64_t ts)
{
    int moved = 0;
    for (int i = 0; i < rt->n; i++) {
        active_alert *a = &rt->a[i];
        a->changed = 0;
        if (!a->seen) {
            int keep = 0;
            if (a->state == ALERT_FIRING && ru->keep_firing_us > 0) {
                if (!a->keep_firing_since) {
                    a->keep_firing_since = ts;
                    moved++; /* kept for a restart */
                }
                keep = ts - a->keep_firing_since < ru->keep_firing_us;
            }
            if (a->state == ALERT_PENDING || (a->resolved_at && ts - a->resolved_at > ALERT_RESOLVED_RETENTION_US)) {
                moved += a->state == ALERT_PENDING;
                active_alert_free(a);
                rt->a[i] = rt->a[--rt->n];
                i--;
                continue;
            }
            if (a->state != ALERT_INACTIVE && !keep) {
                a->state = ALERT_INACTIVE;
                a->resolved_at = ts;
                a->changed = 1;
                moved++;
                alert_log_transition(a, "alert resolved", GW_LOG_INFO);
            }
            continue;
        }
        moved += a->keep_firing_since != 0;
        a->keep_firing_since = 0;
        if (a->state == ALERT_PENDING && ts - a->active_at >= ru->for_us) {
            a->state = ALERT_FIRING;
            a->fired_at = ts;
            a->changed = 1;
            moved++;
            alert_log_transition(a, "alert firing", GW_LOG_WARN);
        } else if (a->state == ALERT_PENDING && a->active_at == ts) {
            alert_log_transition(a, "alert pending", GW_LOG_INFO);
        }
    }
    return moved;
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

/* Appends the alerts that changed or are due for sending to out. Returns how many could not be (out of
 * memory: dropped; one due for sending stays due). */
static int collect_dispatch(rule_rt *rt, int64_t ts, int64_t interval, alert_list *out)
{
    int dropped = 0;
    for (int i = 0; i < rt->n; i++) {
        active_alert *a = &rt->a[i];
        int due = needs_sending(a, ts);
        if (!due && !a->changed)
            continue;
        alert_view *v = realloc(out->v, (size_t)(out->n + 1) * sizeof *v);
        if (v)
            out->v = v;
        if (!v || alert_view_fill(&v[out->n], a) != 0) {
            dropped++;
            continue;
        }
        if (due) {
            int64_t delta = interval > ALERT_RESEND_DELAY_US ? interval : ALERT_RESEND_DELAY_US;
            a->last_sent_at = ts;
            a->valid_until = ts + 4 * delta;
        }
        v[out->n].ends_at_us = a->resolved_at ? a->resolved_at : a->valid_until;
        v[out->n].changed = a->changed;
        v[out->n].due = due;
        out->n++;
    }
    return dropped;
}

/* Evaluates group g at ts and appends its notifications to out (*dropped: those that could not be
 * built). The alerts change only once every hit is known and there is room for them: returns 0, or -1
 * when out of memory, the group's alerts as they were. */
static int eval_group(alert_engine *e, int g, const sample_source *src, int64_t ts, alert_list *out, int *dropped)
{
    rule_group *grp = &e->rs.groups[g];
    group_rt *grt = &e->rt[g];
    hits h = {0};
    int rc = find_hits(e, g, src, ts, &h);
    for (int r = 0; r < grp->nrules && rc == 0; r++) {
        int most = grt->rules[r].n; /* each hit may be a new alert */
        for (int i = 0; i < h.n; i++)
            most += h.v[i].rule == r;
        rc = rule_rt_reserve(&grt->rules[r], most);
    }
    if (rc == 0) { /* nothing below allocates but the notifications */
        for (int r = 0; r < grp->nrules; r++)
            for (int i = 0; i < grt->rules[r].n; i++)
                grt->rules[r].a[i].seen = 0;
        int moved = 0;
        for (int i = 0; i < h.n; i++)
            moved += upsert(&grt->rules[h.v[i].rule], &h.v[i], ts);
        for (int r = 0; r < grp->nrules; r++) {
            moved += advance(&grp->rules[r], &grt->rules[r], ts);
            *dropped += collect_dispatch(&grt->rules[r], ts, group_interval(e, g), out);
        }
        if (moved)
            e->states_changed = 1;
    }
    hits_free(&h);
    return rc;
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

/* The alerts of rules that are gone: sent on the schedule of resolved alerts (a retired one is
 * resolved, or being so, once), dropped after the resolved retention. Returns how many
 * notifications could not be built. */
static int advance_retired(alert_engine *e, int64_t ts, alert_list *out)
{
    rule_rt *rt = &e->retired;
    for (int i = 0; i < rt->n; i++)
        if (ts - rt->a[i].resolved_at > ALERT_RESOLVED_RETENTION_US) {
            active_alert_free(&rt->a[i]);
            rt->a[i] = rt->a[--rt->n];
            i--;
        }
    int dropped = collect_dispatch(rt, ts, e->default_interval, out);
    for (int i = 0; i < rt->n; i++)
        rt->a[i].changed = 0;
    return dropped;
}

/* Findings restored after a restart that the diagnosis has not reported again within their grace. */
static void expire_findings(alert_engine *e, int64_t now_us)
{
    finding_facts *ff = &e->findings;
    for (int i = 0; i < ff->n; i++)
        if (ff->v[i].until_us && now_us >= ff->v[i].until_us) {
            ff->v[i] = ff->v[--ff->n];
            i--;
            e->states_changed = 1;
        }
}

int alert_engine_eval(alert_engine *e, const sample_source *src, int64_t now_us, int force)
{
    int evaluated = 0, skipped = 0, dropped = 0;
    alert_list out = {0};
    pthread_mutex_lock(&e->mu);
    expire_findings(e, now_us);
    update_window(e, src, now_us, force);
    for (int g = 0; g < e->rs.ngroups; g++) {
        group_rt *grt = &e->rt[g];
        if (!group_due(e, g, now_us, force))
            continue;
        if (eval_group(e, g, src, now_us, &out, &dropped) != 0) {
            skipped++; /* still due: the next call tries again */
            continue;
        }
        int64_t iv = group_interval(e, g);
        if (!grt->next_due)
            grt->next_due = now_us;
        while (grt->next_due <= now_us)
            grt->next_due += iv;
        evaluated++;
    }
    if (e->retired.n && (force || now_us >= e->retired_due)) {
        dropped += advance_retired(e, now_us, &out);
        e->retired_due = now_us + e->default_interval;
    }
    /* Out of memory is logged once, until an evaluation goes through again. */
    int log = (skipped || dropped) && !e->oom_logged;
    if (skipped || dropped)
        e->oom_logged = 1;
    else if (evaluated)
        e->oom_logged = 0;
    pthread_mutex_unlock(&e->mu);
    if (log)
        gw_log(GW_LOG_ERROR,
               "alerts: out of memory (skipped groups keep their alert states and are evaluated next time)",
               "groups_skipped=%d notifications_dropped=%d", skipped, dropped);
    if (e->notifier && dropped)
        notifier_drop(e->notifier, dropped);
    if (e->notifier && out.n)
        notifier_dispatch(e->notifier, &out, now_us);
    if (e->listener && out.n)
        e->listener(&out, now_us, e->listener_arg);
    alert_list_free(&out);
    return skipped ? -1 : evaluated;
}
