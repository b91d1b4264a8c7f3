/* gen_parse.c - parses generator mappings: constant, ramp, sine, square/pulse, steps, csv,
 * plus the modifiers noise, min and max shared by all of them. */
#include "gen_parse.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const GEN_NAMES = "constant, ramp, sine, square, pulse, steps, csv";

/* Reads a required number / duration key of mapping m; opt = optional (keeps *out). */
static int num_key(ydoc *d, const yaml_node_t *m, const char *key, int opt, double *out)
{
    yaml_node_t *v = ymap_get(d, m, key);
    if (!v)
        return opt ? 0 : yerr(d, m, "missing key '%s'", key);
    return ynumber(d, v, out);
}

static int dur_key(ydoc *d, const yaml_node_t *m, const char *key, int opt, double *out)
{
    yaml_node_t *v = ymap_get(d, m, key);
    if (!v)
        return opt ? 0 : yerr(d, m, "missing key '%s'", key);
    return yduration(d, v, out);
}

static int parse_ramp(ydoc *d, const yaml_node_t *m, sim_gen *g)
{
    static const char *const keys[] = {"from", "to", "duration", "start", NULL};
    g->kind = GEN_RAMP;
    if (ymap_check(d, m, "ramp", keys) || num_key(d, m, "from", 0, &g->u.ramp.from) ||
        num_key(d, m, "to", 0, &g->u.ramp.to) || dur_key(d, m, "duration", 0, &g->u.ramp.duration) ||
        dur_key(d, m, "start", 1, &g->u.ramp.start))
        return -1;
    return 0;
}

static int parse_sine(ydoc *d, const yaml_node_t *m, sim_gen *g)
{
    static const char *const keys[] = {"mean", "amplitude", "period", "phase", NULL};
    g->kind = GEN_SINE;
    if (ymap_check(d, m, "sine", keys) || num_key(d, m, "mean", 0, &g->u.sine.mean) ||
        num_key(d, m, "amplitude", 0, &g->u.sine.amplitude) || dur_key(d, m, "period", 0, &g->u.sine.period) ||
        dur_key(d, m, "phase", 1, &g->u.sine.phase))
        return -1;
    if (g->u.sine.period <= 0)
        return yerr(d, ymap_get(d, m, "period"), "expected a period above 0");
    return 0;
}

static int parse_square(ydoc *d, const yaml_node_t *m, sim_gen *g, const char *name)
{
    static const char *const keys[] = {"low", "high", "period", "duty", "phase", NULL};
    g->kind = GEN_SQUARE;
    g->u.square.duty = 0.5;
    if (ymap_check(d, m, name, keys) || num_key(d, m, "low", 0, &g->u.square.low) ||
        num_key(d, m, "high", 0, &g->u.square.high) || dur_key(d, m, "period", 0, &g->u.square.period) ||
        num_key(d, m, "duty", 1, &g->u.square.duty) || dur_key(d, m, "phase", 1, &g->u.square.phase))
        return -1;
    if (g->u.square.period <= 0)
        return yerr(d, ymap_get(d, m, "period"), "expected a period above 0");
    if (g->u.square.duty < 0 || g->u.square.duty > 1)
        return yerr(d, ymap_get(d, m, "duty"), "expected a duty cycle from 0 to 1");
    return 0;
}

static int parse_steps(ydoc *d, const yaml_node_t *s, sim_gen *g)
{
    g->kind = GEN_STEPS;
    int n = yseq_len(s);
    if (!yis_seq(s) || n == 0)
        return yerr(d, s, "expected a list of [time, value] pairs for steps");
    g->pts = calloc((size_t)n, sizeof *g->pts);
    if (!g->pts)
        return yerr(d, s, "out of memory");
    for (int i = 0; i < n; i++) {
        yaml_node_t *p = yseq_at(d, s, i);
        if (yseq_len(p) != 2)
            return yerr(d, p, "expected a [time, value] pair");
        if (yduration(d, yseq_at(d, p, 0), &g->pts[i].t) || ynumber(d, yseq_at(d, p, 1), &g->pts[i].v))
            return -1;
        if (i > 0 && g->pts[i].t < g->pts[i - 1].t)
            return yerr(d, yseq_at(d, p, 0), "step times must increase");
    }
    g->npts = n;
    return 0;
}

