/* summary_text.c - the summary a person reads in ten seconds (summary.h). */
#include "summary.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static void mib_text(double mib, char *out, size_t n)
{
    if (isnan(mib))
        snprintf(out, n, "?");
    else if (mib >= 1024)
        snprintf(out, n, "%.1f GiB", mib / 1024);
    else
        snprintf(out, n, "%.0f MiB", mib);
}

static void energy_text(double j, char *out, size_t n)
{
    if (isnan(j))
        snprintf(out, n, "unknown");
    else if (j >= 3.6e5)
        snprintf(out, n, "%.3f kWh", j / 3.6e6);
    else
        snprintf(out, n, "%.0f J = %.3g Wh", j, j / 3600);
}

static void pct(gw_buf *b, const char *label, double v)
{
    if (!isnan(v))
        buf_printf(b, "%s%.0f %%", label, v);
}

static void throttle_text(double s, double window, char *out, size_t n)
{
    char d[32];
    if (s <= 0) {
        snprintf(out, n, "none");
        return;
    }
    summary_duration(s, d, sizeof d);
    if (window > 0)
        snprintf(out, n, "%s (%.0f %%)", d, 100 * s / window);
    else
        snprintf(out, n, "%s", d);
}

static void gpu_line(gw_buf *b, const gpu_stats *g)
{
    char used[32], total[32];
    mib_text(g->mem_peak_mib, used, sizeof used);
    mib_text(g->mem_total_mib, total, sizeof total);
    buf_printf(b, "  GPU %-6d", g->index);
    if (!g->nsamples) {
        buf_puts(b, "no readings\n");
        return;
    }
    buf_printf(b, "util %.0f %% avg, %.0f %% p95", g->util_avg, g->util_p95);
    pct(b, " · SM active ", g->sm_avg);
    buf_printf(b, " · memory peak %s of %s", used, total);
    if (!isnan(g->power_avg))
        buf_printf(b, " · %.0f W avg (max %.0f) of %.0f W cap", g->power_avg, g->power_max, g->power_limit);
    if (!isnan(g->temp_max))
        buf_printf(b, " · %.0f °C max", g->temp_max);
    if (!isnan(g->temp_mem_max))
        buf_printf(b, ", HBM %.0f °C", g->temp_mem_max);
    char pw[48], th[48];
    throttle_text(g->power_capped_s, g->window_s, pw, sizeof pw);
    throttle_text(g->thermal_s, g->window_s, th, sizeof th);
    buf_printf(b, "\n            throttled: power %s, thermal %s · XIDs: ", pw, th);
    if (!g->nxids)
        buf_puts(b, "none");
    for (int i = 0; i < g->nxids; i++)
        buf_printf(b, "%s%u", i ? ", " : "", g->xid_code[i]);
    if (g->lost_samples)
        buf_printf(b, " · LOST in %d readings", g->lost_samples);
    buf_putc(b, '\n');
}

static void procs_lines(gw_buf *b, const run_summary *s, const run_data *d)
{
    int shown = 0;
    for (int pass = 0; pass < 2 && shown < 6; pass++)
        for (size_t i = 0; i < d->nprocs && shown < 6; i++) {
            const run_proc *p = &d->procs[i];
            /* real GPUs: the job's processes first, then others that used its GPUs */
            if (!s->simulated && (pass == 0) != (p->in_job != 0))
                continue;
            if (s->simulated && pass == 1)
                continue;
            char mem[32];
            mib_text(p->peak_mem_mib, mem, sizeof mem);
            buf_printf(b, "%s%s pid %u%s%s%s: %s peak on GPU %d%s\n", shown ? "            " : "  processes ",
                       p->name[0] ? p->name : "?", p->pid, p->user[0] ? " (" : "", p->user, p->user[0] ? ")" : "", mem,
                       p->gpu, !s->simulated && !p->in_job ? "  NOT this job's: the GPU was shared" : "");
            shown++;
        }
    if (!shown)
        buf_puts(b, "  processes none seen on the GPUs\n");
    else if (s->simulated)
        buf_puts(b, "            (the scenario's processes: the job itself ran on this machine's CPUs)\n");
}

