/* steps.c - step times from a job's output lines (steps.h). */
#include "steps.h"
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "step_rx.h"
#include "util.h"

#define LINE_MAX_BYTES 4096
#define MAX_STREAMS 4
#define MAX_SERIES 16
/* Step times' histogram, once a series is reduced: log bins from 1 us with a ratio of 1.01 (a
 * quantile within 0.5 %) up to 1e6 s. */
#define HIST_MIN_S 1e-6
#define HIST_RATIO 1.01
#define HIST_BINS 2778

typedef enum { K_TQDM, K_LIGHTNING, K_MEGATRON, K_STEPLOSS, K_USER } series_kind;

static const char *const kind_name[] = {"tqdm", "Lightning", "Megatron-LM", "step/loss", "--step-regex"};

typedef struct series {
    series_kind kind;
    char key[24]; /* tqdm: the bar's total, so that an evaluation bar is a series of its own */
    int have_last;
    long last_n;
    int64_t last_t;
    step_mark *marks;
    size_t n, cap;
    long nsteps;
    long nlines;
    double sum_s;  /* step time x steps, of every mark */
    long group;    /* raw marks per stored mark: 1, doubled at each reduction */
    long last_raw; /* raw marks in the last stored mark */
    double *hist;  /* steps per step-time bin, kept from the first reduction on (NULL before) */
} series;

typedef enum {
    RX_TQDM,
    RX_TQDM_NOTOTAL,
    RX_LIGHTNING,
    RX_LIGHTNING_RICH,
    RX_MEGATRON,
    RX_MEGATRON_LOSS,
    RX_HF_LOSS,
    RX_HF_SUMMARY,
    RX_STEPLOSS,
    RX_COUNT
} rx_id;

static const char *const rx_text[RX_COUNT] = {
    [RX_TQDM] = "([0-9]+)/([0-9]+|\\?) *\\[[0-9:]+<[0-9:?]+, *([0-9.]+|\\?) *(it/s|s/it)",
    [RX_TQDM_NOTOTAL] = "([0-9]+)it *\\[[0-9:]+, *([0-9.]+|\\?) *(it/s|s/it)",
    [RX_LIGHTNING] = "Epoch ([0-9]+):",
    [RX_LIGHTNING_RICH] = "Epoch ([0-9]+)/[0-9]+ .* ([0-9]+)/([0-9]+) [0-9:]+ .* ([0-9.]+) *(it/s|s/it)",
    [RX_MEGATRON] = "iteration +([0-9]+)/ *[0-9]+ *\\|.*elapsed time per iteration \\(ms\\): *([0-9.]+)",
    [RX_MEGATRON_LOSS] = "lm loss: *([-0-9.eE+]+)",
    [RX_HF_LOSS] = "^ *\\{'loss': *([-0-9.eE+]+)",
    [RX_HF_SUMMARY] = "'train_steps_per_second': *([0-9.eE+-]+)",
    [RX_STEPLOSS] = "[Ss]tep[^0-9A-Za-z]{0,3}([0-9]+)(/[0-9]+)?[^0-9A-Za-z].*[Ll]oss[^0-9A-Za-z-]{0,3}"
                    "(-?[0-9]+\\.?[0-9]*([eE][-+]?[0-9]+)?)",
};

struct step_parser {
    step_rx *rx[RX_COUNT];
    step_rx *user;
    char line[MAX_STREAMS][LINE_MAX_BYTES];
    size_t len[MAX_STREAMS];
    int64_t line_t[MAX_STREAMS]; /* when the line's last byte came: tqdm ends a bar with the next \r */
    series s[MAX_SERIES];
    int ns;
    int hf_seen;
    double reported_sps;
    double first_loss, last_loss;
    int oom;
    long lines_skipped; /* not searched: the feed's matching budget was spent */
    steps_line_fn on_line;
    void *on_line_arg;
};

step_parser *steps_new(const char *user_regex, char *err, size_t n)
{
    step_parser *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    p->reported_sps = p->first_loss = p->last_loss = NAN;
    char why[200];
    for (int i = 0; i < RX_COUNT; i++)
        if (!(p->rx[i] = step_rx_new(rx_text[i], why, sizeof why))) {
            /* the built-in patterns compile; this is memory */
            steps_free(p);
            snprintf(err, n, "out of memory");
            return NULL;
        }
    if (user_regex && !(p->user = step_rx_new(user_regex, why, sizeof why))) {
        snprintf(err, n, "--step-regex '%.60s%s': %s", user_regex, strlen(user_regex) > 60 ? "..." : "", why);
        steps_free(p);
        return NULL;
    }
    return p;
}

