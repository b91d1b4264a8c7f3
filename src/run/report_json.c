/* report_json.c - a finished job as JSON, for scripts and for the HTML report (summary.h). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "summary.h"

static double rnd(double v, double unit)
{
    return round(v / unit) * unit;
}

static void num(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static void arr_num(cJSON *a, double v, double unit)
{
    cJSON_AddItemToArray(a, isfinite(v) ? cJSON_CreateNumber(rnd(v, unit)) : cJSON_CreateNull());
}

static void add_time(cJSON *o, const char *k, int64_t t_us)
{
    char buf[40];
    diag_format_time((uint64_t)t_us, buf, sizeof buf);
    cJSON_AddStringToObject(o, k, buf);
}

/* The readings of one GPU as columns, at most max_points (bucket means beyond that; 0: all). */
static cJSON *gpu_series(const run_gpu *g, int64_t t0, int simulated, size_t max_points)
{
    cJSON *s = cJSON_CreateObject();
    enum { T, SIMT, UTIL, SM, MEM, PWR, LIM, TEMP, TMEM, CLK, NCOL };
    static const char *const names[NCOL] = {"t",
                                            "sim_t",
                                            "utilization",
                                            "sm_active",
                                            "memory_used_mib",
                                            "power_w",
                                            "power_limit_w",
                                            "temperature_c",
                                            "temperature_memory_c",
                                            "clock_sm_mhz"};
    cJSON *col[NCOL];
    simulated = simulated && g->n && g->pts[0].sim_t >= 0; /* an agent's readings have no scenario time */
    for (int c = 0; c < NCOL; c++)
        col[c] = (c == SIMT && !simulated) ? NULL : cJSON_AddArrayToObject(s, names[c]);
    size_t per = (max_points && g->n > max_points) ? (g->n + max_points - 1) / max_points : 1;
    for (size_t i = 0; i < g->n; i += per) {
        double sum[NCOL] = {0};
        int cnt[NCOL] = {0};
        size_t end = i + per < g->n ? i + per : g->n;
        for (size_t k = i; k < end; k++) {
            const run_point *p = &g->pts[k];
            double v[NCOL] = {(double)(p->t_us - t0) / 1e6,
                              p->sim_t,
                              p->util,
                              p->sm_active,
                              p->mem_used,
                              p->power,
                              p->power_limit,
                              p->temp,
                              p->temp_mem,
                              p->clock_sm};
            for (int c = 0; c < NCOL; c++)
                if (isfinite(v[c]) && (c <= SIMT || !p->lost)) {
                    sum[c] += v[c];
                    cnt[c]++;
                }
        }
        for (int c = 0; c < NCOL; c++)
            if (col[c])
                arr_num(col[c], cnt[c] ? sum[c] / cnt[c] : NAN, c <= SIMT ? 0.001 : 0.01);
    }
    return s;
}

static cJSON *gpu_json(const gpu_stats *g, const run_gpu *rg, int64_t t0, int simulated, size_t max_points)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", g->index);
    cJSON_AddStringToObject(o, "uuid", g->uuid);
    cJSON_AddStringToObject(o, "name", g->name);
    cJSON_AddNumberToObject(o, "samples", g->nsamples);
    cJSON_AddNumberToObject(o, "lost_samples", g->lost_samples);
    cJSON *u = cJSON_AddObjectToObject(o, "utilization");
    num(u, "avg", g->util_avg);
    num(u, "p95", g->util_p95);
    num(o, "sm_active_avg", g->sm_avg);
    cJSON *m = cJSON_AddObjectToObject(o, "memory");
    num(m, "peak_mib", g->mem_peak_mib);
    num(m, "total_mib", g->mem_total_mib);
    cJSON *p = cJSON_AddObjectToObject(o, "power");
    num(p, "avg_w", g->power_avg);
    num(p, "max_w", g->power_max);
    num(p, "limit_w", g->power_limit);
    num(o, "energy_j", g->energy_j);
    cJSON_AddStringToObject(o, "energy_source", g->energy_from_counter ? "counter" : "power integrated");
    num(o, "window_s", g->window_s);
    cJSON *th = cJSON_AddObjectToObject(o, "throttle");
    num(th, "power_s", g->power_capped_s);
    num(th, "thermal_s", g->thermal_s);
    cJSON *t = cJSON_AddObjectToObject(o, "temperature");
    num(t, "gpu_max_c", g->temp_max);
    num(t, "memory_max_c", g->temp_mem_max);
    cJSON *x = cJSON_AddArrayToObject(o, "xids");
    for (int i = 0; i < g->nxids; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "code", g->xid_code[i]);
        add_time(e, "time", g->xid_t_us[i]);
        cJSON_AddItemToArray(x, e);
    }
    if (rg)
        cJSON_AddItemToObject(o, "series", gpu_series(rg, t0, simulated, max_points));
    return o;
}

