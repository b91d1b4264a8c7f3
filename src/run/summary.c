/* summary.c - the numbers of a finished job (summary.h). */
#include "summary.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CER_POWER (0x4u | 0x80u)    /* SW power cap, HW power brake */
#define CER_THERMAL (0x20u | 0x40u) /* SW and HW thermal slowdown */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The time a reading stands for: until the next one, at most three intervals. */
static double span_s(const run_gpu *g, size_t i, double interval_s)
{
    if (i + 1 >= g->n)
        return 0;
    double dt = (double)(g->pts[i + 1].t_us - g->pts[i].t_us) / 1e6;
    return dt > 3 * interval_s ? 3 * interval_s : dt;
}

/* A reading's peaks, last values and throttled time into st. */
static void add_point(gpu_stats *st, const run_point *p, double span)
{
    if (!isnan(p->mem_used) && !(st->mem_peak_mib >= p->mem_used))
        st->mem_peak_mib = p->mem_used;
    if (!isnan(p->mem_total))
        st->mem_total_mib = p->mem_total;
    if (!isnan(p->power) && !(st->power_max >= p->power))
        st->power_max = p->power;
    if (!isnan(p->power_limit))
        st->power_limit = p->power_limit;
    if (!isnan(p->temp) && !(st->temp_max >= p->temp))
        st->temp_max = p->temp;
    if (!isnan(p->temp_mem) && !(st->temp_mem_max >= p->temp_mem))
        st->temp_mem_max = p->temp_mem;
    if (p->has_throttle) {
        if (p->throttle & CER_POWER)
            st->power_capped_s += span;
        if (p->throttle & CER_THERMAL)
            st->thermal_s += span;
    }
}

/* The energy: the counter between the first and the last reading that have it, else the power
 * integrated (trapezoids between readings close enough together). */
static void energy(gpu_stats *st, const run_gpu *g, double interval_s)
{
    const run_point *first = NULL, *last = NULL;
    double e_int = 0;
    int e_ok = 0;
    for (size_t i = 0; i < g->n; i++) {
        const run_point *p = &g->pts[i];
        if (p->lost)
            continue;
        if (!isnan(p->energy_mj)) {
            if (!first)
                first = p;
            last = p;
        }
        if (i + 1 < g->n && !g->pts[i + 1].lost && !isnan(p->power) && !isnan(g->pts[i + 1].power)) {
            double dt = (double)(g->pts[i + 1].t_us - p->t_us) / 1e6;
            if (dt > 0 && dt <= 3 * interval_s) {
                e_int += 0.5 * (p->power + g->pts[i + 1].power) * dt;
                e_ok = 1;
            }
        }
    }
    if (first && last != first && last->energy_mj >= first->energy_mj) {
        st->energy_j = (last->energy_mj - first->energy_mj) / 1e3;
        st->energy_from_counter = 1;
    } else if (e_ok) {
        st->energy_j = e_int;
    }
}

/* The power-capped time from the violation counter between the first and last readings that have
 * it, where the GPU has one: exact, where the readings only sample it. */
static void power_capped_exact(gpu_stats *st, const run_gpu *g)
{
    size_t i = 0, k = g->n;
    while (i < g->n && (g->pts[i].lost || isnan(g->pts[i].viol_power_us)))
        i++;
    while (k > i && (g->pts[k - 1].lost || isnan(g->pts[k - 1].viol_power_us)))
        k--;
    if (k == 0 || i >= k - 1)
        return;
    if (g->pts[k - 1].viol_power_us >= g->pts[i].viol_power_us)
        st->power_capped_s = (g->pts[k - 1].viol_power_us - g->pts[i].viol_power_us) / 1e6;
}

