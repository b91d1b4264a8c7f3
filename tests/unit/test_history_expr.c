/* test_history_expr.c - metric expressions of `gpuwatch history` (metric_expr.c): precedence,
 * parentheses, unary minus, fields read once, no value for a division by zero, located errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "metric_expr.h"

/* Values given to the fields: memory.used 60, memory.total 80, power.draw 300, utilization.gpu 50. */
static double field_value(metric_id m)
{
    return m == M_MEM_USED ? 60 : m == M_MEM_TOTAL ? 80 : m == M_POWER_DRAW ? 300 : m == M_UTIL_GPU ? 50 : -1;
}

/* text's value, plus 0 times a field (an expression needs one). */
static double eval(const char *text)
{
    metric_expr e;
    char err[300], with[300];
    snprintf(with, sizeof with, "%s+0*utilization.gpu", text);
    assert_int_equal(mexpr_parse(with, &e, err, sizeof err), 0);
    double vals[MEXPR_MAX_METRICS];
    for (int i = 0; i < e.nmetrics; i++)
        vals[i] = field_value(e.metrics[i]);
    return mexpr_eval(&e, vals);
}

static void test_values(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double want;
    } cases[] = {
        {"memory.used/memory.total", 0.75},
        {"100*memory.used/memory.total", 75},
        {"100 * memory.used / memory.total", 75},
        {"memory.used-memory.total", -20},
        {"1+2*3", 7},
        {"(1+2)*3", 9},
        {"8/4/2", 1},
        {"8-4-2", 2},
        {"-power.draw+1", -299},
        {"-(power.draw-utilization.gpu)*2", -500},
        {"2*-3", -6},
        {"1.5e2+utilization.gpu", 200},
        {"((utilization.gpu))", 50},
        {"power.draw/(utilization.gpu-50)", NAN},
        {"0/0", NAN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double v = eval(cases[i].text);
        if (isnan(cases[i].want))
            assert_true(isnan(v));
        else
            assert_true(fabs(v - cases[i].want) < 1e-12);
    }
}

static void test_fields(void **state)
{
    (void)state;
    metric_expr e;
    char err[300];
    assert_int_equal(mexpr_parse("memory.used/memory.total+memory.used", &e, err, sizeof err), 0);
    assert_int_equal(e.nmetrics, 2); /* each field read once */
    assert_int_equal(e.metrics[0], M_MEM_USED);
    assert_int_equal(e.metrics[1], M_MEM_TOTAL);
    assert_false(mexpr_is_field(&e));
    assert_string_equal(e.text, "memory.used/memory.total+memory.used");
    assert_int_equal(mexpr_parse(" power.draw ", &e, err, sizeof err), 0);
    assert_true(mexpr_is_field(&e));
    assert_string_equal(e.text, "power.draw");
}

static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *says;
    } cases[] = {
        {"", "unexpected end at character 1"},
        {"power.draw/", "unexpected end at character 12"},
        {"(power.draw", "expected ')' at character 12"},
        {"power.draw)", "unexpected character at character 11"},
        {"power.draw*no.such", "unknown metric 'no.such'"},
        {"name", "unknown metric 'name'"}, /* a text field: history keeps numbers */
        {"power.draw * $", "expected a metric, a number or '(' at character 14"}, /* in the text as given */
        {"2 3", "unexpected character at character 3"},
        {"memory. used", "unknown metric 'memory.'"},
        {"1+2", "no metric in it"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        metric_expr e;
        char err[300] = "";
        assert_int_equal(mexpr_parse(cases[i].text, &e, err, sizeof err), -1);
        if (!strstr(err, cases[i].says))
            fail_msg("'%s': %s", cases[i].text, err);
    }
    char longer[600];
    memset(longer, '1', sizeof longer - 1);
    longer[sizeof longer - 1] = 0;
    metric_expr e;
    char err[300];
    assert_int_equal(mexpr_parse(longer, &e, err, sizeof err), -1);
    char deep[200] = "";
    for (int i = 0; i < 40; i++)
        strcat(deep, "(");
    assert_int_equal(mexpr_parse(deep, &e, err, sizeof err), -1);
    assert_non_null(strstr(err, "too deeply nested"));
    char many[MEXPR_MAX_TEXT] = "1";
    for (int i = 0; i < 70; i++)
        strcat(many, "+1");
    assert_int_equal(mexpr_parse(many, &e, err, sizeof err), -1);
    assert_non_null(strstr(err, "too long"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_values), cmocka_unit_test(test_fields),
                                       cmocka_unit_test(test_errors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
