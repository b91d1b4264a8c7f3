/* suggest.h - "did you mean": the closest of a set of names to a mistyped one. Commands, options,
 * field and metric names, format names and scenario names all go through it, so every typo gets the
 * same kind of answer:  gpuwatch: unknown command 'qurey' — did you mean 'query'?
 *
 * Usage: gw_suggest s; gw_suggest_init(&s, word); gw_suggest_add(&s, candidate) for each name;
 * then gw_suggest_suffix() gives " — did you mean 'X'?" or "" when nothing is close enough. */
#ifndef GPUWATCH_SUGGEST_H
#define GPUWATCH_SUGGEST_H

#include <stddef.h>

#define GW_SUGGEST_LEN 128 /* longer words and candidates are not compared */

typedef struct gw_suggest {
    const char *word;          /* what the user typed (not copied: it must outlive the suggestion) */
    char best[GW_SUGGEST_LEN]; /* the closest candidate so far, "" when none is close enough */
    int best_dist;
} gw_suggest;

void gw_suggest_init(gw_suggest *s, const char *word);
/* Offers a candidate (NUL-terminated), or its first len bytes (gw_suggest_addn: for comma lists). */
void gw_suggest_add(gw_suggest *s, const char *candidate);
void gw_suggest_addn(gw_suggest *s, const char *candidate, size_t len);
/* Offers every name of a comma-separated list ("a,b,c"); NULL offers nothing. */
void gw_suggest_add_list(gw_suggest *s, const char *list);
/* The closest candidate, or NULL when none is within the distance allowed for the word's length
 * (1 edit up to 4 characters, 2 up to 8, 3 beyond) or the word matches a candidate exactly. */
const char *gw_suggest_best(const gw_suggest *s);
/* " — did you mean 'X'?" into buf, or "" when there is no suggestion; returns buf. */
const char *gw_suggest_suffix(const gw_suggest *s, char *buf, size_t n);

/* Edits (insert, delete, substitute, swap two neighbours) between a and b, ignoring ASCII case;
 * words longer than GW_SUGGEST_LEN count as far apart (a large number). */
int gw_edit_distance(const char *a, size_t alen, const char *b, size_t blen);

#endif
