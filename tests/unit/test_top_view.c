/* test_top_view.c - whole screens of top drawn into a canvas, no terminal: what an incident needs at
 * 80x24 (clocks not cut by the throttle reasons, alerts in the free rows, `e`, pending alerts that
 * read as pending, `c` saying why no chart shows), the help on 80x24, sixteen GPUs' charts saying
 * which GPUs they show, a paused screen not turning STALE, host CPU/memory bars, GPM figures, the
 * process tree, and the canvas itself (wide characters, ASCII, row differences). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "top_ui.h"

#define T0_MONO 1000000000ull       /* monotonic time of the screens below */
#define T0_WALL 1767225600000000ull /* 2026-01-01 00:00:00 UTC */

static top_model m;
static top_opts o;
static top_ui u;
static canvas cv;

static void gpu(int i, const char *name, double util, double temp, double hbm, double cer)
{
    top_gpu *g = &m.gpus[i];
    memset(g, 0, sizeof *g);
    g->info.index = i;
    snprintf(g->info.str[M_NAME], GW_STR_LEN, "%s", name);
    snprintf(g->info.str[M_PCI_BUS_ID], GW_STR_LEN, "00000000:%02X:00.0", 0x18 + i);
    g->have_sample = 1;
    g->fresh_us = T0_MONO;
    g->s.t_us = T0_WALL;
    sample_set(&g->s, M_UTIL_GPU, util);
    sample_set(&g->s, M_MEM_USED, 40960);
    sample_set(&g->s, M_MEM_TOTAL, 81920);
    sample_set(&g->s, M_POWER_DRAW, 700);
    sample_set(&g->s, M_POWER_ENFORCED_LIMIT, 700);
    sample_set(&g->s, M_TEMP_GPU, temp);
    if (hbm > 0)
        sample_set(&g->s, M_TEMP_MEMORY, hbm);
    sample_set(&g->s, M_CLOCK_SM, 1455);
    sample_set(&g->s, M_CLOCK_MEM, 2619);
    sample_set(&g->s, M_PSTATE, 0);
    sample_set(&g->s, M_PCIE_RX, 4000);
    sample_set(&g->s, M_PCIE_TX, 2000);
    if (cer >= 0)
        sample_set(&g->s, M_CER_ACTIVE, cer);
    history_push(m.hist, i, &g->s);
}

static void procs(int n)
{
    m.nprocs = n;
    for (int i = 0; i < n; i++) {
        gpu_proc *p = &m.procs[i];
        memset(p, 0, sizeof *p);
        p->gpu = i % 3;
        p->pid = 1000 + (unsigned)i;
        p->has_mem = 1;
        p->mem_mib = 100 + i;
        snprintf(p->name, sizeof p->name, "worker%d", i);
    }
}

/* The screens are drawn at T0 + 0.5 s; keys and messages read this clock, whatever the uptime. */
static uint64_t fake_mono(void)
{
    return T0_MONO + 500000;
}

static uint64_t fake_wall(void)
{
    return T0_WALL + 500000;
}

static int setup(void **st)
{
    (void)st;
    top_model_init(&m);
    m.hist = history_new(16, 64);
    snprintf(m.host, sizeof m.host, "node7");
    snprintf(m.versions.driver, sizeof m.versions.driver, "590.48.01");
    m.ngpus = 3;
    m.updated_us = T0_MONO;
    /* GPU 0: sw power cap + sw thermal slowdown + hw slowdown, hot, with GPM. */
    gpu(0, "NVIDIA H100 80GB HBM3", 73, 92, 97, 0x4 | 0x20 | 0x8);
    sample_set(&m.gpus[0].s, M_GPM_TENSOR_ACTIVE, 31);
    gpu(1, "NVIDIA A100-SXM4-40GB", 10, 50, 60, 0);
    gpu(2, "NVIDIA GeForce RTX 4080 SUPER", 25, 50, 0, -1);
    procs(2);
    o = (top_opts){.interval_s = 1, .th = {80, 90, 95, 105}};
    top_ui_init(&u, &o);
    u.clock_mono_us = fake_mono;
    u.clock_wall_us = fake_wall;
    return canvas_resize(&cv, 24, 80);
}

static int teardown(void **st)
{
    (void)st;
    canvas_free(&cv);
    top_model_free(&m);
    return 0;
}

static const char *row(int y)
{
    static char buf[1024];
    return cv_row_text(&cv, y, buf, sizeof buf);
}

