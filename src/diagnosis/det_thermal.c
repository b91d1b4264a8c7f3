/* det_thermal.c - thermal: the GPU slows down for heat (NVML's sw/hw thermal slowdown clock event
 * reasons), or runs hot for a sustained time: core >= 80 C warning, >= 90 C critical, HBM >= 95 /
 * 105 C; lower where the GPU's own limits (slowdown, maximum operating and HBM maximum
 * temperatures) are lower. */
#include "diag_internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MERGE_US 10000000ull /* readings under a threshold for less than 10 s do not split a run */
#define MAX_RUNS 256

typedef struct {
    double sw_s, hw_s;             /* time with each thermal reason */
    uint64_t from, to;             /* first and last time hot or throttled */
    double warn_run_s, crit_run_s; /* longest runs above the core thresholds */
    double mem_warn_run_s, mem_crit_run_s;
    double max_c, max_mem_c;
    double warn_c, crit_c, mem_warn_c, mem_crit_c;
} heat;

static void span_add(heat *h, uint64_t from, uint64_t to)
{
    if (h->from == 0 || from < h->from)
        h->from = from;
    if (to > h->to)
        h->to = to;
}

/* Seconds each thermal reason was set, over the readings of s. */
static void reasons(const diag_gpu *g, const diag_series *s, uint64_t step, heat *h)
{
    int hint = 0;
    for (int i = 0; i < s->n; i++) {
        unsigned cer = (unsigned)diag_step_at(&g->s[DS_CER], s->t[i], 0, &hint);
        uint64_t d = i + 1 < s->n && s->t[i + 1] - s->t[i] <= 2 * step ? s->t[i + 1] - s->t[i] : step;
        if (cer & CER_SW_THERMAL)
            h->sw_s += (double)d / 1e6;
        if (cer & CER_HW_THERMAL)
            h->hw_s += (double)d / 1e6;
        if (cer & (CER_SW_THERMAL | CER_HW_THERMAL))
            span_add(h, s->t[i], s->t[i] + d);
    }
}

/* The longest run of s >= thr, in seconds; adds the runs to h's span. */
static double longest(const diag_series *s, uint64_t step, double thr, heat *h, double min_s)
{
    unsigned char *mask = malloc((size_t)s->n);
    dstat_run *runs = malloc(MAX_RUNS * sizeof *runs);
    double best = 0;
    if (mask && runs) {
        for (int i = 0; i < s->n; i++)
            mask[i] = s->v[i] >= thr;
        int k = dstat_runs(s->t, mask, s->n, step, MERGE_US, runs, MAX_RUNS);
        for (int i = 0; i < k && i < MAX_RUNS; i++) {
            double d = (double)(runs[i].to_us - runs[i].from_us) / 1e6;
            if (d > best)
                best = d;
            if (d >= min_s)
                span_add(h, runs[i].from_us, runs[i].to_us);
        }
    }
    free(mask);
    free(runs);
    return best;
}

static double series_max(const diag_series *s)
{
    double m = NAN;
    for (int i = 0; i < s->n; i++)
        if (isnan(m) || s->v[i] > m)
            m = s->v[i];
    return m;
}

static void thresholds(const diag_gpu *g, const diag_config *cfg, heat *h)
{
    double margin = cfg->thermal.margin_c;
    h->warn_c = cfg->thermal.gpu_warn_c;
    h->crit_c = cfg->thermal.gpu_crit_c;
    if (!isnan(g->temp_slowdown_c)) {
        h->warn_c = fmin(h->warn_c, g->temp_slowdown_c - margin);
        h->crit_c = fmin(h->crit_c, g->temp_slowdown_c);
    }
    if (!isnan(g->temp_gpu_max_c))
        h->warn_c = fmin(h->warn_c, g->temp_gpu_max_c);
    h->mem_warn_c = cfg->thermal.mem_warn_c;
    h->mem_crit_c = cfg->thermal.mem_crit_c;
    if (!isnan(g->temp_mem_max_c)) {
        h->mem_warn_c = fmin(h->mem_warn_c, g->temp_mem_max_c - margin);
        h->mem_crit_c = fmin(h->mem_crit_c, g->temp_mem_max_c);
    }
}

