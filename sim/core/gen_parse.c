/* gen_parse.c - parses generator mappings: constant, ramp, sine, square/pulse, steps, csv,
 * plus the modifiers noise, min and max shared by all of them. */
#include "gen_parse.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const GEN_NAMES = "constant, ramp, sine, square, pulse, steps, csv";

/* Reads a required number / duration key of mapping m; opt = optional (keeps *out). */
static int num_key(gw_doc *d, const yaml_node_t *m, const char *key, int opt, double *out)
{
    yaml_node_t *v = doc_get(d, m, key);
    if (!v)
        return opt ? 0 : doc_error(d, m, "missing key '%s'", key);
    return doc_number(d, v, NULL, out);
}

static int dur_key(gw_doc *d, const yaml_node_t *m, const char *key, int opt, double *out)
{
    yaml_node_t *v = doc_get(d, m, key);
    if (!v)
        return opt ? 0 : doc_error(d, m, "missing key '%s'", key);
    return doc_duration(d, v, NULL, out);
}

static int parse_ramp(gw_doc *d, const yaml_node_t *m, sim_gen *g)
{
    static const char *const keys[] = {"from", "to", "duration", "start", NULL};
    g->kind = GEN_RAMP;
    if (doc_check_map(d, m, "ramp", keys) || num_key(d, m, "from", 0, &g->u.ramp.from) ||
        num_key(d, m, "to", 0, &g->u.ramp.to) || dur_key(d, m, "duration", 0, &g->u.ramp.duration) ||
        dur_key(d, m, "start", 1, &g->u.ramp.start))
        return -1;
    return 0;
}

static int parse_sine(gw_doc *d, const yaml_node_t *m, sim_gen *g)
{
    static const char *const keys[] = {"mean", "amplitude", "period", "phase", NULL};
    g->kind = GEN_SINE;
    if (doc_check_map(d, m, "sine", keys) || num_key(d, m, "mean", 0, &g->u.sine.mean) ||
        num_key(d, m, "amplitude", 0, &g->u.sine.amplitude) || dur_key(d, m, "period", 0, &g->u.sine.period) ||
        dur_key(d, m, "phase", 1, &g->u.sine.phase))
        return -1;
    if (g->u.sine.period <= 0)
        return doc_error(d, doc_get(d, m, "period"), "expected a period above 0");
    return 0;
}

static int parse_square(gw_doc *d, const yaml_node_t *m, sim_gen *g, const char *name)
{
    static const char *const keys[] = {"low", "high", "period", "duty", "phase", NULL};
    g->kind = GEN_SQUARE;
    g->u.square.duty = 0.5;
    if (doc_check_map(d, m, name, keys) || num_key(d, m, "low", 0, &g->u.square.low) ||
        num_key(d, m, "high", 0, &g->u.square.high) || dur_key(d, m, "period", 0, &g->u.square.period) ||
        num_key(d, m, "duty", 1, &g->u.square.duty) || dur_key(d, m, "phase", 1, &g->u.square.phase))
        return -1;
    if (g->u.square.period <= 0)
        return doc_error(d, doc_get(d, m, "period"), "expected a period above 0");
    if (g->u.square.duty < 0 || g->u.square.duty > 1)
        return doc_error(d, doc_get(d, m, "duty"), "expected a duty cycle from 0 to 1");
    return 0;
}

static int parse_steps(gw_doc *d, const yaml_node_t *s, sim_gen *g)
{
    g->kind = GEN_STEPS;
    int n = doc_seq_len(s);
    if (!doc_is_seq(s) || n == 0)
        return doc_error(d, s, "expected a list of [time, value] pairs for steps");
    g->pts = calloc((size_t)n, sizeof *g->pts);
    if (!g->pts)
        return doc_error(d, s, "out of memory");
    for (int i = 0; i < n; i++) {
        yaml_node_t *p = doc_seq_at(d, s, i);
        if (doc_seq_len(p) != 2)
            return doc_error(d, p, "expected a [time, value] pair");
        if (doc_duration(d, doc_seq_at(d, p, 0), NULL, &g->pts[i].t) ||
            doc_number(d, doc_seq_at(d, p, 1), NULL, &g->pts[i].v))
            return -1;
        if (i > 0 && g->pts[i].t < g->pts[i - 1].t)
            return doc_error(d, doc_seq_at(d, p, 0), "step times must increase");
    }
    g->npts = n;
    return 0;
}

