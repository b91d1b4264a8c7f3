/* gpusim.c - the gpusim command: `render` writes a scenario's values as CSV without waiting
 * (the same values the simulated library reports at those times), `check` validates one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog.h"
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

static int parse_gpu_list(const char *s, int n, unsigned char *sel)
{
    char *copy = strdup(s), *save = NULL;
    int rc = copy ? 0 : -1;
    for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        long a = strtol(tok, &end, 10), b = a;
        if (end == tok) {
            rc = -1;
            break;
        }
        if (*end == '-') {
            char *e2;
            b = strtol(end + 1, &e2, 10);
            if (e2 == end + 1 || *e2)
                rc = -1;
        } else if (*end)
            rc = -1;
        if (rc == 0 && (a < 0 || b >= n || a > b))
            rc = -1;
        for (long i = a; rc == 0 && i <= b; i++)
            sel[i] = 1;
    }
    free(copy);
    return rc;
}

/* Metric ids from a comma list of catalog names; returns the count or -1. */
static int parse_metrics(const char *s, metric_id *out, int max)
{
    char *copy = strdup(s), *save = NULL;
    int n = 0;
    for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
        const metric_def *m = catalog_find(tok);
        if (!m) {
            char best[GW_SUGGEST_LEN];
            if (catalog_suggest(tok, best, sizeof best))
                fprintf(stderr, "gpusim: unknown metric '%s' \xe2\x80\x94 did you mean '%s'?\n", tok, best);
            else
                fprintf(stderr, "gpusim: unknown metric '%s'\n", tok);
            n = -1;
            break;
        }
        if (n < max)
            out[n++] = m->id;
    }
    free(copy);
    return copy ? n : -1;
}

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

typedef struct {
    const char *scenario, *gpus, *metrics;
    int processes;
    double step, duration, start;
} render_opts;

static int parse_render_opts(int argc, char **argv, render_opts *o)
{
    *o = (render_opts){.step = 1, .duration = 600};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        double *dst = strcmp(a, "--step") == 0       ? &o->step
                      : strcmp(a, "--duration") == 0 ? &o->duration
                      : strcmp(a, "--start") == 0    ? &o->start
                                                     : NULL;
        if (dst) {
            if (!v || gw_parse_duration(v, dst) != 0) {
                fprintf(stderr, "gpusim: %s needs a duration\n", a);
                return -1;
            }
            i++;
        } else if (strcmp(a, "--gpu") == 0 && v) {
            o->gpus = v;
            i++;
        } else if (strcmp(a, "--metrics") == 0 && v) {
            o->metrics = v;
            i++;
        } else if (strcmp(a, "--processes") == 0)
            o->processes = 1;
        else if (a[0] != '-' && !o->scenario)
            o->scenario = a;
        else {
            fprintf(stderr, "gpusim: unexpected argument '%s'\n", a);
            return -1;
        }
    }
    if (!o->scenario) {
        fprintf(stderr, "gpusim: render needs a scenario file\n");
        return -1;
    }
    if (o->step <= 0) {
        fprintf(stderr, "gpusim: --step must be above 0\n");
        return -1;
    }
    if (o->start + o->duration > SIM_MAX_T) {
        fprintf(stderr, "gpusim: render at most one week of scenario time\n");
        return -1;
    }
    if (o->duration / o->step > 1e8) {
        fprintf(stderr, "gpusim: too many steps\n");
        return -1;
    }
    if (o->processes && o->metrics) {
        fprintf(stderr, "gpusim: --processes and --metrics exclude each other\n");
        return -1;
    }
    return 0;
}

static int cmd_render(int argc, char **argv)
{
    render_opts o;
    if (parse_render_opts(argc, argv, &o) != 0)
        return 2;
    char err[1024];
    scenario *sc = scenario_load(o.scenario, err, sizeof err);
    if (!sc) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    metric_id ms[M_COUNT];
    int nm = 0, rc = 0;
    unsigned char sel[SIM_MAX_GPUS] = {0};
    if (o.metrics)
        nm = parse_metrics(o.metrics, ms, M_COUNT);
    else
        for (int m = M_STR_END; m < M_COUNT; m++)
            ms[nm++] = (metric_id)m;
    if (nm < 0)
        rc = 2;
    if (rc == 0 && o.gpus && parse_gpu_list(o.gpus, sc->ngpus, sel) != 0) {
        fprintf(stderr, "gpusim: bad --gpu '%s' (the scenario has %d GPUs)\n", o.gpus, sc->ngpus);
        rc = 2;
    }
    if (rc == 0 && o.processes) {
        puts("t,gpu,pid,name,type,used_memory_mib,sm,mem,enc,dec");
        long steps = (long)floor(o.duration / o.step + 1e-9);
        for (long k = 0; k <= steps; k++)
            for (int g = 0; g < sc->ngpus; g++)
                if (!o.gpus || sel[g])
                    render_processes(sc, g, o.start + (double)k * o.step);
    } else if (rc == 0) {
        fputs("t,gpu", stdout);
        for (int i = 0; i < nm; i++)
            printf(",%s", metric_catalog[ms[i]].field);
        putchar('\n');
        long steps = (long)floor(o.duration / o.step + 1e-9);
        for (long k = 0; k <= steps; k++)
            for (int g = 0; g < sc->ngpus; g++)
                if (!o.gpus || sel[g])
                    render_row(sc, g, o.start + (double)k * o.step, ms, nm);
    }
    scenario_free(sc);
    return rc;
}

static int cmd_check(int argc, char **argv)
{
    if (argc != 3) {
        usage(stderr);
        return 2;
    }
    char err[1024];
    scenario *sc = scenario_load(argv[2], err, sizeof err);
    if (!sc) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    printf("%s: ok (%d GPUs, %d events, %d faults)\n", argv[2], sc->ngpus, sc->nevents, sc->nfaults);
    scenario_free(sc);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "render") == 0)
        return cmd_render(argc, argv);
    if (strcmp(argv[1], "check") == 0)
        return cmd_check(argc, argv);
    fprintf(stderr, "gpusim: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
