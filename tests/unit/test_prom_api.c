/* test_prom_api.c - the decoder of the Prometheus HTTP query API's answers (prom_api.h) and the
 * engine client's checks (prom_client.h): well-formed matrices, vectors and series lists of many
 * shapes decoded point for point; hostile answers (error answers with escape sequences, wrong result
 * types, times out of the range or going back, NaN and infinities, too many series, points and
 * labels, bad label names, huge values, deep nesting, not JSON); URLs; an unreachable engine. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "prom_client.h"
#include "text.h"
#include "util.h"

#define T0 1796400000.0 /* seconds: the range the answers are read against starts here */

static char err[512];
static const prom_context ctx = {
    .from_us = (uint64_t)(T0 * 1e6), .to_us = (uint64_t)((T0 + 3600) * 1e6), .slack_us = 15000000};

/* A matrix of nseries series of npoints points each, step 15 s, value = series * 1000 + point. */
static void matrix(gw_buf *b, int nseries, int npoints)
{
    buf_clear(b);
    buf_puts(b, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
    for (int s = 0; s < nseries; s++) {
        buf_printf(b,
                   "%s{\"metric\":{\"__name__\":\"gpuwatch_utilization_ratio\",\"instance\":\"host%d:9400\","
                   "\"gpu\":\"%d\"},\"values\":[",
                   s ? "," : "", s / 8, s % 8);
        for (int p = 0; p < npoints; p++)
            buf_printf(b, "%s[%.3f,\"%d\"]", p ? "," : "", T0 + p * 15.0, s * 1000 + p);
        buf_puts(b, "]}");
    }
    buf_puts(b, "]}}");
}

static void decodes_matrices(void **state)
{
    (void)state;
    gw_buf b;
    buf_init(&b);
    int shapes[][2] = {{0, 0}, {1, 1}, {1, 240}, {8, 60}, {64, 3}, {3, 0}};
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        matrix(&b, shapes[k][0], shapes[k][1]);
        prom_result r;
        assert_int_equal(prom_decode(b.data, b.len, 200, &ctx, PROM_MATRIX, &r, err, sizeof err), 0);
        assert_int_equal(r.n, shapes[k][0]);
        assert_int_equal(r.series_left_out + r.points_left_out + r.nonfinite + r.labels_left_out, 0);
        for (int s = 0; s < r.n; s++) {
            char want[32];
            snprintf(want, sizeof want, "host%d:9400", s / 8);
            assert_string_equal(prom_label_get(&r.s[s], "instance"), want);
            assert_string_equal(prom_label_get(&r.s[s], "__name__"), "gpuwatch_utilization_ratio");
            assert_null(prom_label_get(&r.s[s], "uuid"));
            assert_int_equal(r.s[s].n, shapes[k][1]);
            for (int p = 0; p < r.s[s].n; p++) {
                assert_true(r.s[s].v[p] == s * 1000 + p);
                assert_true(r.s[s].t_us[p] == (uint64_t)llround((T0 + p * 15.0) * 1e6));
            }
        }
        prom_result_free(&r);
    }
    buf_release(&b);
}

static void decodes_vectors_and_series(void **state)
{
    (void)state;
    const char *vec = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
                      "{\"metric\":{\"gpu\":\"0\"},\"value\":[1796400010.5,\"42.5\"]},"
                      "{\"metric\":{\"gpu\":\"1\"},\"value\":[1796400010.5,\"NaN\"]}]}}";
    prom_result r;
    assert_int_equal(prom_decode(vec, strlen(vec), 200, &ctx, PROM_VECTOR, &r, err, sizeof err), 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.s[0].n, 1);
    assert_true(r.s[0].v[0] == 42.5);
    assert_int_equal(r.s[1].n, 0); /* NaN is no reading */
    assert_int_equal(r.nonfinite, 1);
    prom_result_free(&r);
    const char *ser = "{\"status\":\"success\",\"data\":[{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"Hostname\":\"a\"},"
                      "{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"Hostname\":\"b\"}],\"warnings\":[\"slow\\u001b[2J\"]}";
    assert_int_equal(prom_decode(ser, strlen(ser), 200, NULL, PROM_SERIES, &r, err, sizeof err), 0);
    assert_int_equal(r.n, 2);
    assert_string_equal(prom_label_get(&r.s[1], "Hostname"), "b");
    assert_true(gw_text_is_clean(r.warning) && strstr(r.warning, "slow"));
    prom_result_free(&r);
}

