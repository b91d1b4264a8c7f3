/* alerts.c - top's alerts: in local mode gpuwatch's default rules evaluated on top's own samples
 * through the alerts engine's public API (alerts.h), and the alert lines both modes show: sorted by
 * state (firing before pending) then severity, a pending one saying when it would fire.
 *
 * The engine reads samples through an sample_source over a ring that only this file feeds (every
 * sample, lost ones included, so GPULost can fire). Rules of a group read the same GPU's window
 * one after another, so the source decodes a GPU's window once per evaluation and serves the rules
 * from that copy instead of decoding the ring again for each rule. */
#include "top_model.h"
#include "alerts.h"
#include "ring.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_RULE_FORS 256

typedef struct local_alerts {
    alert_engine *e;
    sample_source src;
    top_model *m;
    ring *r;
    int ngpus;
    uint64_t *pushed;   /* per GPU: time of the last sample given to the ring */
    gpu_sample *latest; /* per GPU: a copy taken under the model lock */
    gpu_sample *cache;  /* one GPU's samples since cache_since (TOP_HISTORY slots) */
    int ncache, cache_gpu;
    uint64_t cache_since;
    int evaluated_once;
    top_rule_for fors[MAX_RULE_FORS];
    int nfors;
} local_alerts;

/* ---- alert lines ---- */

void top_alert_set(top_alert *a, const char *name, const char *severity, const char *state, const char *summary,
                   int64_t active_at_us, int64_t for_us)
{
    memset(a, 0, sizeof *a);
    if (severity && strcmp(severity, "critical") == 0)
        a->level = 2;
    else if (severity && strcmp(severity, "warning") == 0)
        a->level = 1;
    a->firing = !(state && strcmp(state, "pending") == 0);
    a->active_at_us = active_at_us;
    a->for_us = for_us;
    snprintf(a->name, sizeof a->name, "%s", name ? name : "?");
    snprintf(a->summary, sizeof a->summary, "%s", summary ? summary : "");
}

static int worse_first(const void *pa, const void *pb)
{
    const top_alert *a = pa, *b = pb;
    if (a->firing != b->firing)
        return b->firing - a->firing;
    if (a->level != b->level)
        return b->level - a->level;
    int r = strcmp(a->name, b->name);
    return r ? r : strcmp(a->summary, b->summary);
}

void top_alerts_sort(top_alert *a, int n)
{
    qsort(a, (size_t)n, sizeof *a, worse_first);
}

/* 45s, 4m10s, 1h05m */
static void short_duration(int64_t us, char *out, size_t n)
{
    long long s = us / 1000000;
    if (s >= 3600)
        snprintf(out, n, "%lldh%02lldm", s / 3600, s / 60 % 60);
    else if (s >= 60)
        snprintf(out, n, "%lldm%02llds", s / 60, s % 60);
    else
        snprintf(out, n, "%llds", s);
}

void top_alert_text(const top_alert *a, int64_t now_us, char *out, size_t n)
{
    static const char *tags[] = {"INFO", "WARN", "CRIT"};
    const char *tag = tags[a->level < 0 ? 0 : a->level > 2 ? 2 : a->level];
    const char *sep = a->summary[0] ? ": " : "";
    if (a->firing) {
        snprintf(out, n, "%s %s%s%s", tag, a->name, sep, a->summary);
        return;
    }
    char when[80], d[24];
    int64_t pending = a->active_at_us && now_us > a->active_at_us ? now_us - a->active_at_us : 0;
    if (a->for_us >= 0) {
        int64_t left = a->for_us - pending;
        short_duration(left, d, sizeof d);
        if (left >= 1000000)
            snprintf(when, sizeof when, "would fire in %s", d);
        else
            snprintf(when, sizeof when, "would fire at the next evaluation");
    } else if (a->active_at_us) {
        short_duration(pending, d, sizeof d);
        snprintf(when, sizeof when, "pending for %s, not firing yet", d);
    } else {
        snprintf(when, sizeof when, "not firing yet");
    }
    snprintf(out, n, "pending %s %s (%s)%s%s", tag, a->name, when, sep, a->summary);
}

/* ---- rule `for` durations ---- */

int top_parse_duration(const char *s, int64_t *us)
{
    static const struct {
        const char *unit;
        double us;
    } units[] = {{"ms", 1e3}, {"s", 1e6}, {"m", 60e6}, {"h", 3600e6}, {"d", 86400e6}, {"w", 604800e6}};
    double total = 0;
    if (!s || !*s)
        return -1;
    if (strcmp(s, "0") == 0) {
        *us = 0;
        return 0;
    }
    while (*s) {
        char *end;
        double v = strtod(s, &end);
        if (end == s || v < 0 || !isfinite(v))
            return -1;
        size_t best = 0, k = 0;
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
            size_t len = strlen(units[i].unit);
            if (strncmp(end, units[i].unit, len) == 0 && len > best) {
                best = len;
                k = i;
            }
        }
        if (!best)
            return -1;
        total += v * units[k].us;
        s = end + best;
    }
    *us = (int64_t)total;
    return 0;
}

