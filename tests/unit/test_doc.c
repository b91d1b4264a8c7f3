/* test_doc.c - the one YAML layer (src/doc): typed accessors and their located messages, and the
 * limits that hold while parsing (depth, size, aliases), for every reader built on it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "doc.h"
#include "rules.h"

static int has(const errlist *e, const char *needle)
{
    for (int i = 0; i < e->n; i++)
        if (strstr(e->msg[i], needle))
            return 1;
    return 0;
}

static void test_accessors(void **st)
{
    (void)st;
    const char *text = "a: 1.5\n"      /* 1 */
                       "b: 1h30m\n"    /* 2 */
                       "c: [x, y]\n"   /* 3 */
                       "d: {e: yes}\n" /* 4 */
                       "f: 2GiB\n"     /* 5 */
                       "g: ~\n"        /* 6 */
                       "h: twelve\n"   /* 7 */
                       "i: 70000\n"    /* 8 */
                       "z: 1\nz: 2\n"; /* 9, 10 */
    errlist e = {0};
    gw_doc d;
    assert_int_equal(doc_load_text(&d, "t.yaml", text, strlen(text), &e), 0);
    doc_node *root = doc_root(&d);
    double x;
    assert_int_equal(doc_number(&d, doc_get(&d, root, "a"), "a", &x), 0);
    assert_true(x == 1.5);
    assert_int_equal(doc_duration(&d, doc_get(&d, root, "b"), "b", &x), 0);
    assert_true(x == 5400);
    assert_int_equal(doc_seq_len(doc_get(&d, root, "c")), 2);
    assert_string_equal(doc_text(doc_seq_at(&d, doc_get(&d, root, "c"), 1)), "y");
    int b = 0;
    assert_int_equal(doc_opt_bool(&d, doc_get(&d, root, "d"), "d", "e", &b), 0);
    assert_int_equal(b, 1);
    assert_string_equal(doc_text(doc_path(&d, "d.e")), "yes");
    uint64_t size;
    assert_int_equal(doc_size(&d, doc_get(&d, root, "f"), "f", &size), 0);
    assert_int_equal(size, 2147483648ULL);
    assert_true(doc_is_null(doc_get(&d, root, "g")));
    assert_true(doc_is_null(doc_get(&d, root, "nothing")));
    assert_int_equal(e.n, 0);
    /* every kind of problem, each located */
    long l;
    assert_int_equal(doc_int(&d, doc_get(&d, root, "h"), "h", 0, 10, &l), -1);
    assert_int_equal(doc_int(&d, doc_get(&d, root, "i"), "i", 0, 65535, &l), -1);
    assert_int_equal(doc_duration(&d, doc_get(&d, root, "h"), "h", &x), -1);
    assert_int_equal(doc_check_seq(&d, doc_get(&d, root, "d"), "d"), -1);
    static const char *const keys[] = {"a", "b", NULL};
    assert_int_equal(doc_check_map(&d, root, "the top level", keys), 0);
    assert_int_equal(doc_check_map(&d, doc_get(&d, root, "c"), "c", keys), -1);
    assert_true(has(&e, "t.yaml:7:4: h: expected a number, got 'twelve'"));
    assert_true(has(&e, "t.yaml:8:4: i: expected an integer from 0 to 65535, got '70000'"));
    assert_true(has(&e, "t.yaml:7:4: h: expected a duration"));
    assert_true(has(&e, "t.yaml:4:4: d: expected a list"));
    assert_true(has(&e, "t.yaml:3:1: unknown key 'c' in the top level (expected one of: a, b)"));
    assert_true(has(&e, "t.yaml:10:1: duplicate key 'z' in the top level"));
    assert_true(has(&e, "t.yaml:3:4: c: expected a mapping of keys (a, b)"));
    doc_free(&d);
    errlist_free(&e);
}

static int load(const char *text, size_t len, errlist *e)
{
    gw_doc d;
    int rc = doc_load_text(&d, "x.yaml", text, len, e);
    doc_free(&d);
    return rc;
}