void steps_free(step_parser *p)
{
    if (!p)
        return;
    for (int i = 0; i < RX_COUNT; i++)
        step_rx_free(p->rx[i]);
    step_rx_free(p->user);
    for (int i = 0; i < p->ns; i++) {
        free(p->s[i].marks);
        free(p->s[i].hist);
    }
    free(p);
}

static series *get_series(step_parser *p, series_kind kind, const char *key)
{
    for (int i = 0; i < p->ns; i++)
        if (p->s[i].kind == kind && strcmp(p->s[i].key, key) == 0)
            return &p->s[i];
    if (p->ns == MAX_SERIES)
        return NULL;
    series *s = &p->s[p->ns++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->group = 1;
    snprintf(s->key, sizeof s->key, "%s", key);
    return s;
}

static int hist_bin(double step_s)
{
    if (!(step_s > HIST_MIN_S))
        return 0;
    double b = log(step_s / HIST_MIN_S) / log(HIST_RATIO);
    return b >= HIST_BINS - 1 ? HIST_BINS - 1 : (int)b;
}

/* Two neighbouring marks as one: the later's time and step, the steps' mean time. */
static step_mark merged(const step_mark *a, const step_mark *b)
{
    long steps = a->steps + b->steps;
    double s = (a->step_s * (double)a->steps + b->step_s * (double)b->steps) / (double)steps;
    return (step_mark){b->t_us, s, steps, b->step};
}

/* The marks are full: keep the step times' distribution in a histogram from now on, and halve the
 * marks by merging neighbours (a reduced series, as a GPU's in a report). 0, or -1 out of memory. */
static int reduce(series *s)
{
    if (!s->hist) {
        s->hist = calloc(HIST_BINS, sizeof *s->hist);
        if (!s->hist)
            return -1;
        for (size_t i = 0; i < s->n; i++)
            s->hist[hist_bin(s->marks[i].step_s)] += (double)s->marks[i].steps;
    }
    for (size_t i = 0; i + 1 < s->n; i += 2)
        s->marks[i / 2] = merged(&s->marks[i], &s->marks[i + 1]);
    s->n /= 2;
    s->group *= 2;
    s->last_raw = s->group;
    return 0;
}

static void add_mark(step_parser *p, series *s, int64_t t, double step_s, long steps, long step)
{
    /* what a job prints is bounded before it is counted: no count can overflow */
    if (!(step_s >= 0) || step_s > STEPS_MAX_SECONDS || steps <= 0 || steps > STEPS_MAX_NUMBER ||
        s->nsteps > LONG_MAX - steps)
        return;
    step_mark m = {t, step_s, steps, step};
    if (s->hist)
        s->hist[hist_bin(step_s)] += (double)steps;
    s->nsteps += steps;
    s->sum_s += step_s * (double)steps;
    if (s->n && s->last_raw < s->group) {
        s->marks[s->n - 1] = merged(&s->marks[s->n - 1], &m);
        s->last_raw++;
        return;
    }
    if (s->n == STEPS_MAX_MARKS && reduce(s) != 0) {
        p->oom = 1;
        return;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        step_mark *nm = realloc(s->marks, cap * sizeof *nm);
        if (!nm) {
            p->oom = 1;
            return;
        }
        s->marks = nm;
        s->cap = cap;
    }
    s->marks[s->n++] = m;
    s->last_raw = 1;
}

/* One line of a series: step number n (-1 none) and, when the job says it, the step time. */
static void observe(step_parser *p, series *s, int64_t t, long n, double reported_s)
{
    if (!s)
        return;
    /* a series goes forward in time: a line of one stream can end before a line of the other that
     * was matched first (a last line without a newline, judged at the end) */
    if (s->have_last && t < s->last_t)
        t = s->last_t;
    s->nlines++;
    if (n < 0) {
        if (!isnan(reported_s))
            add_mark(p, s, t, reported_s, 1, -1);
        else if (s->have_last)
            add_mark(p, s, t, (double)(t - s->last_t) / 1e6, 1, -1);
        s->have_last = 1;
        s->last_t = t;
        s->last_n = -1;
        return;
    }
    if (s->have_last && n == s->last_n)
        return; /* a refresh without progress: the step still runs */
    if (s->have_last && n > s->last_n) {
        long dn = n - s->last_n;
        add_mark(p, s, t, isnan(reported_s) ? (double)(t - s->last_t) / 1e6 / (double)dn : reported_s, dn, n);
    } else if (!s->have_last && !isnan(reported_s) && n > 0) {
        add_mark(p, s, t, reported_s, n, n); /* the first report covers the steps since 0 */
    }
    /* n < last: a new epoch (or bar) starts; no interval across it */
    s->have_last = 1;
    s->last_t = t;
    s->last_n = n;
}

static int match(step_rx *rx, const char *line, size_t len, step_rx_span *m, int nm)
{
    return step_rx_match(rx, line, len, m, nm) == 1;
}

/* A step number: -1 when the group took no part or the number is past STEPS_MAX_NUMBER. */
static long group_long(const char *line, const step_rx_span *m)
{
    if (m->so < 0)
        return -1;
    long v = strtol(line + m->so, NULL, 10); /* saturates: no overflow */
    return v < 0 || v > STEPS_MAX_NUMBER ? -1 : v;
}

static double group_double(const char *line, const step_rx_span *m)
{
    if (m->so < 0)
        return NAN;
    char buf[64];
    size_t len = (size_t)(m->eo - m->so);
    if (len >= sizeof buf)
        len = sizeof buf - 1;
    memcpy(buf, line + m->so, len);
    buf[len] = 0;
    char *end;
    double v = strtod(buf, &end);
    return end == buf ? NAN : v;
}

static void note_loss(step_parser *p, double loss)
{
    if (isnan(loss))
        return;
    if (isnan(p->first_loss))
        p->first_loss = loss;
    p->last_loss = loss;
}

static void user_line(step_parser *p, int64_t t, const char *line, size_t len)
{
    step_rx_span m[3];
    if (!match(p->user, line, len, m, 3))
        return;
    int groups = step_rx_groups(p->user);
    long n = groups >= 1 ? group_long(line, &m[1]) : -1;
    double d = NAN;
    if (groups >= 2 && m[2].so >= 0) {
        d = group_double(line, &m[2]);
        const char *u = line + m[2].eo;
        while (*u == ' ')
            u++;
        if (strncmp(u, "ms", 2) == 0)
            d /= 1e3;
        else if (strncmp(u, "us", 2) == 0)
            d /= 1e6;
    }
    observe(p, get_series(p, K_USER, ""), t, n, d);
}

static void builtin_line(step_parser *p, int64_t t, const char *line, size_t len)
{
    step_rx_span m[6];
    if (match(p->rx[RX_MEGATRON], line, len, m, 3)) {
        observe(p, get_series(p, K_MEGATRON, ""), t, group_long(line, &m[1]), group_double(line, &m[2]) / 1e3);
        if (match(p->rx[RX_MEGATRON_LOSS], line, len, m, 2))
            note_loss(p, group_double(line, &m[1]));
        return;
    }
    if (match(p->rx[RX_HF_LOSS], line, len, m, 2)) {
        p->hf_seen = 1;
        note_loss(p, group_double(line, &m[1]));
        return;
    }
    if (match(p->rx[RX_HF_SUMMARY], line, len, m, 2)) {
        p->hf_seen = 1;
        p->reported_sps = group_double(line, &m[1]);
        return;
    }
    if (match(p->rx[RX_LIGHTNING_RICH], line, len, m, 6)) {
        char key[24];
        snprintf(key, sizeof key, "%ld", group_long(line, &m[3]));
        observe(p, get_series(p, K_LIGHTNING, key), t, group_long(line, &m[2]), NAN);
        return;
    }
    if (match(p->rx[RX_TQDM], line, len, m, 5)) {
        char key[24];
        size_t klen = (size_t)(m[2].eo - m[2].so);
        snprintf(key, sizeof key, "%.*s", (int)(klen < 20 ? klen : 20), line + m[2].so);
        step_rx_span e[2];
        series_kind k = match(p->rx[RX_LIGHTNING], line, len, e, 2) ? K_LIGHTNING : K_TQDM;
        observe(p, get_series(p, k, key), t, group_long(line, &m[1]), NAN);
        return;
    }
    if (match(p->rx[RX_TQDM_NOTOTAL], line, len, m, 4)) {
        observe(p, get_series(p, K_TQDM, "?"), t, group_long(line, &m[1]), NAN);
        return;
    }
    if (match(p->rx[RX_STEPLOSS], line, len, m, 5)) {
        observe(p, get_series(p, K_STEPLOSS, ""), t, group_long(line, &m[1]), NAN);
        note_loss(p, group_double(line, &m[3]));
    }
}

/* One line of a stream, matched unless the feed's budget is spent (then only counted). */
static void one_line(step_parser *p, int stream, uint64_t deadline_us)
{
    char *line = p->line[stream];
    size_t len = p->len[stream];
    int64_t t = p->line_t[stream];
    line[len] = 0;
    p->len[stream] = 0;
    if (!line[0])
        return;
    if (p->on_line) /* a linear scan of the line: not under the matching budget */
        p->on_line(p->on_line_arg, t, line);
    if (deadline_us && gw_mono_us() > deadline_us) {
        p->lines_skipped++;
        return;
    }
    if (p->user)
        user_line(p, t, line, len);
    else
        builtin_line(p, t, line, len);
}

void steps_on_line(step_parser *p, steps_line_fn fn, void *arg)
{
    p->on_line = fn;
    p->on_line_arg = arg;
}

void steps_feed(step_parser *p, int stream, int64_t t_us, const char *data, size_t len)
{
    if (stream < 0 || stream >= MAX_STREAMS)
        return;
    uint64_t deadline = gw_mono_us() + STEPS_FEED_BUDGET_US;
    for (size_t i = 0; i < len; i++) {
        char c = data[i];
        if (c == '\n' || c == '\r') {
            one_line(p, stream, deadline);
            continue;
        }
        if (c == 0)
            c = ' ';
        p->line[stream][p->len[stream]++] = c;
        p->line_t[stream] = t_us;
        if (p->len[stream] == LINE_MAX_BYTES - 1)
            one_line(p, stream, deadline); /* an endless line: judged by its first 4 KiB */
    }
}

void steps_finish(step_parser *p)
{
    for (int s = 0; s < MAX_STREAMS; s++)
        if (p->len[s])
            one_line(p, s, 0);
}

static const series *chosen(const step_parser *p)
{
    static const series_kind order[] = {K_USER, K_MEGATRON, K_LIGHTNING, K_TQDM, K_STEPLOSS};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        const series *best = NULL;
        for (int i = 0; i < p->ns; i++)
            if (p->s[i].kind == order[k] && p->s[i].nsteps > 0 && (!best || p->s[i].nsteps > best->nsteps))
                best = &p->s[i];
        if (best)
            return best;
    }
    return NULL;
}

