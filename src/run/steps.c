/* steps.c - step times from a job's output lines (steps.h). */
#include "steps.h"
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES 4096
#define MAX_STREAMS 4
#define MAX_SERIES 16

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
    regex_t rx[RX_COUNT];
    int have_user;
    regex_t user;
    char line[MAX_STREAMS][LINE_MAX_BYTES];
    size_t len[MAX_STREAMS];
    int64_t line_t[MAX_STREAMS]; /* when the line's last byte came: tqdm ends a bar with the next \r */
    series s[MAX_SERIES];
    int ns;
    int hf_seen;
    double reported_sps;
    double first_loss, last_loss;
    int oom;
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
    for (int i = 0; i < RX_COUNT; i++)
        if (regcomp(&p->rx[i], rx_text[i], REG_EXTENDED) != 0) {
            /* the built-in patterns compile; this is memory */
            for (int k = 0; k < i; k++)
                regfree(&p->rx[k]);
            free(p);
            snprintf(err, n, "out of memory");
            return NULL;
        }
    if (user_regex) {
        int rc = regcomp(&p->user, user_regex, REG_EXTENDED);
        if (rc != 0) {
            char why[128];
            regerror(rc, &p->user, why, sizeof why);
            snprintf(err, n, "--step-regex '%s': %s", user_regex, why);
            p->have_user = 0;
            steps_free(p);
            return NULL;
        }
        p->have_user = 1;
    }
    return p;
}

void steps_free(step_parser *p)
{
    if (!p)
        return;
    for (int i = 0; i < RX_COUNT; i++)
        regfree(&p->rx[i]);
    if (p->have_user)
        regfree(&p->user);
    for (int i = 0; i < p->ns; i++)
        free(p->s[i].marks);
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
    snprintf(s->key, sizeof s->key, "%s", key);
    return s;
}

static void add_mark(step_parser *p, series *s, int64_t t, double step_s, long steps, long step)
{
    if (!(step_s >= 0) || !isfinite(step_s) || steps <= 0)
        return;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        step_mark *m = realloc(s->marks, cap * sizeof *m);
        if (!m) {
            p->oom = 1;
            return;
        }
        s->marks = m;
        s->cap = cap;
    }
    s->marks[s->n++] = (step_mark){t, step_s, steps, step};
    s->nsteps += steps;
}