/* Each answer is refused, with a clean message naming what was wrong. */
static void refuses_answers(void **state)
{
    (void)state;
    struct {
        const char *body;
        long status;
        prom_kind want;
        const char *says;
    } cases[] = {
        {"{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"1:5: parse error\\u001b]0;x\\u0007\"}", 400,
         PROM_MATRIX, "HTTP 400: bad_data: 1:5: parse error"},
        {"{\"status\":\"error\",\"errorType\":\"timeout\",\"error\":\"query timed out\"}", 503, PROM_MATRIX,
         "HTTP 503: timeout: query timed out"},
        {"{\"status\":\"error\",\"errorType\":\"execution\",\"error\":\"too many samples\"}", 200, PROM_MATRIX,
         "execution: too many samples"},
        {"<html>502 Bad Gateway\x1b[31m</html>\nmore", 502, PROM_MATRIX, "HTTP 502: <html>502 Bad Gateway"},
        {"", 504, PROM_MATRIX, "HTTP 504"},
        {"", 200, PROM_MATRIX, "an empty answer"},
        {"not json", 200, PROM_MATRIX, "not JSON"},
        {"[1,2]", 200, PROM_MATRIX, "not a JSON object"},
        {"{\"data\":{}}", 200, PROM_MATRIX, "no \"status\""},
        {"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}", 200, PROM_MATRIX,
         "a vector where a matrix was asked"},
        {"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":{}}}", 200, PROM_MATRIX,
         "where a matrix was asked"},
        {"{\"status\":\"success\",\"data\":{\"result\":[]}}", 200, PROM_VECTOR, "no result type where a vector"},
        {"{\"status\":\"success\",\"data\":{}}", 200, PROM_SERIES, "not a list of series"},
        {"{\"status\":\"success\",\"data\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}", 200, PROM_SERIES,
         "nested deeper"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        prom_result r;
        err[0] = 0;
        assert_int_equal(prom_decode(cases[k].body, strlen(cases[k].body), cases[k].status, &ctx, cases[k].want, &r,
                                     err, sizeof err),
                         -1);
        if (!strstr(err, cases[k].says))
            fail_msg("case %zu: '%s' does not say '%s'", k, err, cases[k].says);
        assert_true(gw_text_is_clean(err));
        assert_int_equal(r.n, 0);
        assert_null(r.s);
    }
}

/* Points that fail their checks are left out and counted; the rest are kept in order. */
static void leaves_out_bad_points(void **state)
{
    (void)state;
    const char *bad[] = {"[1796400000,\"NaN\"]",
                         "[1796400000,\"+Inf\"]",
                         "[1796400000,\"-Inf\"]",
                         "[1796400000,\"\"]",
                         "[1796400000,\"1x\"]",
                         "[1796400000,\" 1\"]",
                         "[1796400000,\"1e999\"]",
                         "[1796400000,5]",
                         "[\"1796400000\",\"5\"]",
                         "[1796400000]",
                         "[1796400000,\"5\",1]",
                         "[1e300,\"5\"]",
                         "[-1,\"5\"]",
                         "[1700000000,\"5\"]",
                         "[1796500000,\"5\"]",
                         "{}",
                         "null",
                         "[1796400000,null]"};
    gw_buf b;
    buf_init(&b);
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        buf_clear(&b);
        buf_printf(&b,
                   "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{},"
                   "\"values\":[[1796399990,\"1\"],%s,[1796400100,\"2\"],[1796400100,\"3\"],[1796400050,\"4\"]]}]}}",
                   bad[k]);
        prom_result r;
        assert_int_equal(prom_decode(b.data, b.len, 200, &ctx, PROM_MATRIX, &r, err, sizeof err), 0);
        assert_int_equal(r.n, 1);
        /* the good first and third points; the repeated and the earlier time are left out */
        assert_int_equal(r.s[0].n, 2);
        assert_true(r.s[0].v[0] == 1 && r.s[0].v[1] == 2);
        assert_int_equal(r.points_left_out + r.nonfinite, 3);
        prom_result_free(&r);
    }
    buf_release(&b);
}

/* Counts past the caps are cut and counted; labels are checked, cut and cleaned. */
static void caps_counts_and_labels(void **state)
{
    (void)state;
    gw_buf b;
    buf_init(&b);
    matrix(&b, 1, PROM_MAX_POINTS + 7);
    prom_result r;
    prom_context wide = {.from_us = ctx.from_us, .to_us = ctx.from_us + 200000000000ull, .slack_us = 0};
    assert_int_equal(prom_decode(b.data, b.len, 200, &wide, PROM_MATRIX, &r, err, sizeof err), 0);
    assert_int_equal(r.s[0].n, PROM_MAX_POINTS);
    assert_int_equal(r.points_left_out, 7);
    prom_result_free(&r);

    buf_clear(&b);
    buf_puts(&b, "{\"status\":\"success\",\"data\":[");
    for (int s = 0; s < PROM_MAX_SERIES + 3; s++)
        buf_printf(&b, "%s{\"a\":\"%d\"}", s ? "," : "", s);
    buf_puts(&b, "]}");
    assert_int_equal(prom_decode(b.data, b.len, 200, NULL, PROM_SERIES, &r, err, sizeof err), 0);
    assert_int_equal(r.n, PROM_MAX_SERIES);
    assert_int_equal(r.series_left_out, 3);
    prom_result_free(&r);

    buf_clear(&b);
    buf_puts(&b,
             "{\"status\":\"success\",\"data\":[{\"ok\":\"1\",\"ok\":\"2\",\"9bad\":\"x\",\"b-ad\":\"x\",\"\":\"x\","
             "\"num\":5,\"obj\":{},\"esc\":\"a\\u001b[2Jb\\u0000c\\u009b\",\"long\":\"");
    for (int i = 0; i < PROM_MAX_LABEL_VALUE * 2; i++)
        buf_putc(&b, i % 3 ? 'x' : '\xc3'), buf_putc(&b, i % 3 ? 'y' : '\xa9');
    buf_puts(&b, "\"");
    for (int i = 0; i < PROM_MAX_LABELS + 5; i++)
        buf_printf(&b, ",\"l%d\":\"v\"", i);
    buf_puts(&b, "}, 5, \"s\", {}]}");
    assert_int_equal(prom_decode(b.data, b.len, 200, NULL, PROM_SERIES, &r, err, sizeof err), 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.series_left_out, 2);
    assert_int_equal(r.s[0].nlabels, PROM_MAX_LABELS);
    assert_string_equal(prom_label_get(&r.s[0], "ok"), "1");
    assert_null(prom_label_get(&r.s[0], "9bad"));
    assert_null(prom_label_get(&r.s[0], "b-ad"));
    assert_null(prom_label_get(&r.s[0], "num"));
    assert_true(gw_text_is_clean(prom_label_get(&r.s[0], "esc")));
    assert_true(strlen(prom_label_get(&r.s[0], "long")) <= PROM_MAX_LABEL_VALUE);
    assert_true(gw_text_is_clean(prom_label_get(&r.s[0], "long")));
    assert_true(r.labels_left_out >= 7);
    assert_int_equal(r.s[1].nlabels, 0);
    prom_result_free(&r);
    buf_release(&b);
}

