/* gpusim.c - the gpusim command: `render` writes a scenario's values as CSV without waiting
 * (the same values the simulated library reports at those times), `check` validates one. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "catalog.h"
#include "gpu_list.h"
#include "util.h"
#include "model.h"
#include "scenario.h"
#include "doc.h"

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: gpusim render SCENARIO [--step 1s] [--duration 10m] [--start 0s] [--gpu LIST]\n"
        "                              [--metrics F,F,...| --processes]\n"
        "       gpusim check SCENARIO\n"
        "\n"
        "render  writes CSV at once: header t,gpu,<field>,...; one row per GPU per step, t in seconds.\n"
        "        Values are those libnvidia-ml.so.1 (gpusim) reports at that scenario time, in the\n"
        "        catalog's units; NOT_SUPPORTED metrics and GPUs inside a lost window are empty.\n"
        "        --gpu takes indices and ranges (0,2,5-7); --metrics catalog field names (default: all numbers).\n"
        "        --processes writes the active processes instead: t,gpu,pid,name,type,used_memory_mib,sm,mem,enc,dec\n"
        "        (utilizations the scenario does not give are empty).\n"
        "check   loads the scenario; on error prints FILE:LINE:COL: what was expected, and exits 1.\n"
        "\n"
        "Scenario format: docs/gpusim.md. Durations: 500ms, 10s, 5m, 1h or plain seconds.\n");
}

/* Shortest decimal text that reads back as exactly v. */
static void print_number(double v)
{
    char buf[64];
    if (v == floor(v) && fabs(v) < 1e17) {
        printf("%.0f", v);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*f", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, stdout);
}

/* --metrics: catalog field names, each checked (the closest one for a typo); the ids go to
 * render_opts.ms. */
static int check_metrics(const gw_opt *opt, const char *list, void *out, char *why, size_t n);

static void render_row(scenario *sc, int gpu, double t, const metric_id *ms, int nm)
{
    print_number(t);
    printf(",%d", gpu);
    int lost = sim_lost(sc, gpu, t);
    for (int i = 0; i < nm; i++) {
        double v;
        char s[128];
        putchar(',');
        if (lost)
            continue;
        if (metric_is_string(ms[i])) {
            if (sim_string(sc, gpu, ms[i], s, sizeof s) == 0)
                fputs(s, stdout);
        } else if (sim_value(sc, gpu, ms[i], t, &v) == 0)
            print_number(v);
    }
    putchar('\n');
}

static void optional_pct(int has, double v)
{
    putchar(',');
    if (has)
        print_number(v);
}

/* One row per process active on gpu at t (nothing while the GPU is lost). */
static void render_processes(scenario *sc, int gpu, double t)
{
    sim_proc_sample ps[256];
    if (sim_lost(sc, gpu, t))
        return;
    int n = sim_processes(sc, gpu, t, ps, 256);
    for (int i = 0; i < n && i < 256; i++) {
        static const char *const types[] = {"", "C", "G", "C+G"};
        print_number(t);
        printf(",%d,%u,%s,%s,", gpu, ps[i].pid, ps[i].def->name, types[ps[i].type & 3]);
        print_number(ps[i].mem_mib);
        optional_pct(ps[i].has_sm, ps[i].sm);
        optional_pct(ps[i].has_mem, ps[i].mem);
        optional_pct(ps[i].has_enc, ps[i].enc);
        optional_pct(ps[i].has_dec, ps[i].dec);
        putchar('\n');
    }
}

typedef struct render_opts {
    const char *gpus, *metrics;
    metric_id ms[M_COUNT];
    int nm;
    int processes;
    double step, duration, start;
} render_opts;

static int check_metrics(const gw_opt *opt, const char *list, void *out, char *why, size_t n)
{
    render_opts *o = out;
    char name[128];
    o->nm = 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        snprintf(name, sizeof name, "%.*s", (int)len, p);
        const metric_def *m = catalog_find(name);
        if (!m) {
            char best[GW_SUGGEST_LEN] = "";
            catalog_suggest(name, best, sizeof best);
            snprintf(why, n, "unknown metric '%s'%s%s%s", name, best[0] ? " \xe2\x80\x94 did you mean '" : "", best,
                     best[0] ? "'?" : "");
            return -1;
        }
        if (o->nm < M_COUNT)
            o->ms[o->nm++] = m->id;
        p += len + (p[len] == ',');
    }
    if (o->nm == 0) {
        snprintf(why, n, "no metric in '%s'", list);
        return -1;
    }
    *(const char **)gw_opt_dst(opt, out) = list;
    return 0;
}