/* One line of a series: step number n (-1 none) and, when the job says it, the step time. */
static void observe(step_parser *p, series *s, int64_t t, long n, double reported_s)
{
    if (!s)
        return;
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

static int match(regex_t *rx, const char *line, regmatch_t *m, size_t nm)
{
    return regexec(rx, line, nm, m, 0) == 0;
}

static long group_long(const char *line, const regmatch_t *m)
{
    if (m->rm_so < 0)
        return -1;
    return strtol(line + m->rm_so, NULL, 10);
}

static double group_double(const char *line, const regmatch_t *m)
{
    if (m->rm_so < 0)
        return NAN;
    char buf[64];
    size_t len = (size_t)(m->rm_eo - m->rm_so);
    if (len >= sizeof buf)
        len = sizeof buf - 1;
    memcpy(buf, line + m->rm_so, len);
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

static void user_line(step_parser *p, int64_t t, const char *line)
{
    regmatch_t m[3];
    if (!match(&p->user, line, m, 3))
        return;
    long n = p->user.re_nsub >= 1 ? group_long(line, &m[1]) : -1;
    double d = NAN;
    if (p->user.re_nsub >= 2 && m[2].rm_so >= 0) {
        d = group_double(line, &m[2]);
        const char *u = line + m[2].rm_eo;
        while (*u == ' ')
            u++;
        if (strncmp(u, "ms", 2) == 0)
            d /= 1e3;
        else if (strncmp(u, "us", 2) == 0)
            d /= 1e6;
    }
    observe(p, get_series(p, K_USER, ""), t, n, d);
}

static void builtin_line(step_parser *p, int64_t t, const char *line)
{
    regmatch_t m[6];
    if (match(&p->rx[RX_MEGATRON], line, m, 3)) {
        observe(p, get_series(p, K_MEGATRON, ""), t, group_long(line, &m[1]), group_double(line, &m[2]) / 1e3);
        if (match(&p->rx[RX_MEGATRON_LOSS], line, m, 2))
            note_loss(p, group_double(line, &m[1]));
        return;
    }
    if (match(&p->rx[RX_HF_LOSS], line, m, 2)) {
        p->hf_seen = 1;
        note_loss(p, group_double(line, &m[1]));
        return;
    }
    if (match(&p->rx[RX_HF_SUMMARY], line, m, 2)) {
        p->hf_seen = 1;
        p->reported_sps = group_double(line, &m[1]);
        return;
    }
    if (match(&p->rx[RX_LIGHTNING_RICH], line, m, 6)) {
        char key[24];
        snprintf(key, sizeof key, "%ld", group_long(line, &m[3]));
        observe(p, get_series(p, K_LIGHTNING, key), t, group_long(line, &m[2]), NAN);
        return;
    }
    if (match(&p->rx[RX_TQDM], line, m, 5)) {
        char key[24];
        size_t len = (size_t)(m[2].rm_eo - m[2].rm_so);
        snprintf(key, sizeof key, "%.*s", (int)(len < 20 ? len : 20), line + m[2].rm_so);
        regmatch_t e[2];
        series_kind k = match(&p->rx[RX_LIGHTNING], line, e, 2) ? K_LIGHTNING : K_TQDM;
        observe(p, get_series(p, k, key), t, group_long(line, &m[1]), NAN);
        return;
    }
    if (match(&p->rx[RX_TQDM_NOTOTAL], line, m, 4)) {
        observe(p, get_series(p, K_TQDM, "?"), t, group_long(line, &m[1]), NAN);
        return;
    }
    if (match(&p->rx[RX_STEPLOSS], line, m, 5)) {
        observe(p, get_series(p, K_STEPLOSS, ""), t, group_long(line, &m[1]), NAN);
        note_loss(p, group_double(line, &m[3]));
    }
}

static void one_line(step_parser *p, int stream)
{
    char *line = p->line[stream];
    int64_t t = p->line_t[stream];
    line[p->len[stream]] = 0;
    p->len[stream] = 0;
    if (!line[0])
        return;
    if (p->on_line)
        p->on_line(p->on_line_arg, t, line);
    if (p->have_user)
        user_line(p, t, line);
    else
        builtin_line(p, t, line);
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
    for (size_t i = 0; i < len; i++) {
        char c = data[i];
        if (c == '\n' || c == '\r') {
            one_line(p, stream);
            continue;
        }
        if (c == 0)
            c = ' ';
        p->line[stream][p->len[stream]++] = c;
        p->line_t[stream] = t_us;
        if (p->len[stream] == LINE_MAX_BYTES - 1)
            one_line(p, stream); /* an endless line: judged by its first 4 KiB */
    }
}

void steps_finish(step_parser *p)
{
    for (int s = 0; s < MAX_STREAMS; s++)
        if (p->len[s])
            one_line(p, s);
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

void steps_stats(const step_parser *p, step_stats *out)
{
    memset(out, 0, sizeof *out);
    out->p50_s = out->p95_s = out->mean_s = out->steps_per_s = NAN;
    out->reported_steps_per_s = p->reported_sps;
    out->first_loss = p->first_loss;
    out->last_loss = p->last_loss;
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
    step_mark *sorted = malloc(s->n * sizeof *sorted);
    double sum = 0;
    for (size_t i = 0; i < s->n; i++)
        sum += s->marks[i].step_s * (double)s->marks[i].steps;
    out->mean_s = sum / (double)s->nsteps;
    out->steps_per_s = out->mean_s > 0 ? 1.0 / out->mean_s : NAN;
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