static int parse_csv(gw_doc *d, const yaml_node_t *m, sim_gen *g, gen_ctx *ctx)
{
    static const char *const keys[] = {"file", "column", NULL};
    g->kind = GEN_CSV;
    if (doc_check_map(d, m, "csv", keys))
        return -1;
    yaml_node_t *fn = doc_get(d, m, "file"), *cn = doc_get(d, m, "column");
    if (!fn)
        return doc_error(d, m, "missing key 'file'");
    if (!cn)
        return doc_error(d, m, "missing key 'column'");
    const char *file = doc_text(fn), *col = doc_text(cn);
    if (!file)
        return doc_error(d, fn, "expected a file name");
    if (!col)
        return doc_error(d, cn, "expected a column name");
    char path[PATH_MAX];
    if (file[0] == '/' || !ctx->dir || !*ctx->dir)
        snprintf(path, sizeof path, "%s", file);
    else
        snprintf(path, sizeof path, "%s/%s", ctx->dir, file);
    return csv_load_series(d, ctx, fn, cn, path, col, g);
}

static int parse_noise(gw_doc *d, const yaml_node_t *n, sim_gen *g)
{
    g->noise_interval = 1.0;
    if (doc_text(n))
        return doc_number(d, n, NULL, &g->noise) ? -1
                                                 : (g->noise < 0 ? doc_error(d, n, "expected a noise above 0") : 0);
    static const char *const keys[] = {"stddev", "interval", NULL};
    if (doc_check_map(d, n, "noise", keys) || num_key(d, n, "stddev", 0, &g->noise) ||
        dur_key(d, n, "interval", 1, &g->noise_interval))
        return -1;
    if (g->noise < 0)
        return doc_error(d, n, "expected a noise above 0");
    if (g->noise_interval <= 0)
        return doc_error(d, doc_get(d, n, "interval"), "expected an interval above 0");
    return 0;
}

/* One key of a generator mapping: a generator or a modifier. *have counts generators. */
static int parse_gen_key(gw_doc *d, const char *k, const yaml_node_t *kn, const yaml_node_t *v, sim_gen *g,
                         gen_ctx *ctx, int *have)
{
    if (strcmp(k, "noise") == 0)
        return parse_noise(d, v, g);
    if (strcmp(k, "min") == 0) {
        g->has_min = 1;
        return doc_number(d, v, NULL, &g->min);
    }
    if (strcmp(k, "max") == 0) {
        g->has_max = 1;
        return doc_number(d, v, NULL, &g->max);
    }
    if ((*have)++)
        return doc_error(d, kn, "only one generator per metric (got a second one, '%s')", k);
    if (strcmp(k, "constant") == 0) {
        g->kind = GEN_CONST;
        return doc_number(d, v, NULL, &g->u.constant);
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
    return doc_error(d, kn, "unknown generator '%s' (expected a number or one of: %s; modifiers noise, min, max)", k,
                     GEN_NAMES);
}

sim_gen *gen_parse(gw_doc *d, const yaml_node_t *n, gen_ctx *ctx)
{
    sim_gen *g = calloc(1, sizeof *g);
    if (!g) {
        doc_error(d, n, "out of memory");
        return NULL;
    }
    g->noise_interval = 1.0;
    if (doc_text(n)) {
        g->kind = GEN_CONST;
        if (doc_number(d, n, NULL, &g->u.constant) == 0)
            return g;
        gen_free(g);
        return NULL;
    }
    if (!doc_is_map(n)) {
        doc_error(d, n, "expected a number or a generator mapping (%s)", GEN_NAMES);
        gen_free(g);
        return NULL;
    }
    int have = 0;
    for (int i = 0; i < doc_map_len(n); i++) {
        yaml_node_t *kn = doc_map_key(d, n, i);
        const char *k = doc_text(kn);
        if (!k) {
            doc_error(d, kn, "expected a generator name");
            break;
        }
        if (doc_get(d, n, k) != doc_map_value(d, n, i)) {
            doc_error(d, kn, "duplicate key '%s'", k);
            break;
        }
        if (parse_gen_key(d, k, kn, doc_map_value(d, n, i), g, ctx, &have) != 0)
            break;
    }
    if (d->errs->n == 0 && !have)
        doc_error(d, n, "expected a generator (%s)", GEN_NAMES);
    if (d->errs->n == 0 && g->has_min && g->has_max && g->min > g->max)
        doc_error(d, doc_get(d, n, "min"), "min is above max");
    if (d->errs->n) {
        gen_free(g);
        return NULL;
    }
    return g;
}