static int parse_csv(ydoc *d, const yaml_node_t *m, sim_gen *g, gen_ctx *ctx)
{
    static const char *const keys[] = {"file", "column", NULL};
    g->kind = GEN_CSV;
    if (ymap_check(d, m, "csv", keys))
        return -1;
    yaml_node_t *fn = ymap_get(d, m, "file"), *cn = ymap_get(d, m, "column");
    if (!fn)
        return yerr(d, m, "missing key 'file'");
    if (!cn)
        return yerr(d, m, "missing key 'column'");
    const char *file = yscalar(fn), *col = yscalar(cn);
    if (!file)
        return yerr(d, fn, "expected a file name");
    if (!col)
        return yerr(d, cn, "expected a column name");
    char path[PATH_MAX];
    if (file[0] == '/' || !ctx->dir || !*ctx->dir)
        snprintf(path, sizeof path, "%s", file);
    else
        snprintf(path, sizeof path, "%s/%s", ctx->dir, file);
    return csv_load_series(d, ctx, fn, cn, path, col, g);
}

static int parse_noise(ydoc *d, const yaml_node_t *n, sim_gen *g)
{
    g->noise_interval = 1.0;
    if (yscalar(n))
        return ynumber(d, n, &g->noise) ? -1 : (g->noise < 0 ? yerr(d, n, "expected a noise above 0") : 0);
    static const char *const keys[] = {"stddev", "interval", NULL};
    if (ymap_check(d, n, "noise", keys) || num_key(d, n, "stddev", 0, &g->noise) ||
        dur_key(d, n, "interval", 1, &g->noise_interval))
        return -1;
    if (g->noise < 0)
        return yerr(d, n, "expected a noise above 0");
    if (g->noise_interval <= 0)
        return yerr(d, ymap_get(d, n, "interval"), "expected an interval above 0");
    return 0;
}

/* One key of a generator mapping: a generator or a modifier. *have counts generators. */
static int parse_gen_key(ydoc *d, const char *k, const yaml_node_t *kn, const yaml_node_t *v, sim_gen *g, gen_ctx *ctx,
                         int *have)
{
    if (strcmp(k, "noise") == 0)
        return parse_noise(d, v, g);
    if (strcmp(k, "min") == 0) {
        g->has_min = 1;
        return ynumber(d, v, &g->min);
    }
    if (strcmp(k, "max") == 0) {
        g->has_max = 1;
        return ynumber(d, v, &g->max);
    }
    if ((*have)++)
        return yerr(d, kn, "only one generator per metric (got a second one, '%s')", k);
    if (strcmp(k, "constant") == 0) {
        g->kind = GEN_CONST;
        return ynumber(d, v, &g->u.constant);
    }
    if (strcmp(k, "ramp") == 0)
        return parse_ramp(d, v, g);
    if (strcmp(k, "sine") == 0)
        return parse_sine(d, v, g);
    if (strcmp(k, "square") == 0 || strcmp(k, "pulse") == 0)
        return parse_square(d, v, g, k);
    if (strcmp(k, "steps") == 0)
        return parse_steps(d, v, g);
    if (strcmp(k, "csv") == 0)
        return parse_csv(d, v, g, ctx);
    return yerr(d, kn, "unknown generator '%s' (expected a number or one of: %s; modifiers noise, min, max)", k,
                GEN_NAMES);
}

sim_gen *gen_parse(ydoc *d, const yaml_node_t *n, gen_ctx *ctx)
{
    sim_gen *g = calloc(1, sizeof *g);
    if (!g) {
        yerr(d, n, "out of memory");
        return NULL;
    }
    g->noise_interval = 1.0;
    if (yscalar(n)) {
        g->kind = GEN_CONST;
        if (ynumber(d, n, &g->u.constant) == 0)
            return g;
        gen_free(g);
        return NULL;
    }
    if (!yis_map(n)) {
        yerr(d, n, "expected a number or a generator mapping (%s)", GEN_NAMES);
        gen_free(g);
        return NULL;
    }
    int have = 0;
    for (int i = 0; i < ymap_len(n); i++) {
        yaml_node_t *kn = ymap_key(d, n, i);
        const char *k = yscalar(kn);
        if (!k) {
            yerr(d, kn, "expected a generator name");
            break;
        }
        if (ymap_get(d, n, k) != ymap_val(d, n, i)) {
            yerr(d, kn, "duplicate key '%s'", k);
            break;
        }
        if (parse_gen_key(d, k, kn, ymap_val(d, n, i), g, ctx, &have) != 0)
            break;
    }
    if (!d->failed && !have)
        yerr(d, n, "expected a generator (%s)", GEN_NAMES);
    if (!d->failed && g->has_min && g->has_max && g->min > g->max)
        yerr(d, ymap_get(d, n, "min"), "min is above max");
    if (d->failed) {
        gen_free(g);
        return NULL;
    }
    return g;
}