static int cmp_step(const void *a, const void *b)
{
    double x = ((const step_mark *)a)->step_s, y = ((const step_mark *)b)->step_s;
    return (x > y) - (x < y);
}

/* The step time below which a share q of the steps (weighted by their count) fall. */
static double weighted_quantile(const step_mark *sorted, size_t n, long total, double q)
{
    double want = q * (double)total, cum = 0;
    for (size_t i = 0; i < n; i++) {
        cum += (double)sorted[i].steps;
        if (cum >= want)
            return sorted[i].step_s;
    }
    return n ? sorted[n - 1].step_s : NAN;
}

/* The step time below which a share q of the steps fall, from the histogram (the bin's middle). */
static double hist_quantile(const series *s, double q)
{
    double want = q * (double)s->nsteps, cum = 0;
    for (int b = 0; b < HIST_BINS; b++) {
        cum += s->hist[b];
        if (cum >= want && s->hist[b] > 0)
            return b == 0 ? HIST_MIN_S : HIST_MIN_S * pow(HIST_RATIO, b + 0.5);
    }
    return NAN;
}

void steps_stats(const step_parser *p, step_stats *out)
{
    memset(out, 0, sizeof *out);
    out->p50_s = out->p95_s = out->mean_s = out->steps_per_s = NAN;
    out->reported_steps_per_s = p->reported_sps;
    out->first_loss = p->first_loss;
    out->last_loss = p->last_loss;
    out->lines_skipped = p->lines_skipped;
    const series *s = chosen(p);
    if (!s) {
        if (p->hf_seen)
            snprintf(out->source, sizeof out->source, "Hugging Face Trainer");
        return;
    }
    snprintf(out->source, sizeof out->source, "%s",
             s->kind == K_TQDM && p->hf_seen ? "Hugging Face Trainer" : kind_name[s->kind]);
    out->nsteps = s->nsteps;
    out->nlines = s->nlines;
    out->marks_merged = s->group;
    out->lines_skipped = p->lines_skipped;
    out->mean_s = s->sum_s / (double)s->nsteps;
    out->steps_per_s = out->mean_s > 0 ? 1.0 / out->mean_s : NAN;
    if (s->hist) {
        out->p50_s = hist_quantile(s, 0.50);
        out->p95_s = hist_quantile(s, 0.95);
        return;
    }
    step_mark *sorted = malloc(s->n * sizeof *sorted);
    if (!sorted)
        return;
    memcpy(sorted, s->marks, s->n * sizeof *sorted);
    qsort(sorted, s->n, sizeof *sorted, cmp_step);
    out->p50_s = weighted_quantile(sorted, s->n, s->nsteps, 0.50);
    out->p95_s = weighted_quantile(sorted, s->n, s->nsteps, 0.95);
    free(sorted);
}

size_t steps_marks(const step_parser *p, const step_mark **out)
{
    const series *s = chosen(p);
    *out = s ? s->marks : NULL;
    return s ? s->n : 0;
}
