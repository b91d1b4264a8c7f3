/* steps.h - a training job's step times, read from its own output: the job's stdout and stderr are
 * fed as they arrive (split into lines on \n and \r, so progress bars count), and each line is tried
 * against the built-in patterns (tqdm, Hugging Face Trainer, PyTorch Lightning, Megatron-LM,
 * "step N ... loss") or the user's --step-regex. A matching line closes one or more steps at the
 * time it arrived. Pure logic: no I/O. */
#ifndef GPUWATCH_RUN_STEPS_H
#define GPUWATCH_RUN_STEPS_H

#include <stddef.h>
#include <stdint.h>

/* One observation of the chosen series: at t_us, `steps` steps ended, each taking step_s. */
typedef struct step_mark {
    int64_t t_us;
    double step_s;
    long steps;
    long step; /* the job's step number, -1 when the line has none */
} step_mark;

/* Marks kept of one series: past this, neighbours are merged (and the quantiles come from a
 * histogram of the step times, within 0.5 %), whatever the job prints. */
#define STEPS_MAX_MARKS 65536
/* A step number or count past this (a million steps a second for 30 years), or a step time past
 * STEPS_MAX_SECONDS, is no step: a job's output cannot overflow the counts. */
#define STEPS_MAX_NUMBER 1000000000000000L
#define STEPS_MAX_SECONDS 1e9

typedef struct step_stats {
    char source[48]; /* "tqdm", "Hugging Face Trainer", "Lightning", "Megatron-LM", "step/loss", "--step-regex" */
    long nsteps;     /* steps timed */
    long nlines;     /* lines of the series */
    double p50_s, p95_s, mean_s;
    double steps_per_s;           /* 1 / the mean step time */
    double reported_steps_per_s;  /* what the job said (Trainer's train_steps_per_second), NAN */
    double first_loss, last_loss; /* NAN when no loss was printed */
    long marks_merged;            /* lines per mark: 1, or more once the marks were reduced */
    long lines_skipped;           /* lines not searched: a feed's matching budget was spent */
} step_stats;

typedef struct step_parser step_parser;

/* user_regex: NULL for the built-in patterns, else a Perl-compatible regex (step_rx.h: matched with
 * bounded work); its group 1 (optional) is the step number, group 2 (optional) the step's duration,
 * in seconds unless "ms" or "us" follows. NULL with the reason in err when the regex does not
 * compile or memory is short. */
step_parser *steps_new(const char *user_regex, char *err, size_t n);
void steps_free(step_parser *p);

/* Calls fn(arg, t_us, line) for every non-empty line as it completes (on the thread that feeds the
 * parser), beside the step patterns: what else the job says (its allocator's messages). */
typedef void (*steps_line_fn)(void *arg, int64_t t_us, const char *line);
void steps_on_line(step_parser *p, steps_line_fn fn, void *arg);

/* Bytes of one stream (0 stdout, 1 stderr, up to 3) that arrived at t_us. Matching the lines they
 * end takes at most about STEPS_FEED_BUDGET_US (and one line's match limit): lines past it are
 * counted as not searched, so the output relay and the signals passed to the job never wait on it. */
#define STEPS_FEED_BUDGET_US 20000
void steps_feed(step_parser *p, int stream, int64_t t_us, const char *data, size_t len);
/* Ends the streams (a last line without a newline counts). A line's time is when its last byte came. */
void steps_finish(step_parser *p);

/* The statistics of the series with the most steps (source "" and nsteps 0 when none). */
void steps_stats(const step_parser *p, step_stats *out);
/* The marks of that series, in time order (valid until the next feed or free): at most
 * STEPS_MAX_MARKS, each the mean of step_stats.marks_merged lines once reduced. */
size_t steps_marks(const step_parser *p, const step_mark **out);

#endif