static void report(diag_ctx *c, const diag_gpu_view *v, const heat *h, int critical)
{
    const diag_config *cfg = c->cfg;
    diag_finding *f = diag_emit(c, "thermal", critical ? DIAG_CRITICAL : DIAG_WARNING, v->gpu, h->from, h->to);
    if (!f)
        return;
    f->score = (h->sw_s + h->hw_s) / 60 + h->warn_run_s / 600 + (isnan(h->max_c) ? 0 : h->max_c / 100);
    if (!isnan(h->max_c))
        diag_finding_num(f, "max_temp_c", h->max_c, "C");
    diag_finding_num(f, "warn_threshold_c", h->warn_c, "C");
    diag_finding_num(f, "critical_threshold_c", h->crit_c, "C");
    diag_finding_num(f, "time_above_warn_s", h->warn_run_s, "s");
    if (!isnan(v->g->temp_slowdown_c))
        diag_finding_num(f, "slowdown_temp_c", v->g->temp_slowdown_c, "C");
    diag_finding_num(f, "sw_thermal_s", h->sw_s, "s");
    diag_finding_num(f, "hw_thermal_s", h->hw_s, "s");
    if (!isnan(h->max_mem_c))
        diag_finding_num(f, "max_memory_temp_c", h->max_mem_c, "C");
    char what[200], peak[64];
    int hw = h->hw_s >= cfg->thermal.reason_min_s;
    if (hw || h->sw_s >= cfg->thermal.reason_min_s)
        snprintf(what, sizeof what, "clocks slowed for heat for %.0f s (%s)", hw ? h->hw_s : h->sw_s,
                 hw ? "hardware thermal slowdown" : "software thermal slowdown");
    else if (h->mem_warn_run_s >= cfg->thermal.sustain_s && h->warn_run_s < cfg->thermal.sustain_s)
        snprintf(what, sizeof what, "HBM memory at %.0f C or more for %.0f s", h->mem_warn_c, h->mem_warn_run_s);
    else
        snprintf(what, sizeof what, "at %.0f C or more for %.0f s", h->warn_c, h->warn_run_s);
    /* the part that is hot: the core, the HBM (which slows the clocks at its own limit), or both */
    int hot_mem = !isnan(h->max_mem_c) && h->max_mem_c >= h->mem_warn_c;
    if (hot_mem && !isnan(h->max_c))
        snprintf(peak, sizeof peak, "peak %.0f C, HBM %.0f C", h->max_c, h->max_mem_c);
    else if (hot_mem)
        snprintf(peak, sizeof peak, "HBM peak %.0f C", h->max_mem_c);
    else
        snprintf(peak, sizeof peak, "peak %.0f C", h->max_c);
    diag_finding_summary(f, "GPU %d runs hot: %s, %s", v->gpu, what, peak);
    diag_finding_advice(f, "Check airflow: inlet temperature, blocked or missing blanking panels, clogged filters, a "
                           "failed fan in the chassis");
    diag_finding_advice(f, "Check the fan curve (boards with fans) or the chassis fan policy (passive boards) and that "
                           "fans reach full speed under load");
    diag_finding_advice(f, "Check rack placement: hot aisle recirculation, a GPU next to a hotter one; compare with "
                           "the other GPUs of the node");
    if (critical)
        diag_finding_advice(f,
                            "Hardware slowdown or a temperature near the slowdown limit halves the clocks: drain the "
                            "GPU until cooling is fixed");
    diag_chart_series(f, &v->g->s[DS_TEMP], v->gpu, "temperature.gpu", "C", h->from, h->to, 0);
}

void det_thermal(diag_ctx *c)
{
    const diag_config *cfg = c->cfg;
    float *scratch = NULL;
    for (int i = 0; i < c->n_views; i++) {
        diag_gpu_view *v = &c->views[i];
        const diag_gpu *g = v->g;
        const diag_series *temp = &g->s[DS_TEMP], *mem = &g->s[DS_TEMP_MEM];
        const diag_series *clock = temp->n ? temp : &g->s[DS_UTIL];
        if (!g->known || (clock->n < 2 && mem->n < 2))
            continue;
        heat h = {0};
        thresholds(g, cfg, &h);
        float *tmp = realloc(scratch, (size_t)(clock->n + mem->n + 1) * sizeof *tmp);
        if (!tmp)
            break;
        scratch = tmp;
        uint64_t step = clock->n >= 2 ? dstat_median_step(clock->t, clock->n, scratch) : v->step_us;
        uint64_t mstep = mem->n >= 2 ? dstat_median_step(mem->t, mem->n, scratch) : step;
        if (step == 0)
            step = 1000000;
        if (mstep == 0)
            mstep = step;
        double sustain = cfg->thermal.sustain_s;
        if (clock->n >= 2)
            reasons(g, clock, step, &h);
        h.max_c = series_max(temp);
        h.max_mem_c = series_max(mem);
        h.warn_run_s = temp->n ? longest(temp, step, h.warn_c, &h, sustain) : 0;
        h.crit_run_s = temp->n ? longest(temp, step, h.crit_c, &h, sustain) : 0;
        h.mem_warn_run_s = mem->n ? longest(mem, mstep, h.mem_warn_c, &h, sustain) : 0;
        h.mem_crit_run_s = mem->n ? longest(mem, mstep, h.mem_crit_c, &h, sustain) : 0;
        int by_reason = h.sw_s + h.hw_s >= cfg->thermal.reason_min_s;
        int hot = h.warn_run_s >= sustain || h.mem_warn_run_s >= sustain;
        if (!by_reason && !hot)
            continue;
        int critical = h.hw_s >= cfg->thermal.reason_min_s || h.crit_run_s >= sustain || h.mem_crit_run_s >= sustain;
        report(c, v, &h, critical);
    }
    free(scratch);
}