static void gpu_summary(gpu_stats *st, const run_gpu *g, double interval_s, double *scratch)
{
    memset(st, 0, sizeof *st);
    st->index = g->index;
    snprintf(st->uuid, sizeof st->uuid, "%s", g->uuid);
    snprintf(st->name, sizeof st->name, "%s", g->name);
    st->nsamples = (int)g->n;
    st->util_avg = st->util_p95 = st->sm_avg = st->mem_peak_mib = st->mem_total_mib = NAN;
    st->power_avg = st->power_max = st->power_limit = st->temp_max = st->temp_mem_max = NAN;
    st->energy_j = NAN;
    double usum = 0, ssum = 0, psum = 0;
    int un = 0, sn = 0, pn = 0;
    for (size_t i = 0; i < g->n; i++) {
        const run_point *p = &g->pts[i];
        if (p->lost) {
            st->lost_samples++;
            continue;
        }
        if (!isnan(p->util)) {
            scratch[un++] = p->util;
            usum += p->util;
        }
        if (!isnan(p->sm_active)) {
            ssum += p->sm_active;
            sn++;
        }
        if (!isnan(p->power)) {
            psum += p->power;
            pn++;
        }
        add_point(st, p, span_s(g, i, interval_s));
    }
    for (int i = 0; i < g->nxids && st->nxids < SUMMARY_MAX_XIDS; i++) {
        st->xid_code[st->nxids] = (unsigned)g->xids[i].code;
        st->xid_t_us[st->nxids++] = g->xids[i].t_us;
    }
    if (un) {
        st->util_avg = usum / un;
        qsort(scratch, (size_t)un, sizeof *scratch, cmp_double);
        st->util_p95 = scratch[(size_t)ceil(0.95 * un) - 1];
    }
    if (sn)
        st->sm_avg = ssum / sn;
    if (pn)
        st->power_avg = psum / pn;
    if (g->n >= 2)
        st->window_s = (double)(g->pts[g->n - 1].t_us - g->pts[0].t_us) / 1e6;
    energy(st, g, interval_s);
    power_capped_exact(st, g);
}

/* Median of the marks' step times (NAN none). */
static double median_step(const step_mark *m, size_t n)
{
    if (!n)
        return NAN;
    double *v = malloc(n * sizeof *v);
    if (!v)
        return NAN;
    for (size_t i = 0; i < n; i++)
        v[i] = m[i].step_s;
    qsort(v, n, sizeof *v, cmp_double);
    double r = v[n / 2];
    free(v);
    return r;
}

static void gap_summary(gap_stats *gs, const run_data *d, const step_parser *sp, const step_stats *st,
                        double interval_s)
{
    memset(gs, 0, sizeof *gs);
    const step_mark *m = NULL;
    size_t nm = sp ? steps_marks(sp, &m) : 0;
    if (st->marks_merged > 1) {
        snprintf(gs->verdict, sizeof gs->verdict,
                 "over %d step lines: each mark kept is the mean of %ld, too coarse to line up with the GPUs' idle "
                 "gaps",
                 STEPS_MAX_MARKS, st->marks_merged);
        return;
    }
    double med = median_step(m, nm);
    if (nm < 3) {
        snprintf(gs->verdict, sizeof gs->verdict, "too few steps to line up with the GPUs' idle gaps");
        return;
    }
    if (!(med >= 2 * interval_s)) {
        snprintf(gs->verdict, sizeof gs->verdict,
                 "steps (%.3g s) are shorter than twice the sampling interval (%.3g s): idle gaps cannot be placed "
                 "within steps",
                 med, interval_s);
        return;
    }
    double tol = interval_s / 2, chance_sum = 0;
    for (int k = 0; k < d->ngpus; k++) {
        const run_gpu *g = &d->gpus[k];
        /* idle: under 20 % or under a third of the GPU's busy level */
        double busy = 0;
        for (size_t i = 0; i < g->n; i++)
            if (!isnan(g->pts[i].util) && g->pts[i].util > busy)
                busy = g->pts[i].util;
        double idle_below = busy / 3 > 20 ? 20 : busy / 3;
        if (busy < 30)
            continue; /* never busy: no gaps to speak of */
        size_t i = 0;
        while (i < g->n) {
            if (g->pts[i].lost || isnan(g->pts[i].util) || g->pts[i].util >= idle_below) {
                i++;
                continue;
            }
            size_t j = i;
            while (j + 1 < g->n && !g->pts[j + 1].lost && !isnan(g->pts[j + 1].util) && g->pts[j + 1].util < idle_below)
                j++;
            int64_t a = g->pts[i].t_us - (int64_t)(tol * 1e6), b = g->pts[j].t_us + (int64_t)(tol * 1e6);
            /* only gaps while steps are being printed */
            if (a >= m[0].t_us && b <= m[nm - 1].t_us + (int64_t)(med * 1e6)) {
                gs->ngaps++;
                for (size_t s = 0; s < nm; s++)
                    if (m[s].t_us >= a && m[s].t_us <= b) {
                        gs->between++;
                        break;
                    }
                double c = ((double)(b - a) / 1e6) / med;
                chance_sum += c > 1 ? 1 : c;
            }
            i = j + 1;
        }
    }
    if (!gs->ngaps) {
        snprintf(gs->verdict, sizeof gs->verdict, "no idle gaps while steps ran");
        return;
    }
    gs->valid = 1;
    gs->share = (double)gs->between / gs->ngaps;
    gs->chance = chance_sum / gs->ngaps;
    if (gs->share >= 0.75 && gs->share > gs->chance + 0.2)
        snprintf(gs->verdict, sizeof gs->verdict,
                 "the input pipeline: the GPUs wait between steps (data loading, host work between steps)");
    else if (gs->share <= 0.35 || gs->share < gs->chance - 0.2)
        snprintf(gs->verdict, sizeof gs->verdict,
                 "inside the steps: synchronization, communication or host work within a step");
    else
        snprintf(gs->verdict, sizeof gs->verdict, "no clear pattern");
}

