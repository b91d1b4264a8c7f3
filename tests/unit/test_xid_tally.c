/* test_xid_tally.c - XIDs counted per code from consecutive samples: growth put on the last code,
 * the first sample's whole count, a count that starts over, samples without XID data, a table full
 * of codes; and the exporter's gpuwatch_xid_errors_total{xid} from it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "exposition.h"
#include "xid_tally.h"

static gpu_sample xid_sample(double count, double last)
{
    gpu_sample s;
    memset(&s, 0, sizeof s);
    sample_set(&s, M_XID_COUNT, count);
    sample_set(&s, M_XID_LAST, last);
    return s;
}

static double total_of(const xid_tally *t, unsigned code)
{
    for (int i = 0; i < t->n; i++)
        if (t->code[i] == code)
            return t->total[i];
    return -1;
}

/* Random sequences of XID arrivals, at most one code per interval: the tally equals what arrived. */
static void test_sequences(void **state)
{
    (void)state;
    static const unsigned codes[] = {13, 31, 43, 48, 63, 64, 74, 79, 92, 94, 95, 119};
    unsigned seed = 7;
    for (int round = 0; round < 200; round++) {
        xid_tally t;
        memset(&t, 0, sizeof t);
        double arrived[200] = {0}, count = 0, last = 0;
        for (int k = 0; k < 100; k++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = (seed >> 8) % 100;
            if (r < 30) {
                unsigned code = codes[(seed >> 16) % 12];
                double n = 1 + (seed >> 20) % 3;
                arrived[code] += n;
                count += n;
                last = code;
            }
            gpu_sample s = xid_sample(count, last);
            xid_tally_add(&t, &s);
        }
        for (size_t c = 0; c < 12; c++) {
            double got = total_of(&t, codes[c]);
            assert_true(arrived[codes[c]] == 0 ? got < 0 : got == arrived[codes[c]]);
        }
    }
}

static void test_edges(void **state)
{
    (void)state;
    xid_tally t;
    memset(&t, 0, sizeof t);
    gpu_sample none;
    memset(&none, 0, sizeof none);
    xid_tally_add(&t, &none); /* no XID data: nothing */
    assert_int_equal(t.n, 0);
    gpu_sample s = xid_sample(5, 79); /* first sample: its whole count on its last code */
    xid_tally_add(&t, &s);
    assert_true(total_of(&t, 79) == 5);
    s = xid_sample(5, 79);
    xid_tally_add(&t, &s);
    assert_true(total_of(&t, 79) == 5);
    s = xid_sample(2, 48); /* the backend counted from 0 again */
    xid_tally_add(&t, &s);
    assert_true(total_of(&t, 48) == 2);
    assert_true(total_of(&t, 79) < 0);
    /* more codes than slots: the last slot takes the rest, nothing is lost */
    memset(&t, 0, sizeof t);
    for (int k = 1; k <= XID_TALLY_MAX + 10; k++) {
        s = xid_sample(k, 1000 + k);
        xid_tally_add(&t, &s);
    }
    double sum = 0;
    for (int i = 0; i < t.n; i++)
        sum += t.total[i];
    assert_int_equal(t.n, XID_TALLY_MAX);
    assert_true(sum == XID_TALLY_MAX + 10);
}

static void test_exported(void **state)
{
    (void)state;
    agent_gpu_view g;
    memset(&g, 0, sizeof g);
    g.has_sample = 1;
    g.sample = xid_sample(4, 48);
    gpu_sample a = xid_sample(3, 79);
    xid_tally_add(&g.xids, &a);
    xid_tally_add(&g.xids, &g.sample);
    agent_snapshot snap;
    memset(&snap, 0, sizeof snap);
    snap.ngpus = 1;
    snap.gpus = &g;
    expo_options o;
    expo_options_default(&o);
    gw_buf b;
    buf_init(&b);
    expo_write_gpus(&b, &snap, &o);
    assert_non_null(strstr(b.data, "gpuwatch_xid_errors_total{gpu=\"0\",uuid=\"\",xid=\"79\"} 3\n"));
    assert_non_null(strstr(b.data, "gpuwatch_xid_errors_total{gpu=\"0\",uuid=\"\",xid=\"48\"} 1\n"));
    assert_non_null(strstr(b.data, "# TYPE gpuwatch_xid_errors_total counter\n"));
    g.lost = 1; /* a lost GPU has no value series */
    buf_clear(&b);
    expo_write_gpus(&b, &snap, &o);
    assert_null(strstr(b.data, "gpuwatch_xid_errors_total{"));
    buf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sequences),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_exported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
