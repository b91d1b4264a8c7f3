/* step_rx.c - PCRE2 with match limits for step lines (step_rx.h). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "step_rx.h"
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct step_rx {
    pcre2_code *code;
    pcre2_match_data *md;
    pcre2_match_context *mc;
    int groups;
};

step_rx *step_rx_new(const char *pattern, char *err, size_t n)
{
    if (strlen(pattern) > STEP_RX_MAX_PATTERN) {
        snprintf(err, n, "longer than %d bytes", STEP_RX_MAX_PATTERN);
        return NULL;
    }
    step_rx *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    int code;
    PCRE2_SIZE at;
    r->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code, &at, NULL);
    if (!r->code) {
        char why[160];
        pcre2_get_error_message(code, (PCRE2_UCHAR *)why, sizeof why);
        snprintf(err, n, "%s at %zu", why, (size_t)at);
        free(r);
        return NULL;
    }
    /* the JIT is much faster; where it cannot run (no executable memory), the interpreter does */
    pcre2_jit_compile(r->code, PCRE2_JIT_COMPLETE);
    uint32_t groups = 0;
    pcre2_pattern_info(r->code, PCRE2_INFO_CAPTURECOUNT, &groups);
    r->groups = (int)groups;
    r->md = pcre2_match_data_create_from_pattern(r->code, NULL);
    r->mc = pcre2_match_context_create(NULL);
    if (!r->md || !r->mc) {
        snprintf(err, n, "out of memory");
        step_rx_free(r);
        return NULL;
    }
    pcre2_set_match_limit(r->mc, STEP_RX_MATCH_LIMIT);
    pcre2_set_depth_limit(r->mc, STEP_RX_DEPTH_LIMIT);
    pcre2_set_heap_limit(r->mc, STEP_RX_HEAP_KIB);
    return r;
}

void step_rx_free(step_rx *r)
{
    if (!r)
        return;
    pcre2_match_context_free(r->mc);
    pcre2_match_data_free(r->md);
    pcre2_code_free(r->code);
    free(r);
}

int step_rx_groups(const step_rx *r)
{
    return r->groups;
}

int step_rx_match(step_rx *r, const char *line, size_t len, step_rx_span *m, int nm)
{
    int rc = pcre2_match(r->code, (PCRE2_SPTR)line, len, 0, 0, r->md, r->mc);
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    if (rc < 0)
        return -1; /* a limit (or an error): no match */
    const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->md);
    uint32_t pairs = pcre2_get_ovector_count(r->md);
    for (int i = 0; i < nm; i++) {
        int set = (uint32_t)i < pairs && i < rc && ov[2 * i] != PCRE2_UNSET;
        m[i].so = set ? (long)ov[2 * i] : -1;
        m[i].eo = set ? (long)ov[2 * i + 1] : -1;
    }
    return 1;
}