static const yaml_node_t *map_get(yaml_document_t *d, const yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = yaml_document_get_node(d, p->key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0)
            return yaml_document_get_node(d, p->value);
    }
    return NULL;
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

int top_rule_fors_read(const char *path, top_rule_for *out, int max)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    yaml_parser_t p;
    yaml_document_t d;
    int n = 0, ok = yaml_parser_initialize(&p);
    if (ok) {
        yaml_parser_set_input_file(&p, f);
        ok = yaml_parser_load(&p, &d);
    }
    const yaml_node_t *groups = ok ? map_get(&d, yaml_document_get_root_node(&d), "groups") : NULL;
    for (yaml_node_item_t *g = groups && groups->type == YAML_SEQUENCE_NODE ? groups->data.sequence.items.start : NULL;
         g && g < groups->data.sequence.items.top; g++) {
        const yaml_node_t *rules = map_get(&d, yaml_document_get_node(&d, *g), "rules");
        if (!rules || rules->type != YAML_SEQUENCE_NODE)
            continue;
        for (yaml_node_item_t *r = rules->data.sequence.items.start; r < rules->data.sequence.items.top && n < max;
             r++) {
            const yaml_node_t *rule = yaml_document_get_node(&d, *r);
            const char *name = scalar(map_get(&d, rule, "alert")), *dur = scalar(map_get(&d, rule, "for"));
            int64_t us = 0;
            if (!name || (dur && top_parse_duration(dur, &us) != 0))
                continue;
            snprintf(out[n].name, sizeof out[n].name, "%s", name);
            out[n++].for_us = us;
        }
    }
    if (ok)
        yaml_document_delete(&d);
    yaml_parser_delete(&p);
    fclose(f);
    return ok ? n : -1;
}

static int64_t for_of(const local_alerts *la, const char *name)
{
    for (int i = 0; i < la->nfors; i++)
        if (strcmp(la->fors[i].name, name) == 0)
            return la->fors[i].for_us;
    return -1;
}

/* ---- the engine reads top's samples ---- */

static int src_count(void *ctx)
{
    return ((local_alerts *)ctx)->ngpus;
}

static int src_info(void *ctx, int gpu, gpu_info *out)
{
    top_model *m = ((local_alerts *)ctx)->m;
    pthread_mutex_lock(&m->lock);
    int ok = gpu >= 0 && gpu < m->ngpus;
    if (ok)
        *out = m->gpus[gpu].info;
    pthread_mutex_unlock(&m->lock);
    return ok;
}

static void src_each(void *ctx, int gpu, uint64_t since_us, void (*fn)(const gpu_sample *, void *), void *arg)
{
    local_alerts *la = ctx;
    if (!la->cache)
        la->cache = malloc(TOP_HISTORY * sizeof *la->cache);
    if (!la->cache) {
        ring_each(la->r, gpu, since_us, fn, arg);
        return;
    }
    if (gpu != la->cache_gpu || since_us < la->cache_since) {
        la->ncache = ring_range(la->r, gpu, since_us, la->cache, TOP_HISTORY);
        la->cache_gpu = gpu;
        la->cache_since = since_us;
    }
    for (int i = 0; i < la->ncache; i++)
        if (la->cache[i].t_us >= since_us)
            fn(&la->cache[i], arg);
}

static int src_latest(void *ctx, int gpu, int64_t now_us, gpu_sample *out)
{
    (void)now_us;
    return ring_latest(((local_alerts *)ctx)->r, gpu, out);
}

static int src_procs(void *ctx, int gpu, int64_t now_us, gpu_proc *out, int max)
{
    top_model *m = ((local_alerts *)ctx)->m;
    int n = 0;
    (void)now_us;
    pthread_mutex_lock(&m->lock);
    for (int i = 0; i < m->nprocs && n < max; i++)
        if (m->procs[i].gpu == gpu)
            out[n++] = m->procs[i];
    pthread_mutex_unlock(&m->lock);
    return n;
}

static const char *label_of(const alert_view *v, const char *name)
{
    for (int i = 0; i < v->nlabels; i++)
        if (strcmp(v->label_names[i], name) == 0)
            return v->label_values[i];
    return NULL;
}