/* Deep nesting of every kind stops at the limit, fast; just under it loads. */
static void test_depth(void **st)
{
    (void)st;
    const char *open[] = {"[", "{a: ", "- "};
    for (int kind = 0; kind < 3; kind++)
        for (int levels = DOC_MAX_DEPTH - 2; levels <= 50000; levels = levels < 100 ? 100000 / 2 : levels * 2) {
            size_t cap = (size_t)levels * (size_t)(kind == 2 ? levels + 4 : 8) + 64;
            if (cap > 64u << 20)
                continue;
            char *t = malloc(cap);
            size_t n = 0;
            for (int i = 0; i < levels; i++) {
                if (kind == 2) { /* block sequences: each level one more indentation */
                    memset(t + n, ' ', (size_t)i * 2);
                    n += (size_t)i * 2;
                }
                n += (size_t)sprintf(t + n, "%s", open[kind]);
                if (kind == 2)
                    t[n++] = '\n';
            }
            n += (size_t)sprintf(t + n, "%s", kind == 2 ? "" : "1");
            for (int i = 0; kind != 2 && i < levels; i++)
                t[n++] = kind == 0 ? ']' : '}';
            t[n] = 0;
            errlist e = {0};
            clock_t c0 = clock();
            int rc = load(t, n, &e);
            double secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
            if (levels < DOC_MAX_DEPTH)
                assert_int_equal(rc, 0);
            else {
                assert_int_equal(rc, -1);
                assert_true(has(&e, "nested more than 64 levels"));
            }
            assert_true(secs < 1.0);
            errlist_free(&e);
            free(t);
        }
}

static void test_aliases(void **st)
{
    (void)st;
    errlist e = {0};
    const char *ok = "base: &b {x: 1}\nuse: *b\nlist: [*b, *b]\n";
    assert_int_equal(load(ok, strlen(ok), &e), 0);
    const char *cycle = "a: &a [1, *a]\n";
    assert_int_equal(load(cycle, strlen(cycle), &e), -1);
    assert_true(has(&e, "alias *a names no complete anchor"));
    /* "billion laughs": each level ten aliases of the one before */
    char bomb[4096];
    size_t n = (size_t)sprintf(bomb, "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
    for (int i = 1; i < 10; i++)
        n += (size_t)sprintf(bomb + n, "l%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n", i, i,
                             i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
    errlist_free(&e);
    assert_int_equal(load(bomb, n, &e), -1);
    assert_true(has(&e, "more than 1000000 nodes"));
    errlist_free(&e);
}

static void test_size_and_syntax(void **st)
{
    (void)st;
    errlist e = {0};
    size_t big = DOC_MAX_BYTES + 1;
    char *t = malloc(big + 1);
    memset(t, '#', big);
    t[big] = 0;
    assert_int_equal(load(t, big, &e), -1);
    assert_true(has(&e, "larger than"));
    free(t);
    assert_int_equal(load("a: [1, 2\n", 9, &e), -1);
    assert_true(has(&e, "x.yaml:2:1: YAML: "));
    gw_doc d;
    assert_int_equal(doc_load_file(&d, "/nonexistent/x.yaml", &e), -1);
    assert_true(has(&e, "/nonexistent/x.yaml: cannot read: No such file"));
    doc_free(&d);
    errlist_free(&e);
}

/* Shapes where the readers expect others: a located error each, never a crash. */
static void test_rule_file_shapes(void **st)
{
    (void)st;
    const char *texts[] = {"groups: [a, b]\n",
                           "- 1\n- 2\n",
                           "groups: 3\n",
                           "groups:\n- name: g\n  rules: [x]\n",
                           "groups:\n- name: g\n  rules:\n  - alert: A\n    condition: [1]\n",
                           "",
                           "~\n",
                           "groups:\n- {name: g, rules: [{alert: A, condition: {all: 5}}]}\n"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        ruleset rs = {0};
        errlist e = {0};
        assert_true(rules_load_string(&rs, "r.yaml", texts[i], &e) > 0);
        assert_true(strncmp(e.msg[0], "r.yaml", 6) == 0);
        errlist_free(&e);
        ruleset_free(&rs);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accessors),        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_aliases),          cmocka_unit_test(test_size_and_syntax),
        cmocka_unit_test(test_rule_file_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
