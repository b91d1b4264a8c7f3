/* suggest.c - the closest name to a mistyped one: optimal string alignment distance (Damerau's
 * edits without reusing a swapped pair), case-insensitive, over whatever candidates the caller offers. */
#include "suggest.h"
#include <stdio.h>
#include <string.h>

#define FAR 1000

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int min3(int a, int b, int c)
{
    int m = a < b ? a : b;
    return m < c ? m : c;
}

int gw_edit_distance(const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen >= GW_SUGGEST_LEN || blen >= GW_SUGGEST_LEN)
        return FAR;
    /* three rows of the dynamic programme: i-2, i-1, i */
    int rows[3][GW_SUGGEST_LEN + 1];
    int *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= blen; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= alen; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= blen; j++) {
            int cost = lower(a[i - 1]) != lower(b[j - 1]);
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]) &&
                prev2[j - 2] + 1 < cur[j])
                cur[j] = prev2[j - 2] + 1;
        }
        int *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[blen];
}

/* How many edits still read as the same word: short words tolerate one, long ones three. */
static int allowed(size_t len)
{
    return len <= 4 ? 1 : len <= 8 ? 2 : 3;
}

void gw_suggest_init(gw_suggest *s, const char *word)
{
    s->word = word ? word : "";
    s->best[0] = 0;
    s->best_dist = FAR;
}

void gw_suggest_addn(gw_suggest *s, const char *candidate, size_t len)
{
    if (!candidate || len == 0 || len >= GW_SUGGEST_LEN)
        return;
    int d = gw_edit_distance(s->word, strlen(s->word), candidate, len);
    if (d < s->best_dist) {
        memcpy(s->best, candidate, len);
        s->best[len] = 0;
        s->best_dist = d;
    }
}

void gw_suggest_add(gw_suggest *s, const char *candidate)
{
    if (candidate)
        gw_suggest_addn(s, candidate, strlen(candidate));
}

void gw_suggest_add_list(gw_suggest *s, const char *list)
{
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        gw_suggest_addn(s, p, len);
        p = end ? end + 1 : NULL;
    }
}

const char *gw_suggest_best(const gw_suggest *s)
{
    if (!s->best[0] || (s->best_dist == 0 && strcmp(s->best, s->word) == 0))
        return NULL;
    return s->best_dist <= allowed(strlen(s->word)) ? s->best : NULL;
}

const char *gw_suggest_suffix(const gw_suggest *s, char *buf, size_t n)
{
    const char *best = gw_suggest_best(s);
    if (n == 0)
        return buf;
    if (best)
        snprintf(buf, n, " \xe2\x80\x94 did you mean '%s'?", best);
    else
        buf[0] = 0;
    return buf;
}