static const char *annotation_of(const alert_view *v, const char *name)
{
    for (int i = 0; i < v->nannotations; i++)
        if (strcmp(v->annotation_names[i], name) == 0)
            return v->annotation_values[i];
    return NULL;
}

/* After each refresh: the new samples into the ring, then the groups that are due. */
static void eval_after_refresh(void *ctx, top_model *m)
{
    local_alerts *la = ctx;
    unsigned char fresh[TOP_MAX_GPUS] = {0};
    pthread_mutex_lock(&m->lock);
    for (int i = 0; i < la->ngpus && i < m->ngpus; i++) {
        const top_gpu *g = &m->gpus[i];
        if (g->have_sample && g->s.t_us != la->pushed[i]) {
            la->latest[i] = g->s;
            fresh[i] = 1;
        }
    }
    pthread_mutex_unlock(&m->lock);
    for (int i = 0; i < la->ngpus; i++)
        if (fresh[i]) {
            ring_push(la->r, i, &la->latest[i]);
            la->pushed[i] = la->latest[i].t_us;
        }
    la->cache_gpu = -1;
    if (alert_engine_eval(la->e, &la->src, (int64_t)gw_now_us(), 0) == 0 && la->evaluated_once)
        return; /* no group was due: the alerts are as they were */
    la->evaluated_once = 1;
    alert_list l;
    alert_engine_snapshot(la->e, &l);
    top_alert lines[TOP_MAX_ALERTS];
    int n = 0;
    for (int i = 0; i < l.n && n < TOP_MAX_ALERTS; i++) {
        const alert_view *v = &l.v[i];
        if (v->state == ALERT_INACTIVE)
            continue;
        top_alert_set(&lines[n++], v->alertname, label_of(v, "severity"), alert_state_name(v->state),
                      annotation_of(v, "summary"), v->active_at_us, for_of(la, v->alertname));
    }
    alert_list_free(&l);
    top_alerts_sort(lines, n);
    pthread_mutex_lock(&m->lock);
    memcpy(m->alerts, lines, (size_t)n * sizeof *lines);
    m->nalerts = n;
    pthread_mutex_unlock(&m->lock);
}

static void local_free(void *ctx)
{
    local_alerts *la = ctx;
    if (!la)
        return;
    alert_engine_free(la->e);
    ring_free(la->r);
    free(la->pushed);
    free(la->latest);
    free(la->cache);
    free(la);
}

int top_alerts_local_start(top_source *src, top_model *m, const top_thresholds *th, char *why, size_t n)
{
    char *path = alerts_default_rules_path();
    if (!path) {
        snprintf(why, n, "no default alert rules file found");
        return -1;
    }
    local_alerts *la = calloc(1, sizeof *la);
    int gpus = m->ngpus ? m->ngpus : 1;
    if (la) {
        la->e = alert_engine_new();
        la->r = ring_new(gpus, TOP_HISTORY);
        la->pushed = calloc((size_t)gpus, sizeof *la->pushed);
        la->latest = calloc((size_t)gpus, sizeof *la->latest);
    }
    if (!la || !la->e || !la->r || !la->pushed || !la->latest) {
        local_free(la);
        free(path);
        snprintf(why, n, "out of memory");
        return -1;
    }
    char *errs = NULL;
    size_t errlen = 0;
    FILE *ef = open_memstream(&errs, &errlen);
    int bad = ef ? alert_engine_load(la->e, path, ef) : 1;
    if (ef)
        fclose(ef);
    if (bad) {
        snprintf(why, n, "alert rules %s: %s", path, errs && *errs ? errs : "cannot be read");
        free(errs);
        free(path);
        local_free(la);
        return -1;
    }
    free(errs);
    int nf = top_rule_fors_read(path, la->fors, MAX_RULE_FORS);
    la->nfors = nf > 0 ? nf : 0;
    free(path);
    /* The panel agrees with the colours: top's thresholds replace the rules' ones. */
    alert_engine_set_threshold(la->e, "GPUTemperatureWarning", th->temp_warn);
    alert_engine_set_threshold(la->e, "GPUTemperatureCritical", th->temp_crit);
    alert_engine_set_threshold(la->e, "GPUMemoryTemperatureWarning", th->hbm_warn);
    alert_engine_set_threshold(la->e, "GPUMemoryTemperatureCritical", th->hbm_crit);
    la->m = m;
    la->ngpus = m->ngpus;
    la->cache_gpu = -1;
    la->src = (sample_source){.ctx = la,
                              .gpu_count = src_count,
                              .gpu_info = src_info,
                              .each = src_each,
                              .latest = src_latest,
                              .procs = src_procs};
    if (top_source_hook(src, eval_after_refresh, local_free, la) != 0) {
        snprintf(why, n, "too many hooks");
        return -1;
    }
    return 0;
}