int summary_compute(run_summary *out, const run_meta *meta, const run_data *d, const step_parser *sp)
{
    memset(out, 0, sizeof *out);
    diag_report_init(&out->findings);
    out->meta = *meta;
    out->simulated = d->simulated;
    snprintf(out->source, sizeof out->source, "%s", d->source);
    size_t most = 1;
    for (int k = 0; k < d->ngpus; k++)
        if (d->gpus[k].n > most)
            most = d->gpus[k].n;
    double *scratch = malloc(most * sizeof *scratch);
    if (!scratch)
        return -1;
    out->ngpus = d->ngpus;
    out->energy_j = 0;
    out->energy_all_counter = 1;
    int energy_known = 0;
    for (int k = 0; k < d->ngpus; k++) {
        gpu_summary(&out->g[k], &d->gpus[k], meta->interval_s, scratch);
        if (!isnan(out->g[k].energy_j)) {
            out->energy_j += out->g[k].energy_j;
            energy_known = 1;
            out->energy_all_counter &= out->g[k].energy_from_counter;
        }
    }
    free(scratch);
    if (!energy_known)
        out->energy_j = NAN;
    double kwh = out->energy_j / 3.6e6;
    out->cost = isnan(meta->price_per_kwh) ? NAN : kwh * meta->price_per_kwh;
    out->co2_g = isnan(meta->carbon_g_per_kwh) ? NAN : kwh * meta->carbon_g_per_kwh;
    out->host_cpu_avg = out->host_cpu_max = out->host_rss_peak_mib = NAN;
    double csum = 0;
    int cn = 0;
    for (size_t i = 1; i < d->nhost; i++) { /* the first read has no CPU interval */
        const run_host_point *h = &d->host[i];
        if (h->nprocs == 0)
            continue;
        csum += h->cpu_percent;
        cn++;
        if (!(out->host_cpu_max >= h->cpu_percent))
            out->host_cpu_max = h->cpu_percent;
    }
    for (size_t i = 0; i < d->nhost; i++) {
        if (!(out->host_rss_peak_mib >= d->host[i].rss_mib) && d->host[i].nprocs)
            out->host_rss_peak_mib = d->host[i].rss_mib;
        if (d->host[i].nprocs > out->host_nprocs_max)
            out->host_nprocs_max = d->host[i].nprocs;
    }
    if (cn)
        out->host_cpu_avg = csum / cn;
    if (sp)
        steps_stats(sp, &out->steps);
    else
        memset(&out->steps, 0, sizeof out->steps);
    gap_summary(&out->gaps, d, sp, &out->steps, meta->interval_s);
    if (diag_run(d->win, NULL, &out->findings) < 0)
        return -1;
    return 0;
}

void summary_free(run_summary *s)
{
    diag_report_free(&s->findings);
}

void summary_duration(double s, char *out, size_t n)
{
    if (!(s >= 0))
        s = 0;
    long t = (long)llround(s);
    if (t >= 3600)
        snprintf(out, n, "%ldh %02ldm %02lds", t / 3600, t / 60 % 60, t % 60);
    else if (t >= 60)
        snprintf(out, n, "%ldm %02lds", t / 60, t % 60);
    else
        snprintf(out, n, "%.1f s", s);
}
