/* fuzz_prom_api.c - the decoder of an engine's Prometheus HTTP API answers (prom_api.h), as
 * diagnose --prometheus and top --prometheus use it. The harness asserts the decoder's promises:
 * counts capped, label names Prometheus names, values and messages clean, points finite, in the
 * queried range and in increasing time. Input: a byte choosing the answer's kind (matrix, vector,
 * series), a byte choosing its HTTP status, then the answer's body. */
#include "common.h"
#include "prom_api.h"
#include "text.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FROM_US 1796400000000000ull /* the queried range: an input means the same every time */
#define TO_US (FROM_US + 3600000000ull)
#define SLACK_US 15000000ull

static void must(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_prom_api: broken promise: %s\n", what);
        abort();
    }
}

static void check_series(const prom_series *s)
{
    must(s->nlabels <= PROM_MAX_LABELS && s->n <= PROM_MAX_POINTS, "capped counts");
    for (int k = 0; k < s->nlabels; k++) {
        const char *name = s->labels[k].name;
        must(name[0] && !isdigit((unsigned char)name[0]) && strlen(name) <= PROM_MAX_LABEL_NAME, "a label name");
        for (const char *c = name; *c; c++)
            must(isalnum((unsigned char)*c) || *c == '_', "a label name's characters");
        must(gw_text_is_clean(s->labels[k].value) && strlen(s->labels[k].value) <= PROM_MAX_LABEL_VALUE,
             "a clean label value");
        must(prom_label_get(s, name) == s->labels[k].value, "one label of a name");
    }
    for (int i = 0; i < s->n; i++) {
        must(isfinite(s->v[i]), "a finite value");
        must(s->t_us[i] + SLACK_US >= FROM_US && s->t_us[i] <= TO_US + SLACK_US, "a time in the range");
        must(i == 0 || s->t_us[i] > s->t_us[i - 1], "points in time order");
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    static const long statuses[] = {200, 400, 422, 503};
    prom_kind kind = (prom_kind)(data[0] % 3);
    long status = statuses[data[1] % 4];
    prom_context ctx = {.from_us = FROM_US, .to_us = TO_US, .slack_us = SLACK_US};
    prom_result r;
    char err[300] = "";
    if (prom_decode((const char *)data + 2, size - 2, status, &ctx, kind, &r, err, sizeof err) != 0) {
        must(err[0] && gw_text_is_clean(err) && r.n == 0 && !r.s, "a clean error and nothing kept");
        return 0;
    }
    must(status == 200 && r.n <= PROM_MAX_SERIES && gw_text_is_clean(r.warning), "a result");
    for (int i = 0; i < r.n; i++)
        check_series(&r.s[i]);
    prom_result_free(&r);
    return 0;
}