void summary_text(const run_summary *s, const run_data *d, gw_buf *b)
{
    const run_meta *m = &s->meta;
    char dur[32];
    summary_duration((double)(m->t_end_us - m->t_start_us) / 1e6, dur, sizeof dur);
    buf_printf(b, "gpuwatch run: job %s", m->id);
    if (m->name[0])
        buf_printf(b, " '%s'", m->name);
    if (m->signal)
        buf_printf(b, " killed by signal %d (exit %d) after %s\n", m->signal, m->exit_status, dur);
    else
        buf_printf(b, " exited %d after %s\n", m->exit_status, dur);
    buf_puts(b, "  GPUs      ");
    for (int k = 0; k < s->ngpus; k++)
        buf_printf(b, "%s%d", k ? ", " : "", s->g[k].index);
    if (s->ngpus)
        buf_printf(b, " (%s)", s->g[0].name);
    buf_printf(b, ", read %s every %g s\n", s->source, m->interval_s);
    if (s->simulated)
        buf_puts(b, "            SIMULATED GPUs (gpusim): the GPU readings come from the scenario and relate to the "
                    "job by time only\n");
    char e[64];
    energy_text(s->energy_j, e, sizeof e);
    buf_printf(b, "  energy    %s (%s)", e, s->energy_all_counter ? "energy counter" : "power integrated");
    if (!isnan(s->cost))
        buf_printf(b, s->cost >= 0.1 ? " · cost %.2f at %g per kWh" : " · cost %.2g at %g per kWh", s->cost,
                   m->price_per_kwh);
    if (!isnan(s->co2_g))
        buf_printf(b, s->co2_g >= 10 ? " · %.0f g CO₂ at %g g/kWh" : " · %.2g g CO₂ at %g g/kWh", s->co2_g,
                   m->carbon_g_per_kwh);
    buf_putc(b, '\n');
    for (int k = 0; k < s->ngpus; k++)
        gpu_line(b, &s->g[k]);
    procs_lines(b, s, d);
    char rss[32];
    mib_text(s->host_rss_peak_mib, rss, sizeof rss);
    buf_puts(b, "  host      ");
    if (!isnan(s->host_cpu_avg))
        buf_printf(b, "CPU %.0f %% avg (max %.0f %%), ", s->host_cpu_avg, s->host_cpu_max);
    buf_printf(b, "RSS peak %s, processes at most %d · %s\n", rss, s->host_nprocs_max, m->binding);
    const step_stats *st = &s->steps;
    if (st->nsteps > 0) {
        buf_printf(b, "  steps     %s: %ld steps, p50 %.3f s, p95 %.3f s, %.2f steps/s", st->source, st->nsteps,
                   st->p50_s, st->p95_s, st->steps_per_s);
        if (!isnan(st->reported_steps_per_s))
            buf_printf(b, " (the job reported %.2f)", st->reported_steps_per_s);
        if (!isnan(st->first_loss))
            buf_printf(b, " · loss %.4g -> %.4g", st->first_loss, st->last_loss);
        buf_putc(b, '\n');
        if (s->gaps.valid)
            buf_printf(b, "            %.0f %% of %d idle gaps fall between steps (%.0f %% by chance): %s\n",
                       100 * s->gaps.share, s->gaps.ngaps, 100 * s->gaps.chance, s->gaps.verdict);
        else
            buf_printf(b, "            idle gaps: %s\n", s->gaps.verdict);
    } else {
        buf_printf(b, "  steps     none recognized in the job's output%s\n",
                   st->source[0] ? "" : " (give --step-regex RE)");
    }
    if (st->lines_skipped)
        buf_printf(b, "            %ld output lines not searched for steps: matching them took too long\n",
                   st->lines_skipped);
    if (!s->findings.n) {
        buf_puts(b, "  findings  none\n");
        return;
    }
    for (int i = 0; i < s->findings.n; i++) {
        const diag_finding *f = &s->findings.f[i];
        char sev[16];
        snprintf(sev, sizeof sev, "%s", diag_severity_name(f->severity));
        for (char *c = sev; *c; c++)
            *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
        buf_printf(b, "%s%-8s %s: %s\n", i ? "            " : "  findings  ", sev, f->detector, f->summary);
    }
}