static void parses_values(void **state)
{
    (void)state;
    struct {
        const char *s;
        int ok;
        double v;
    } cases[] = {{"0", 1, 0},     {"1.5", 1, 1.5}, {"-2e3", 1, -2000}, {"1E-3", 1, 0.001}, {"NaN", 0, 0},
                 {"+Inf", 0, 0},  {"-Inf", 0, 0},  {"", 0, 0},         {"1 ", 0, 0},       {" 1", 0, 0},
                 {"0x10", 1, 16}, {"1e400", 0, 0}, {"abc", 0, 0},      {NULL, 0, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        double v = -99;
        assert_int_equal(prom_parse_value(cases[k].s, &v), cases[k].ok);
        if (cases[k].ok)
            assert_true(v == cases[k].v);
    }
}

static void checks_urls(void **state)
{
    (void)state;
    const char *good[] = {"http://prometheus:9090", "https://prom.example.com", "http://127.0.0.1:9090/",
                          "http://[::1]:9090/prom", "https://thanos:10902/api/prom"};
    const char *bad[] = {"prometheus:9090", "ftp://x:1",        "http://",         "http:///x",
                         "http://a:99999",  "http://a:",        "http://u@a:9090", "http://a:9090/?q=1",
                         "http://a b:9090", "http://a:9090/#x", "http://:9090",    "http://a:x9"};
    gw_opt opt = {"--prometheus", GW_OPT_CUSTOM, .off = 0};
    for (size_t k = 0; k < sizeof good / sizeof *good; k++) {
        const char *out = NULL;
        char why[256];
        assert_int_equal(prom_client_check_url(&opt, good[k], &out, why, sizeof why), 0);
        assert_ptr_equal(out, good[k]);
    }
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        const char *out = NULL;
        char why[256] = "";
        if (prom_client_check_url(&opt, bad[k], &out, why, sizeof why) != -1)
            fail_msg("'%s' taken", bad[k]);
        assert_non_null(strstr(why, bad[k]));
        assert_null(out);
    }
}

static void chooses_steps(void **state)
{
    (void)state;
    double ranges[] = {1, 60, 600, 3600, 6 * 3600, 86400, 7 * 86400, 30 * 86400};
    double mins[] = {0.1, 1, 15};
    for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++)
        for (size_t j = 0; j < sizeof mins / sizeof *mins; j++) {
            double step = prom_step(ranges[i], mins[j]);
            assert_true(step >= mins[j]);
            assert_true(ranges[i] / step + 1 <= PROM_MAX_POINTS);
            assert_true(step < mins[j] + 1 || ranges[i] / (step - 1) + 1 > PROM_MAX_POINTS);
        }
}

/* An engine that does not answer: a clear error naming it, quickly. */
static void reports_unreachable(void **state)
{
    (void)state;
    prom_client *c = prom_client_open("http://127.0.0.1:1/prom", NULL, err, sizeof err);
    assert_non_null(c);
    assert_string_equal(prom_client_url(c), "http://127.0.0.1:1/prom");
    prom_result r;
    assert_int_equal(prom_client_series(c, "{gpu=\"0\"}", 1000000, 2000000, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "engine http://127.0.0.1:1"));
    assert_int_equal(r.n, 0);
    prom_client_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decodes_matrices),
        cmocka_unit_test(decodes_vectors_and_series),
        cmocka_unit_test(refuses_answers),
        cmocka_unit_test(leaves_out_bad_points),
        cmocka_unit_test(caps_counts_and_labels),
        cmocka_unit_test(parses_values),
        cmocka_unit_test(checks_urls),
        cmocka_unit_test(chooses_steps),
        cmocka_unit_test(reports_unreachable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