/* The first row containing text, or -1. */
static int find(const char *text)
{
    for (int y = 0; y < cv.rows; y++)
        if (strstr(row(y), text))
            return y;
    return -1;
}

static void draw(void)
{
    view_draw(&cv, &m, &u, T0_MONO + 500000, T0_WALL + 500000);
    if (getenv("TOP_VIEW_SHOW"))
        for (int y = 0; y < cv.rows; y++)
            fprintf(stderr, "|%s|\n", row(y));
}

static void test_canvas(void **st)
{
    (void)st;
    canvas c = {0};
    char buf[256];
    assert_int_equal(canvas_resize(&c, 2, 10), 0);
    assert_int_equal(cv_text(&c, 0, 0, 10, TR_NORMAL, "日本語x"), 7);
    assert_int_equal(cv_cell(&c, 0, 1)->ch, CELL_WIDE_TAIL);
    assert_string_equal(cv_row_text(&c, 0, buf, sizeof buf), "日本語x   ");
    assert_int_equal(cv_text(&c, 1, 0, 3, TR_WARN, "日本"), 2);   /* no half character */
    assert_int_equal(cv_text(&c, 1, 8, 5, TR_WARN, "abcdef"), 2); /* cut at the edge */
    assert_int_equal(cv_cell(&c, 1, 9)->role, TR_WARN);
    assert_int_equal(cv_text(&c, 5, 0, 5, TR_WARN, "x"), 0); /* outside: nothing */
    cv_text(&c, 1, 0, 10, TR_NORMAL, "a\tb\x01");
    assert_string_equal(cv_row_text(&c, 1, buf, sizeof buf), "a?b?    ab");
    canvas d = {0};
    assert_int_equal(canvas_resize(&d, 2, 10), 0);
    d.ascii = 1;
    cv_text(&d, 0, 0, 10, TR_NORMAL, "92 °C 日");
    assert_string_equal(cv_row_text(&d, 0, buf, sizeof buf), "92 C ?    ");
    /* Runs of differences: none, then runs widened to whole characters and split at gaps. */
    canvas e = {0};
    assert_int_equal(canvas_resize(&e, 2, 10), 0);
    cv_text(&e, 0, 0, 10, TR_NORMAL, "日本語x");
    int f, l;
    assert_int_equal(cv_row_run(&c, &e, 0, 0, 2, &f, &l), 0);
    cv_text(&e, 0, 2, 2, TR_NORMAL, "本"); /* same character: still no difference */
    assert_int_equal(cv_row_run(&c, &e, 0, 0, 2, &f, &l), 0);
    cv_fill(&e, 0, 3, 1, CELL_WIDE_TAIL, TR_CRIT); /* the second column of 本, in another role */
    assert_int_equal(cv_row_run(&e, &c, 0, 0, 2, &f, &l), 1);
    assert_int_equal(f, 2);
    assert_int_equal(l, 3);
    assert_int_equal(cv_row_run(&e, &c, 0, l + 1, 2, &f, &l), 0);
    cv_text(&e, 0, 9, 1, TR_NORMAL, "z"); /* 5 columns further: a second run */
    assert_int_equal(cv_row_run(&e, &c, 0, 0, 2, &f, &l), 1);
    assert_int_equal(l, 3);
    assert_int_equal(cv_row_run(&e, &c, 0, l + 1, 2, &f, &l), 1);
    assert_int_equal(f, 9);
    assert_int_equal(l, 9);
    assert_int_equal(cv_row_run(&e, &c, 0, 0, 8, &f, &l), 1); /* a wider gap joins them */
    assert_int_equal(f, 2);
    assert_int_equal(l, 9);
    canvas_free(&c);
    canvas_free(&d);
    canvas_free(&e);
}

static void test_incident_80x24(void **st)
{
    (void)st;
    draw();
    /* Full panels; the throttle reasons wrap: the clocks stay whole on the figures line. */
    int y = find("SM 1455 MHz");
    assert_true(y > 0);
    assert_non_null(strstr(row(y), "MEM 2619 MHz"));
    assert_non_null(strstr(row(y), "throttle:"));
    int w = find("sw thermal slowdown");
    assert_true(w == y || w == y + 1);
    assert_true(find("hw slowdown") >= y);
    assert_true(find("TENSOR 31%") > 0); /* GPM where the GPU reports it ... */
    assert_int_equal(find("TENSOR N/A"), -1);
    assert_true(find("00000000:18:00.0") > 0);
    assert_int_equal(u.lay.compact, 0);
    /* ... every line within the width, the footer last. */
    assert_non_null(strstr(row(23), "?:help"));
}