#define AT(field) .off = offsetof(render_opts, field)

static const gw_opt render_rows[] = {
    {"--step", GW_OPT_DURATION, AT(step), .min = 0.001},
    {"--duration", GW_OPT_DURATION, AT(duration)},
    {"--start", GW_OPT_DURATION, AT(start)},
    {"--gpu", GW_OPT_CUSTOM, AT(gpus), .check = gpu_list_check},
    {"--metrics", GW_OPT_CUSTOM, AT(metrics), .check = check_metrics},
    {"--processes", GW_OPT_FLAG, AT(processes)},
    {0},
};

static const gw_cmd render_cmd = {.name = "render",
                                  .prog = "gpusim",
                                  .opts = render_rows,
                                  .usage_fn = usage,
                                  .min_args = 1,
                                  .max_args = 1,
                                  .args_name = "a scenario file"};
static const gw_cmd check_cmd = {
    .name = "check", .prog = "gpusim", .usage_fn = usage, .min_args = 1, .max_args = 1, .args_name = "a scenario file"};
static const gw_cmd help_cmd = {.name = "help", .prog = "gpusim", .usage_fn = usage};
static const gw_cmd *const subcommands[] = {&render_cmd, &check_cmd, &help_cmd, NULL};
static const gw_cmd gpusim_cmd = {.prog = "gpusim", .usage_fn = usage, .subs = subcommands, .needs_sub = 1};

/* The mistakes between the options, and the work they ask for bounded. */
static int check_render_opts(const render_opts *o)
{
    if (o->start + o->duration > SIM_MAX_T)
        return gw_usage_error(&render_cmd, "--duration: render at most one week of scenario time");
    if (o->duration / o->step > 1e8)
        return gw_usage_error(&render_cmd, "--step: too many steps (at most 100000000)");
    if (o->processes && o->metrics)
        return gw_usage_error(&render_cmd, "--processes and --metrics exclude each other");
    return GW_ARGS_RUN;
}

static int render(const gw_args *a, render_opts *o)
{
    if (check_render_opts(o) != GW_ARGS_RUN)
        return 2;
    char err[1024];
    scenario *sc = scenario_load(a->pos[0], err, sizeof err);
    if (!sc) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    unsigned char sel[SIM_MAX_GPUS] = {0};
    if (!o->metrics)
        for (int m = M_STR_END; m < M_COUNT; m++)
            o->ms[o->nm++] = (metric_id)m;
    char why[256];
    if (gpu_list_select(o->gpus, sc->ngpus, NULL, sel, why, sizeof why) != 0) {
        gw_usage_error(&render_cmd, "--gpu: %s", why);
        scenario_free(sc);
        return 2;
    }
    long steps = (long)floor(o->duration / o->step + 1e-9);
    if (o->processes) {
        puts("t,gpu,pid,name,type,used_memory_mib,sm,mem,enc,dec");
        for (long k = 0; k <= steps; k++)
            for (int g = 0; g < sc->ngpus; g++)
                if (sel[g])
                    render_processes(sc, g, o->start + (double)k * o->step);
    } else {
        fputs("t,gpu", stdout);
        for (int i = 0; i < o->nm; i++)
            printf(",%s", metric_catalog[o->ms[i]].field);
        putchar('\n');
        for (long k = 0; k <= steps; k++)
            for (int g = 0; g < sc->ngpus; g++)
                if (sel[g])
                    render_row(sc, g, o->start + (double)k * o->step, o->ms, o->nm);
    }
    scenario_free(sc);
    return 0;
}

static int check(const char *path)
{
    char err[1024];
    scenario *sc = scenario_load(path, err, sizeof err);
    if (!sc) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    printf("%s: ok (%d GPUs, %d events, %d faults)\n", path, sc->ngpus, sc->nevents, sc->nfaults);
    scenario_free(sc);
    return 0;
}

int main(int argc, char **argv)
{
    render_opts o = {.step = 1, .duration = 600};
    gw_args a;
    int rc = gw_args_parse(&gpusim_cmd, argc, argv, &o, &a);
    if (rc != GW_ARGS_RUN)
        return gw_args_exit(rc);
    if (a.cmd == &help_cmd) {
        usage(stdout);
        return 0;
    }
    return a.cmd == &render_cmd ? render(&a, &o) : check(a.pos[0]);
}
