/* diag_straggler.c - straggler: one GPU of a job persistently slower than the job's other GPUs at
 * the same time (a lower SM clock or power draw, or a thermal or power slowdown the others do not
 * have). A synchronous job (data-parallel training: every step waits for all ranks) runs at its
 * slowest member's pace, so one slow GPU costs every GPU of the job. The members are compared bucket
 * by bucket with the median of the others, so that a job's phases (warm-up, evaluation) move every
 * member alike. The members are the GPUs an engine's job labels name, on one host or many
 * (diag_fleet_cross). docs/diagnosis.md, "Fleets". */
#include "diag_internal.h"
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

double diag_median_but(float *v, int n, int skip)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (i != skip && isfinite(v[i]))
            v[k++] = v[i];
    if (!k)
        return NAN;
    /* insertion sort: members of one bucket, a few dozen at most in practice */
    for (int i = 1; i < k; i++) {
        float x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
    return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2.0;
}

/* The others' median of one signal in bucket b. */
static double others(const diag_member *m, int n, size_t off, int b, int skip, float *tmp)
{
    for (int i = 0; i < n; i++)
        tmp[i] = ((const float *)((const char *)&m[i] + off))[b];
    return diag_median_but(tmp, n, skip);
}

typedef struct tally {
    int busy, slow, by[3];
    double deficit, mine[3], theirs[3];
    int first, last;
} tally;

/* Bucket b of member i against the others: 1 when slower, with its reason and deficit. */
static int slow_bucket(const diag_member *m, int n, int i, int b, const diag_config *cfg, float *tmp, tally *t)
{
    double oc = others(m, n, offsetof(diag_member, clock), b, i, tmp);
    double op = others(m, n, offsetof(diag_member, power), b, i, tmp);
    double ot = others(m, n, offsetof(diag_member, throttle), b, i, tmp);
    double c = m[i].clock[b], p = m[i].power[b], th = m[i].throttle[b];
    int why = -1;
    double deficit = 0;
    if (isfinite(c) && isfinite(oc) && oc > 0 && c < (1 - cfg->straggler.clock_gap) * oc) {
        why = STRAGGLER_CLOCK;
        deficit = 1 - c / oc;
    } else if (isfinite(p) && isfinite(op) && op > 0 && p < (1 - cfg->straggler.power_gap) * op) {
        why = STRAGGLER_POWER;
        deficit = 1 - p / op;
    } else if (isfinite(th) && isfinite(ot) && th >= cfg->straggler.throttle_share &&
               ot < cfg->straggler.throttle_share / 4) {
        why = STRAGGLER_THROTTLE;
        deficit = isfinite(c) && isfinite(oc) && oc > 0 && c < oc ? 1 - c / oc : 0;
    }
    if (why < 0)
        return 0;
    double mine[3] = {c, p, th}, theirs[3] = {oc, op, ot};
    t->by[why]++;
    t->mine[why] += mine[why];
    t->theirs[why] += theirs[why];
    t->deficit += deficit;
    return 1;
}

int diag_straggler_scan(const diag_member *m, int n, const diag_config *cfg, uint64_t from_us, uint64_t to_us,
                        diag_straggler *out, int max)
{
    if (n < 2 || n > DIAG_FLEET_MAX_MEMBERS)
        return 0;
    float *tmp = malloc(sizeof *tmp * (size_t)n);
    if (!tmp)
        return 0;
    double width_s = (double)(to_us > from_us ? to_us - from_us : 0) / 1e6 / DIAG_FLEET_BUCKETS;
    int found = 0;
    for (int i = 0; i < n && found < max; i++) {
        tally t = {.first = -1};
        for (int b = 0; b < DIAG_FLEET_BUCKETS; b++) {
            double ou = others(m, n, offsetof(diag_member, util), b, i, tmp);
            if (!isfinite(m[i].util[b]) || !isfinite(ou) || ou < cfg->straggler.busy_util)
                continue;
            t.busy++;
            if (slow_bucket(m, n, i, b, cfg, tmp, &t)) {
                t.slow++;
                t.first = t.first < 0 ? b : t.first;
                t.last = b;
            }
        }
        double slow_s = t.slow * width_s;
        if (!t.busy || (double)t.slow < cfg->straggler.min_share * t.busy || slow_s < cfg->straggler.min_duration_s)
            continue;
        int why = t.by[STRAGGLER_CLOCK] >= t.by[STRAGGLER_POWER] ? STRAGGLER_CLOCK : STRAGGLER_POWER;
        why = t.by[STRAGGLER_THROTTLE] > t.by[why] ? STRAGGLER_THROTTLE : why;
        diag_straggler *s = &out[found++];
        s->member = i;
        s->why = (straggler_why)why;
        s->share = (double)t.slow / t.busy;
        s->slow_s = slow_s;
        s->mine = t.mine[why] / t.by[why];
        s->others = t.theirs[why] / t.by[why];
        s->deficit = t.deficit / t.slow;
        s->from_us = from_us + (uint64_t)(t.first * width_s * 1e6);
        s->to_us = from_us + (uint64_t)((t.last + 1) * width_s * 1e6);
    }
    free(tmp);
    return found;
}