static void test_alerts_panel(void **st)
{
    (void)st;
    int64_t now = (int64_t)T0_WALL;
    m.nalerts = 6;
    for (int i = 0; i < 6; i++) {
        char name[32];
        snprintf(name, sizeof name, "Alert%d", i);
        top_alert_set(&m.alerts[i], name, i == 0 ? "critical" : "warning", i < 2 ? "firing" : "pending", "summary",
                      now - 20000000, 300000000);
    }
    top_alerts_sort(m.alerts, 6);
    draw();
    /* Few processes: the alerts use the rows the table does not need; all six are listed. */
    for (int i = 0; i < 6; i++) {
        char name[32];
        snprintf(name, sizeof name, "Alert%d", i);
        assert_true(find(name) > 0);
    }
    int p = find("pending WARN Alert2 (would fire in 4m39s)");
    assert_true(p > 0);
    assert_int_equal(cv_cell(&cv, p, 0)->role, TR_NORMAL); /* pending: not coloured as an alarm */
    int f = find("CRIT Alert0");
    assert_true(f > 0 && f < p);
    assert_int_equal(cv_cell(&cv, f, 0)->role, TR_CRIT);
    /* Many processes: three lines, the last says how to see the rest; e expands the list. */
    procs(30);
    draw();
    assert_true(find("+4 more alerts (e: expand the list)") > 0);
    assert_int_equal(find("Alert5"), -1);
    top_handle_key(&u, 'e', 3, NULL);
    draw();
    assert_true(find("Alert5") > 0);
    assert_true(find("PROCESSES 30") > 0);
    top_handle_key(&u, 'e', 3, NULL);
    m.nalerts = 0;
    procs(2);
    draw();
    assert_true(find("ALERTS no alerts") > 0);
}

static void test_charts_say_why(void **st)
{
    (void)st;
    /* 3 full panels at 80x24 leave no room: c says how many rows they need. */
    top_handle_key(&u, 'c', 3, NULL); /* selected -> all GPUs */
    draw();
    assert_non_null(strstr(u.msg, "terminal too small for charts: need "));
    assert_non_null(strstr(row(23), "terminal too small for charts"));
    int need = 0;
    sscanf(strstr(u.msg, "need ") + 5, "%d", &need);
    assert_true(need > 24);
    assert_non_null(strstr(u.msg, "l: compact GPUs make room"));
    /* With that many rows they are there. */
    assert_int_equal(canvas_resize(&cv, need, 80), 0);
    u.msg[0] = 0;
    top_handle_key(&u, 'c', 3, NULL); /* off */
    top_handle_key(&u, 'c', 3, NULL); /* selected */
    draw();
    assert_int_equal(strstr(u.msg, "too small"), NULL);
    assert_true(u.lay.chart_h > 0);
    assert_true(find("GPU 0 ⣿ util 73%") > 0);
    assert_int_equal(canvas_resize(&cv, 24, 80), 0);
}

static void test_sixteen_gpus_charts(void **st)
{
    (void)st;
    m.ngpus = 16;
    for (int i = 3; i < 16; i++)
        gpu(i, "NVIDIA H100 80GB HBM3", 50, 40, 50, 0);
    assert_int_equal(canvas_resize(&cv, 40, 120), 0);
    u.chart = CHART_ALL;
    draw();
    assert_int_equal(u.lay.compact, 1);
    assert_true(u.lay.chart_h > 0);
    assert_true(find("charts: GPUs 0-3 of 16") > 0);
    top_handle_key(&u, '9', 16, NULL); /* the grid follows the selection */
    draw();
    assert_true(find("charts: GPUs 8-11 of 16") > 0);
    assert_true(find("GPU 9 ⣿ util 50%") > 0);
    assert_int_equal(find("GPU 0 ⣿"), -1);
    /* At 80x24 all sixteen GPU lines, and no GPU range in the header. */
    assert_int_equal(canvas_resize(&cv, 24, 80), 0);
    draw();
    assert_int_equal(u.lay.gpu_shown, 16);
    assert_int_equal(find("of 16 shown"), -1);
    m.ngpus = 3;
    u.chart = CHART_SELECTED;
    u.sel_gpu = -1;
}

