/* test_run_placement.c - which GPUs gpuwatch run gives a job (src/run/placement.c): eligibility and
 * its reasons, ranking by free memory and utilization with GPU 0 last, and the closest set for
 * several GPUs on an HGX board (NVSwitch, PCIe switch pairs, two NUMA nodes) and on a PCIe box. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "placement.h"

static unsigned char cost[RUN_MAX_GPUS][RUN_MAX_GPUS];

/* n GPUs, two per PCIe switch, the first half on NUMA node 0; NVLink between all when nvlink. */
static void board(int n, int nvlink)
{
    gpu_topology t;
    for (int i = 0; i < n; i++) {
        memset(&t, 0, sizeof t);
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            t.nvlink[j] = (unsigned char)nvlink;
            t.path[j] = i / 2 == j / 2               ? TOPO_PATH_SWITCH
                        : (i < n / 2) == (j < n / 2) ? TOPO_PATH_NODE
                                                     : TOPO_PATH_SYSTEM;
        }
        for (int j = 0; j < n; j++)
            cost[i][j] = (unsigned char)(i == j ? 0 : place_pair_cost(&t, j));
    }
}

static void free_gpus(place_gpu *g, int n)
{
    memset(g, 0, (size_t)n * sizeof *g);
    for (int i = 0; i < n; i++) {
        g[i].free_mib = 80000;
        g[i].util = 0;
    }
}

static place_request req(int n)
{
    place_request r;
    memset(&r, 0, sizeof r);
    r.n = n;
    r.max_util = 100;
    return r;
}

static void test_single_gpu_ranking(void **state)
{
    (void)state;
    place_gpu g[8];
    place_result r;
    free_gpus(g, 8);
    place_request rq = req(1);
    assert_int_equal(place_choose(g, 8, &rq, NULL, &r), 1);
    assert_int_equal(r.gpus[0], 1); /* all equal: GPU 0 is kept for last */
    g[5].free_mib = 80500;          /* under a GiB more: the same rank */
    assert_int_equal(place_choose(g, 8, &rq, NULL, &r), 1);
    assert_int_equal(r.gpus[0], 1);
    g[5].free_mib = 82000; /* a GiB more free */
    assert_int_equal(place_choose(g, 8, &rq, NULL, &r), 1);
    assert_int_equal(r.gpus[0], 5);
    free_gpus(g, 8);
    for (int i = 1; i < 8; i++)
        g[i].util = 40;
    g[6].util = 12; /* less busy */
    assert_int_equal(place_choose(g, 8, &rq, NULL, &r), 1);
    assert_int_equal(r.gpus[0], 0); /* GPU 0 idle beats busy ones */
    g[0].util = 40;
    assert_int_equal(place_choose(g, 8, &rq, NULL, &r), 1);
    assert_int_equal(r.gpus[0], 6);
    /* only GPU 0 left: it is given */
    free_gpus(g, 8);
    for (int i = 1; i < 8; i++)
        g[i].reserved = 1;
    assert_int_equal(place_choose(g, 8, &rq, NULL, &r), 1);
    assert_int_equal(r.gpus[0], 0);
}

static void test_eligibility(void **state)
{
    (void)state;
    place_gpu g[6];
    place_result r;
    free_gpus(g, 6);
    g[0].lost = 1;
    g[1].reserved = 1;
    snprintf(g[1].holder, sizeof g[1].holder, "pid 42 (alice, job j1)");
    g[2].free_mib = 1000;
    g[3].util = 90;
    place_request rq = req(2);
    rq.min_free_mib = 20000;
    rq.max_util = 50;
    rq.exclude[4] = 1;
    assert_int_equal(place_choose(g, 6, &rq, NULL, &r), 0);
    assert_int_equal(r.neligible, 1);
    assert_non_null(strstr(r.why[0], "lost"));
    assert_non_null(strstr(r.why[1], "pid 42 (alice, job j1)"));
    assert_non_null(strstr(r.why[2], "1000 MiB free"));
    assert_non_null(strstr(r.why[3], "90 % busy"));
    assert_non_null(strstr(r.why[4], "excluded"));
    assert_string_equal(r.why[5], "");
    rq.n = 1;
    assert_int_equal(place_choose(g, 6, &rq, NULL, &r), 1);
    assert_int_equal(r.gpus[0], 5);
    /* --only */
    free_gpus(g, 6);
    rq = req(2);
    rq.has_only = 1;
    rq.only[0] = rq.only[3] = 1;
    assert_int_equal(place_choose(g, 6, &rq, NULL, &r), 2);
    assert_int_equal(r.gpus[0], 0);
    assert_int_equal(r.gpus[1], 3);
    assert_non_null(strstr(r.why[1], "--only"));
    /* unknown values do not pass a limit */
    free_gpus(g, 2);
    g[1].util = NAN;
    rq = req(2);
    rq.max_util = 50;
    assert_int_equal(place_choose(g, 2, &rq, NULL, &r), 0);
    assert_non_null(strstr(r.why[1], "unknown"));
}

static void test_topology_hgx(void **state)
{
    (void)state;
    place_gpu g[8];
    place_result r;
    board(8, 1);
    free_gpus(g, 8);
    place_request rq = req(2);
    assert_int_equal(place_choose(g, 8, &rq, (const unsigned char(*)[RUN_MAX_GPUS])cost, &r), 2);
    /* one PCIe switch, GPU 0 avoided: 2,3 */
    assert_int_equal(r.gpus[0], 2);
    assert_int_equal(r.gpus[1], 3);
    /* 3 busy: its switch partner 2 pairs with ... the GPUs of another switch (1 is alone with 0) */
    g[3].reserved = 1;
    assert_int_equal(place_choose(g, 8, &rq, (const unsigned char(*)[RUN_MAX_GPUS])cost, &r), 2);
    assert_int_equal(r.gpus[0], 4);
    assert_int_equal(r.gpus[1], 5);
    /* four GPUs: one NUMA node, the one without GPU 0 */
    free_gpus(g, 8);
    rq = req(4);
    assert_int_equal(place_choose(g, 8, &rq, (const unsigned char(*)[RUN_MAX_GPUS])cost, &r), 4);
    for (int k = 0; k < 4; k++)
        assert_int_equal(r.gpus[k], 4 + k);
    /* one busy GPU on node 1: node 0 (with GPU 0) beats spanning both nodes */
    g[6].reserved = 1;
    assert_int_equal(place_choose(g, 8, &rq, (const unsigned char(*)[RUN_MAX_GPUS])cost, &r), 4);
    for (int k = 0; k < 4; k++)
        assert_int_equal(r.gpus[k], k);
}

static void test_topology_pcie_box(void **state)
{
    (void)state;
    place_gpu g[4];
    place_result r;
    board(4, 0);
    free_gpus(g, 4);
    g[2].reserved = 1;
    place_request rq = req(2);
    /* 0,1 share a switch; 1 and 3 would cross NUMA nodes: the switch wins over keeping GPU 0 free */
    assert_int_equal(place_choose(g, 4, &rq, (const unsigned char(*)[RUN_MAX_GPUS])cost, &r), 2);
    assert_int_equal(r.gpus[0], 0);
    assert_int_equal(r.gpus[1], 1);
    assert_int_equal(r.cost, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_gpu_ranking),
        cmocka_unit_test(test_eligibility),
        cmocka_unit_test(test_topology_hgx),
        cmocka_unit_test(test_topology_pcie_box),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
