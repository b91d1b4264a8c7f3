/* test_suggest.c - the "did you mean" helper: edit distances of each kind of typo, the distance
 * allowed for a word's length, ties, lists and the message suffix. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "suggest.h"

static int dist(const char *a, const char *b)
{
    return gw_edit_distance(a, strlen(a), b, strlen(b));
}

static void distances(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b;
        int d;
    } cases[] = {
        {"query", "query", 0}, {"qurey", "query", 1},  /* swapped neighbours count once */
        {"qery", "query", 1},  {"quuery", "query", 1}, /* one left out, one added */
        {"quxry", "query", 1}, {"QUERY", "query", 0},  /* substituted; case ignored */
        {"", "abc", 3},        {"abc", "", 3},
        {"ca", "abc", 3}, /* optimal string alignment: no edit of a swapped pair */
        {"dmon", "pmon", 1},   {"kitten", "sitting", 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(dist(cases[i].a, cases[i].b), cases[i].d);
        assert_int_equal(dist(cases[i].b, cases[i].a), cases[i].d); /* symmetric */
    }
    char longw[GW_SUGGEST_LEN + 8];
    memset(longw, 'a', sizeof longw - 1);
    longw[sizeof longw - 1] = 0;
    assert_true(dist(longw, "a") >= 1000); /* too long to compare: far */
}

static const char *best_of(const char *word, const char *const *cands)
{
    static gw_suggest s;
    gw_suggest_init(&s, word);
    for (int i = 0; cands[i]; i++)
        gw_suggest_add(&s, cands[i]);
    return gw_suggest_best(&s);
}

static void thresholds(void **state)
{
    (void)state;
    static const char *const cmds[] = {"list", "query", "dmon", "pmon", "top", "agent", "history", "version", NULL};
    assert_string_equal(best_of("qurey", cmds), "query");
    assert_string_equal(best_of("lsit", cmds), "list");
    assert_string_equal(best_of("tpo", cmds), "top");         /* 3 letters: one edit */
    assert_null(best_of("xyz", cmds));                        /* nothing within one edit */
    assert_null(best_of("qqqqq", cmds));                      /* 5 letters: at most 2 edits */
    assert_string_equal(best_of("hisotyr", cmds), "history"); /* 7 letters: 2 edits */
    assert_null(best_of("hstr", cmds));                       /* 4 letters: 1 edit only */
    assert_null(best_of("query", cmds));                      /* exact: nothing to suggest */
    assert_string_equal(best_of("Query", cmds), "query");     /* case differs: suggest the right case */
    static const char *const tie[] = {"pmon", "dmon", NULL};
    assert_string_equal(best_of("xmon", tie), "pmon"); /* a tie keeps the first offered */
}

static void lists_and_suffix(void **state)
{
    (void)state;
    gw_suggest s;
    gw_suggest_init(&s, "cvs");
    gw_suggest_add_list(&s, "table,csv,json");
    gw_suggest_add_list(&s, NULL);
    gw_suggest_addn(&s, "jsonlines", 4);
    char buf[64];
    assert_string_equal(gw_suggest_suffix(&s, buf, sizeof buf), " \xe2\x80\x94 did you mean 'csv'?");
    gw_suggest_init(&s, "zzzz");
    gw_suggest_add_list(&s, "table,csv,json");
    assert_string_equal(gw_suggest_suffix(&s, buf, sizeof buf), "");
    assert_null(gw_suggest_best(&s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(distances),
        cmocka_unit_test(thresholds),
        cmocka_unit_test(lists_and_suffix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