static void test_help_fits_80x24(void **st)
{
    (void)st;
    int n = 0;
    while (top_help_lines[n]) {
        assert_true(fmt_cols(top_help_lines[n]) <= 80);
        n++;
    }
    assert_true(n <= 23); /* and the colours line below them */
    u.help = 1;
    draw();
    for (int i = 0; i < n; i++)
        assert_non_null(strstr(row(i), top_help_lines[i]));
    assert_non_null(strstr(row(23), "core 80/90 C"));
    assert_true(find("INT (graceful stop") >= 0);
    assert_true(find("t         process tree") >= 0);
    top_handle_key(&u, 'x', 3, NULL);
    assert_false(u.help);
}

static void test_pause_is_not_stale(void **st)
{
    (void)st;
    uint64_t mono, wall;
    /* Ten seconds after the last sample: STALE when running ... */
    top_screen_time(&u, T0_MONO + 10000000, T0_WALL + 10000000, &mono, &wall);
    view_draw(&cv, &m, &u, mono, wall);
    assert_true(find("STALE") > 0);
    /* ... not when paused one second after it: the screen keeps the time of the pause. */
    u.paused = 1;
    u.paused_mono_us = T0_MONO + 1000000;
    u.paused_wall_us = T0_WALL + 1000000;
    top_screen_time(&u, T0_MONO + 10000000, T0_WALL + 10000000, &mono, &wall);
    assert_true(mono == T0_MONO + 1000000 && wall == T0_WALL + 1000000);
    view_draw(&cv, &m, &u, mono, wall);
    assert_int_equal(find("STALE"), -1);
    assert_true(find("PAUSED") == 1);
    u.paused = 0;
}

static void test_header(void **st)
{
    (void)st;
    m.versions.simulated = 1;
    m.hoststat = (top_host){1, 1, 42.0, 31.5 * 1024, 125.0 * 1024};
    assert_int_equal(canvas_resize(&cv, 40, 120), 0);
    draw();
    assert_non_null(strstr(row(0), "node7  driver 590.48.01  3 GPUs"));
    assert_non_null(strstr(row(1), " SIMULATED GPUs "));
    assert_non_null(strstr(row(1), "CPU ▕████▎     ▏  42%"));
    assert_non_null(strstr(row(1), "MEM ▕██▌       ▏ 31.5/125 GiB"));
    /* 80 columns: the bars shrink; an error comes before them and pushes them out when long. */
    assert_int_equal(canvas_resize(&cv, 24, 80), 0);
    draw();
    assert_non_null(strstr(row(1), "CPU ▕██▌   ▏  42%"));
    snprintf(m.error, sizeof m.error, "agent https://gpu07:9400: Couldn't connect to server (and more words)");
    draw();
    assert_non_null(strstr(row(1), "agent https://gpu07:9400"));
    assert_null(strstr(row(1), "CPU"));
    m.error[0] = 0;
    m.hoststat = (top_host){0};
    draw();
    assert_null(strstr(row(1), "CPU")); /* no figures (a remote agent): no bars */
    m.versions.simulated = 0;
}

static void test_tree(void **st)
{
    (void)st;
    u.tree = 1;
    u.tree_pid = 1000;
    u.tree_read_us = T0_MONO + 500000; /* read just now: the nodes below are used as they are */
    u.tree_n = 3;
    u.tree_nodes[0] = (proc_node){1, 0, 0, 0, "/sbin/init"};
    u.tree_nodes[1] = (proc_node){1000, 1, 1, 1, "python train.py"};
    u.tree_nodes[2] = (proc_node){1001, 1000, 2, 0, "python -c worker"};
    draw();
    assert_true(find("PROCESS TREE of pid 1000") > 0);
    int y = find("└ 1000 [GPU 0 100 MiB] python train.py");
    assert_true(y > 0);
    assert_int_equal(cv_cell(&cv, y, 0)->role, TR_SELECTED);
    assert_true(find("    └ 1001 [GPU 1 101 MiB] python -c worker") == y + 1);
    u.tree_n = 0;
    draw();
    assert_true(find("pid 1000 is gone or not visible here") > 0);
    top_handle_key(&u, 't', 3, NULL);
    assert_false(u.tree);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    setenv("TZ", "UTC", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canvas),
        cmocka_unit_test_setup_teardown(test_incident_80x24, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alerts_panel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_charts_say_why, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sixteen_gpus_charts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_help_fits_80x24, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pause_is_not_stale, setup, teardown),
        cmocka_unit_test_setup_teardown(test_header, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tree, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