/* At most max_points marks, neighbours merged beyond that (their steps' mean time). */
static void marks_json(cJSON *arr, const step_parser *sp, int64_t t0, size_t max_points)
{
    const step_mark *m = NULL;
    size_t n = sp ? steps_marks(sp, &m) : 0;
    size_t per = n > max_points ? (n + max_points - 1) / max_points : 1;
    for (size_t i = 0; i < n; i += per) {
        size_t end = i + per < n ? i + per : n;
        double sum = 0;
        long steps = 0;
        for (size_t k = i; k < end; k++) {
            sum += m[k].step_s * (double)m[k].steps;
            steps += m[k].steps;
        }
        cJSON *e = cJSON_CreateArray();
        arr_num(e, (double)(m[end - 1].t_us - t0) / 1e6, 0.001);
        arr_num(e, sum / (double)steps, 1e-6);
        cJSON_AddItemToArray(e, cJSON_CreateNumber((double)steps));
        cJSON_AddItemToArray(arr, e);
    }
}

static cJSON *steps_json(const run_summary *s, const step_parser *sp, int64_t t0, size_t max_marks)
{
    const step_stats *st = &s->steps;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "source", st->source);
    cJSON_AddNumberToObject(o, "steps", (double)st->nsteps);
    cJSON_AddNumberToObject(o, "lines", (double)st->nlines);
    cJSON_AddNumberToObject(o, "lines_not_searched", (double)st->lines_skipped);
    num(o, "p50_s", st->p50_s);
    num(o, "p95_s", st->p95_s);
    num(o, "mean_s", st->mean_s);
    num(o, "steps_per_s", st->steps_per_s);
    num(o, "reported_steps_per_s", st->reported_steps_per_s);
    num(o, "first_loss", st->first_loss);
    num(o, "last_loss", st->last_loss);
    marks_json(cJSON_AddArrayToObject(o, "marks"), sp, t0, max_marks);
    cJSON *g = cJSON_AddObjectToObject(o, "idle_gaps");
    cJSON_AddBoolToObject(g, "valid", s->gaps.valid);
    cJSON_AddNumberToObject(g, "gaps", s->gaps.ngaps);
    cJSON_AddNumberToObject(g, "between_steps", s->gaps.between);
    num(g, "share", s->gaps.valid ? s->gaps.share : NAN);
    num(g, "chance", s->gaps.valid ? s->gaps.chance : NAN);
    cJSON_AddStringToObject(g, "verdict", s->gaps.verdict);
    return o;
}

