/* fuzz_steps.c - the step-line parser of gpuwatch run (steps.h): the job's output fed in chunks as
 * it arrives, matched by the built-in patterns or a --step-regex (PCRE2 with match limits), then the
 * statistics and marks the summary and the reports read. The harness asserts that the marks stay
 * bounded and in time order and the statistics are numbers or NaN, never garbage. Input: a first
 * byte (even: built-in patterns; odd: a --step-regex, the text up to the first NUL), then the
 * output; each byte of 0x01 ends a chunk (a new arrival, 100 ms later). */
#include "common.h"
#include "step_rx.h"
#include "steps.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *p = (const char *)data + 1, *end = (const char *)data + size;
    char rx[STEP_RX_MAX_PATTERN + 1];
    const char *regex = NULL;
    if (data[0] & 1) {
        const char *nul = memchr(p, 0, (size_t)(end - p));
        size_t len = (size_t)((nul ? nul : end) - p);
        if (len > STEP_RX_MAX_PATTERN)
            return 0;
        memcpy(rx, p, len);
        rx[len] = 0;
        regex = rx;
        p = nul ? nul + 1 : end;
    }
    char err[256];
    step_parser *sp = steps_new(regex, err, sizeof err);
    if (!sp)
        return 0;
    int64_t t = 1764680000000000ll;
    int stream = 0;
    while (p < end) {
        const char *cut = memchr(p, 1, (size_t)(end - p));
        size_t len = (size_t)((cut ? cut : end) - p);
        steps_feed(sp, stream, t, p, len);
        stream = (stream + 1) % 2;
        t += 100000;
        p = cut ? cut + 1 : end;
    }
    steps_finish(sp);
    step_stats st;
    steps_stats(sp, &st);
    const step_mark *m;
    size_t n = steps_marks(sp, &m);
    if (n > STEPS_MAX_MARKS || st.nsteps < 0 || (st.nsteps > 0 && !(st.mean_s >= 0)) ||
        (!isnan(st.p50_s) && !(st.p50_s >= 0)) || (!isnan(st.p95_s) && !(st.p95_s >= 0))) {
        fprintf(stderr, "fuzz_steps: broken statistics (%zu marks, %ld steps)\n", n, st.nsteps);
        abort();
    }
    for (size_t i = 1; i < n; i++)
        if (m[i].t_us < m[i - 1].t_us) {
            fprintf(stderr, "fuzz_steps: marks out of time order\n");
            abort();
        }
    steps_free(sp);
    return 0;
}
