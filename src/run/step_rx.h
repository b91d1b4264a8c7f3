/* step_rx.h - the regular expressions step lines are matched with: PCRE2 (Perl syntax, as Python's
 * re: \d, (?:...), lazy quantifiers, back-references), with bounded work. A match that would need
 * more than STEP_RX_MATCH_LIMIT steps of the engine, or backtracking deeper than STEP_RX_DEPTH_LIMIT,
 * gives up and counts as no match, so a pattern such as (a+)+\1 against a long line costs at most
 * milliseconds instead of minutes. */
#ifndef GPUWATCH_RUN_STEP_RX_H
#define GPUWATCH_RUN_STEP_RX_H

#include <stddef.h>

#define STEP_RX_MATCH_LIMIT 200000
#define STEP_RX_DEPTH_LIMIT 2000
#define STEP_RX_HEAP_KIB 2048
#define STEP_RX_MAX_PATTERN 1024

typedef struct step_rx step_rx;

/* A match's group: bytes [so, eo) of the line, so < 0 when the group took no part. */
typedef struct step_rx_span {
    long so, eo;
} step_rx_span;

/* NULL with the reason in err ("missing closing parenthesis at 3") when the pattern does not
 * compile, is longer than STEP_RX_MAX_PATTERN, or memory is short. */
step_rx *step_rx_new(const char *pattern, char *err, size_t n);
void step_rx_free(step_rx *r);
/* The pattern's capturing groups. */
int step_rx_groups(const step_rx *r);
/* Matches line (len bytes, any bytes): 1 with m[0..nm) filled (m[0] the whole match), 0 no match,
 * -1 the limits ran out (no match either). */
int step_rx_match(step_rx *r, const char *line, size_t len, step_rx_span *m, int nm);

#endif
