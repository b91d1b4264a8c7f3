/* gen.c - evaluation of scenario generators at a time t (pure functions of t and the seed). */
#include "gen.h"
#include <math.h>
#include <stdlib.h>

/* splitmix64 finalizer: a good 64-bit mix, so nearby inputs give unrelated outputs. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

uint64_t noise_key(uint64_t seed, uint32_t a, uint32_t b)
{
    return mix64(mix64(seed) ^ ((uint64_t)a << 32 | b));
}

/* Uniform in (0, 1) from 53 random bits. */
static double unit_open(uint64_t r)
{
    return ((double)(r >> 11) + 0.5) / 9007199254740992.0;
}

static double noise_normal(uint64_t key, int64_t n)
{
    uint64_t r1 = mix64(key ^ mix64((uint64_t)n));
    uint64_t r2 = mix64(r1);
    /* Box-Muller */
    return sqrt(-2.0 * log(unit_open(r1))) * cos(2.0 * M_PI * unit_open(r2));
}

/* Index of the last point with pts[i].t <= t, or -1 when t is before the first. */
static int point_at(const gen_point *pts, int n, double t)
{
    int lo = 0, hi = n - 1, ans = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (pts[mid].t <= t) {
            ans = mid;
            lo = mid + 1;
        } else
            hi = mid - 1;
    }
    return ans;
}

static double eval_steps(const sim_gen *g, double t)
{
    int i = point_at(g->pts, g->npts, t);
    return g->pts[i < 0 ? 0 : i].v;
}

static double eval_linear(const sim_gen *g, double t)
{
    int i = point_at(g->pts, g->npts, t);
    if (i < 0)
        return g->pts[0].v;
    if (i >= g->npts - 1)
        return g->pts[g->npts - 1].v;
    const gen_point *a = &g->pts[i], *b = &g->pts[i + 1];
    if (b->t <= a->t)
        return b->v;
    return a->v + (b->v - a->v) * (t - a->t) / (b->t - a->t);
}

static double eval_base(const sim_gen *g, double t)
{
    switch (g->kind) {
    case GEN_CONST: return g->u.constant;
    case GEN_RAMP: {
        double s = t - g->u.ramp.start;
        if (s <= 0)
            return g->u.ramp.from;
        if (g->u.ramp.duration <= 0 || s >= g->u.ramp.duration)
            return g->u.ramp.to;
        return g->u.ramp.from + (g->u.ramp.to - g->u.ramp.from) * s / g->u.ramp.duration;
    }
    case GEN_SINE:
        return g->u.sine.mean + g->u.sine.amplitude * sin(2.0 * M_PI * (t + g->u.sine.phase) / g->u.sine.period);
    case GEN_SQUARE: {
        double p = g->u.square.period;
        double x = fmod(t + g->u.square.phase, p);
        if (x < 0)
            x += p;
        return x < g->u.square.duty * p ? g->u.square.high : g->u.square.low;
    }
    case GEN_STEPS: return eval_steps(g, t);
    case GEN_CSV: return eval_linear(g, t);
    }
    return 0;
}

double gen_eval(const sim_gen *g, double t, uint64_t key)
{
    double v = eval_base(g, t);
    if (g->noise > 0) {
        double iv = g->noise_interval > 0 ? g->noise_interval : 1.0;
        v += g->noise * noise_normal(key, (int64_t)floor(t / iv));
    }
    if (g->has_min && v < g->min)
        v = g->min;
    if (g->has_max && v > g->max)
        v = g->max;
    return v;
}

/* Appends x to out[0..n) unless it is full (or already failed): the new count or -1. */
static int push(double *out, int n, int max, double x)
{
    if (n < 0 || n >= max)
        return -1;
    out[n] = x;
    return n + 1;
}

/* Adds the times e + k*period in (a, b) for every integer k. */
static int periodic(double e, double period, double a, double b, double *out, int n, int max)
{
    for (double k = ceil((a - e) / period); n >= 0; k++) {
        double x = e + k * period;
        if (x >= b)
            break;
        if (x > a)
            n = push(out, n, max, x);
    }
    return n;
}

static int point_breaks(const sim_gen *g, double a, double b, double *out, int n, int max)
{
    for (int i = point_at(g->pts, g->npts, a) + 1; i < g->npts && g->pts[i].t < b && n >= 0; i++)
        n = push(out, n, max, g->pts[i].t);
    return n;
}

int gen_breaks(const sim_gen *g, double a, double b, double *out, int n, int max)
{
    switch (g->kind) {
    case GEN_CONST: break;
    case GEN_RAMP: {
        double ends[2] = {g->u.ramp.start, g->u.ramp.start + g->u.ramp.duration};
        for (int i = 0; i < 2; i++)
            if (ends[i] > a && ends[i] < b)
                n = push(out, n, max, ends[i]);
        break;
    }
    case GEN_SINE: n = periodic(-g->u.sine.phase, g->u.sine.period / 4, a, b, out, n, max); break;
    case GEN_SQUARE:
        n = periodic(-g->u.square.phase, g->u.square.period, a, b, out, n, max);
        if (n >= 0)
            n = periodic(g->u.square.duty * g->u.square.period - g->u.square.phase, g->u.square.period, a, b, out, n,
                         max);
        break;
    case GEN_STEPS:
    case GEN_CSV: n = point_breaks(g, a, b, out, n, max); break;
    }
    if (n >= 0 && g->noise > 0)
        n = periodic(0, g->noise_interval > 0 ? g->noise_interval : 1.0, a, b, out, n, max);
    return n;
}

int gen_is_stepwise(const sim_gen *g)
{
    return g->kind == GEN_CONST || g->kind == GEN_SQUARE || g->kind == GEN_STEPS;
}

void gen_free(sim_gen *g)
{
    if (!g)
        return;
    free(g->pts);
    free(g);
}