char *summary_json(const run_summary *s, const run_data *d, const step_parser *sp, int with_series)
{
    const run_meta *m = &s->meta;
    int64_t t0 = m->t_start_us;
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    cJSON *j = cJSON_AddObjectToObject(root, "job");
    cJSON_AddStringToObject(j, "id", m->id);
    cJSON_AddStringToObject(j, "name", m->name);
    cJSON_AddStringToObject(j, "command", m->command);
    cJSON_AddStringToObject(j, "user", m->user);
    cJSON_AddStringToObject(j, "host", m->host);
    cJSON_AddStringToObject(j, "cwd", m->cwd);
    add_time(j, "start", m->t_start_us);
    add_time(j, "end", m->t_end_us);
    cJSON_AddNumberToObject(j, "start_unix", rnd((double)m->t_start_us / 1e6, 0.001));
    cJSON_AddNumberToObject(j, "end_unix", rnd((double)m->t_end_us / 1e6, 0.001));
    cJSON_AddNumberToObject(j, "duration_s", rnd((double)(m->t_end_us - m->t_start_us) / 1e6, 0.001));
    cJSON_AddNumberToObject(j, "exit_status", m->exit_status);
    if (m->signal)
        cJSON_AddNumberToObject(j, "signal", m->signal);
    else
        cJSON_AddNullToObject(j, "signal");
    cJSON_AddBoolToObject(j, "simulated", s->simulated);
    cJSON_AddStringToObject(j, "source", s->source);
    cJSON_AddNumberToObject(j, "interval_s", m->interval_s);
    cJSON_AddStringToObject(j, "binding", m->binding);
    cJSON *e = cJSON_AddObjectToObject(root, "energy");
    num(e, "joules", s->energy_j);
    num(e, "kwh", s->energy_j / 3.6e6);
    cJSON_AddStringToObject(e, "source", s->energy_all_counter ? "counter" : "power integrated");
    num(e, "price_per_kwh", m->price_per_kwh);
    num(e, "cost", s->cost);
    num(e, "carbon_g_per_kwh", m->carbon_g_per_kwh);
    num(e, "co2_g", s->co2_g);
    cJSON *gs = cJSON_AddArrayToObject(root, "gpus");
    for (int k = 0; k < s->ngpus; k++)
        cJSON_AddItemToArray(gs, gpu_json(&s->g[k], with_series ? &d->gpus[k] : NULL, t0, s->simulated,
                                          with_series > 1 ? (size_t)with_series : 0));
    cJSON *ps = cJSON_AddArrayToObject(root, "processes");
    for (size_t i = 0; i < d->nprocs; i++) {
        const run_proc *p = &d->procs[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "gpu", p->gpu);
        cJSON_AddNumberToObject(o, "pid", p->pid);
        cJSON_AddStringToObject(o, "name", p->name);
        cJSON_AddStringToObject(o, "user", p->user);
        cJSON_AddBoolToObject(o, "in_job", p->in_job);
        num(o, "peak_memory_mib", p->peak_mem_mib);
        num(o, "peak_sm", p->peak_sm);
        cJSON_AddItemToArray(ps, o);
    }
    cJSON *h = cJSON_AddObjectToObject(root, "host");
    num(h, "cpu_avg_percent", s->host_cpu_avg);
    num(h, "cpu_max_percent", s->host_cpu_max);
    num(h, "rss_peak_mib", s->host_rss_peak_mib);
    cJSON_AddNumberToObject(h, "processes_max", s->host_nprocs_max);
    if (with_series) {
        cJSON *hs = cJSON_AddObjectToObject(h, "series");
        cJSON *ht = cJSON_AddArrayToObject(hs, "t"), *hc = cJSON_AddArrayToObject(hs, "cpu_percent");
        cJSON *hr = cJSON_AddArrayToObject(hs, "rss_mib");
        size_t per = with_series > 1 && d->nhost > (size_t)with_series ? d->nhost / (size_t)with_series + 1 : 1;
        for (size_t i = 0; i < d->nhost; i += per) {
            arr_num(ht, (double)(d->host[i].t_us - t0) / 1e6, 0.001);
            arr_num(hc, d->host[i].cpu_percent, 0.1);
            arr_num(hr, d->host[i].rss_mib, 0.1);
        }
    }
    size_t max_marks = with_series > 1 ? (size_t)with_series : with_series ? SUMMARY_JSON_MARKS : SUMMARY_ROW_MARKS;
    cJSON_AddItemToObject(root, "steps", steps_json(s, sp, t0, max_marks));
    char *fj = diag_report_json(&s->findings, 0);
    cJSON *f = fj ? cJSON_Parse(fj) : NULL;
    free(fj);
    cJSON *arr = f ? cJSON_DetachItemFromObjectCaseSensitive(f, "findings") : NULL;
    cJSON_Delete(f);
    cJSON_AddItemToObject(root, "findings", arr ? arr : cJSON_CreateArray());
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}
