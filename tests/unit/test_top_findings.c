/* test_top_findings.c - the diagnosis in top, without a terminal: the texts of a finding (GPUs, since
 * when, the short mark under a GPU, for every detector's evidence and for a real input stall found by
 * the detectors in a synthetic trace), why there is none, the panel at 80x24 sharing rows with the
 * alerts and the processes (squeezed to one line when the GPUs need the rows, a "none" line giving
 * way first), the list under `f` whose selection follows its finding from one report to the next,
 * one finding's evidence and advice, and the rows the layout gives each panel. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <locale.h>
#include <math.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "top_ui.h"
#include "test_diag_synth.h"

#define T0_MONO 1000000000ull       /* monotonic time of the screens below */
#define T0_WALL 1767225600000000ull /* 2026-01-01 00:00:00 UTC */
#define MIN_US 60000000ull

static top_model m;
static top_opts o;
static top_ui u;
static canvas cv;

static void gpu(int i, double util)
{
    top_gpu *g = &m.gpus[i];
    memset(g, 0, sizeof *g);
    g->info.index = i;
    snprintf(g->info.str[M_NAME], GW_STR_LEN, "NVIDIA H100 80GB HBM3");
    g->have_sample = 1;
    g->fresh_us = T0_MONO;
    g->s.t_us = T0_WALL;
    sample_set(&g->s, M_UTIL_GPU, util);
    sample_set(&g->s, M_MEM_USED, 40960);
    sample_set(&g->s, M_MEM_TOTAL, 81920);
    sample_set(&g->s, M_TEMP_GPU, 60);
    sample_set(&g->s, M_CLOCK_SM, 1980);
    sample_set(&g->s, M_CLOCK_MEM, 2619);
}

static void procs(int n)
{
    m.nprocs = n;
    for (int i = 0; i < n; i++) {
        gpu_proc *p = &m.procs[i];
        memset(p, 0, sizeof *p);
        p->gpu = i % 4;
        p->pid = 15100 + (unsigned)i;
        snprintf(p->name, sizeof p->name, "python3");
    }
}

/* A finding as a detector makes it: GPUs, a time range, a summary, evidence and advice. */
static diag_finding *add(diag_report *r, const char *det, diag_severity sev, int gpu0, int ngpus, double score)
{
    diag_finding *f = diag_report_add(r, det, sev);
    assert_non_null(f);
    for (int g = 0; g < ngpus; g++)
        diag_finding_gpu(f, gpu0 + g);
    f->score = score;
    f->from_us = T0_WALL - 18 * MIN_US;
    f->to_us = T0_WALL;
    diag_finding_summary(f, "GPU %d: %s summary", gpu0, det);
    return f;
}

/* Four input stalls on GPUs 0-3 as the model's findings, worst (highest score) first as diag_run
 * sorts them. */
static void stalls(const double *score)
{
    diag_report r;
    diag_report_init(&r);
    for (int i = 0; i < 4; i++) {
        diag_finding *f = add(&r, "input_stall", DIAG_WARNING, i, 1, score[i]);
        diag_finding_num(f, "period_s", 6, "s");
        diag_finding_advice(f, "Give the DataLoader more workers (num_workers) for GPU %d", i);
        diag_finding_advice(f, "Use pin_memory=True and copy batches with non_blocking=True");
        f->chart.n = 12;
        f->chart.lo = 0;
        f->chart.hi = 100;
        snprintf(f->chart.metric, sizeof f->chart.metric, "utilization.gpu");
        snprintf(f->chart.unit, sizeof f->chart.unit, "%%");
        for (int p = 0; p < 12; p++)
            f->chart.v[p] = p % 2 ? 95 : 5;
    }
    diag_report_sort(&r);
    top_findings_publish(&m, &r, FIND_OK, NULL, T0_WALL);
    diag_report_free(&r);
}

static const double scores[4] = {0.5, 0.4, 0.9, 0.2}; /* GPU 2, 0, 1, 3 */

static int setup(void **st)
{
    (void)st;
    top_model_init(&m);
    m.hist = history_new(16, 64);
    snprintf(m.host, sizeof m.host, "node7");
    m.ngpus = 4;
    m.updated_us = T0_MONO;
    for (int i = 0; i < 4; i++)
        gpu(i, 50);
    procs(4);
    m.find.state = FIND_WAITING;
    m.find.interval_s = 60;
    m.find.window_s = 1800;
    m.find.next_us = T0_WALL + 42 * 1000000ull;
    o = (top_opts){.interval_s = 1, .th = {80, 90, 95, 105}};
    top_ui_init(&u, &o);
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

static void test_texts(void **st)
{
    (void)st;
    char buf[600];
    diag_report r;
    diag_report_init(&r);
    diag_finding *one = add(&r, "input_stall", DIAG_WARNING, 1, 1, 0);
    diag_finding *four = add(&r, "imbalance", DIAG_WARNING, 0, 4, 0);
    diag_finding *apart = add(&r, "imbalance", DIAG_INFO, 3, 1, 0);
    diag_finding_gpu(apart, 6);
    diag_finding *host = add(&r, "hw_health", DIAG_CRITICAL, 0, 0, 0);
    assert_string_equal(finding_gpus(one, buf, sizeof buf), "GPU 1");
    assert_string_equal(finding_gpus(four, buf, sizeof buf), "GPUs 0-3");
    assert_string_equal(finding_gpus(apart, buf, sizeof buf), "GPUs 3,6");
    assert_string_equal(finding_gpus(host, buf, sizeof buf), "");
    assert_string_equal(finding_tag(one), "WARN");
    assert_string_equal(finding_tag(host), "CRIT");
    assert_string_equal(finding_tag(apart), "INFO");
    /* Since when, in local time (UTC here), and for how long. */
    finding_line(one, T0_WALL, buf, sizeof buf);
    assert_string_equal(buf, "WARN input_stall  GPU 1  since 23:42 (18m)  GPU 1: input_stall summary");
    finding_line(one, T0_WALL + 3 * 3600 * 1000000ull, buf, sizeof buf);
    assert_non_null(strstr(buf, "since 23:42 (3h18m)"));
    finding_line(one, T0_WALL + 2 * 86400 * 1000000ull, buf, sizeof buf);
    assert_non_null(strstr(buf, "since 12-31 23:42 (2d00h)"));
    one->from_us = 0; /* unknown: no "since" */
    finding_line(one, T0_WALL, buf, sizeof buf);
    assert_string_equal(buf, "WARN input_stall  GPU 1  GPU 1: input_stall summary");
    diag_report_free(&r);
}

/* The mark of each detector, from the evidence its detector writes (keys as in src/diagnosis). */
static void test_marks(void **st)
{
    (void)st;
    static const struct {
        const char *det, *key;
        double v;
        const char *key2;
        double v2;
        const char *mark;
    } cases[] = {
        {"input_stall", "period_s", 6, NULL, 0, "input stall (period 6 s)"},
        {"input_stall", "period_s", 2.5, NULL, 0, "input stall (period 2.5 s)"},
        {"input_stall", "period_s", 42.4, NULL, 0, "input stall (period 42 s)"},
        {"launch_bound", "median_sm_active", 22, NULL, 0, "launch bound (SM active 22 %)"},
        {"low_util", "median_util", 35, NULL, 0, "low utilization (median 35 %)"},
        {"power_cap", "clock_loss", 0.12, "user_lowered", 0, "power capped (clock -12 %)"},
        {"power_cap", "clock_loss", 0.3, "user_lowered", 1, "power limit lowered"},
        {"thermal", "max_temp_c", 92, "hw_thermal_s", 0, "hot (92 C)"},
        {"thermal", "max_temp_c", 92, "hw_thermal_s", 30, "thermal slowdown"},
        {"memory_leak", "time_to_full_s", 7800, NULL, 0, "memory leak (full in 2h10m)"},
        {"memory_full", "max_used_share", 0.985, NULL, 0, "memory full (98 %)"},
        {"imbalance", "peer_median_util", 91, NULL, 0, "imbalance (its peers at 91 %)"},
        {"idle_holding", "held_mib", 40960, NULL, 0, "idle, holding 40.0 GiB"},
        {"pcie_bound", "link_share", 0.7, NULL, 0, "PCIe bound (70 % of the link)"},
        {"hw_health", "xid", 79, NULL, 0, "hardware XID 79"},
        {"hw_health", "lost_times", 2, "lost_s", 40, "lost 2x"},
        {"hw_health", "ecc_uncorrectable", 3, NULL, 0, "hardware fault"},
        {"app_fault", "xid", 31, NULL, 0, "application XID 31"},
        {"row_remap", "remap_pending", 1, "remap_failure", 0, "row remap pending"},
        {"row_remap", "remap_failure", 1, "remap_pending", 0, "row remap failed"},
        {"nvlink_errors", "link", 7, "links_down", 1, "NVLink 7 down"},
        {"nvlink_errors", "link", 3, "links_down", 0, "NVLink 3 errors"},
        {"clocks_low", "median_clock_mhz", 1200, NULL, 0, "clocks low (1200 MHz)"},
        {"collective_hang", "odd_gpu", 5, NULL, 0, "hung collective (odd GPU 5)"},
        {"collective_hang", "hang_s", 600, NULL, 0, "hung collective"},
        {"alloc_fragmentation", "tried_mib", 2048, NULL, 0, "allocator fragmented"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        diag_report r;
        diag_report_init(&r);
        diag_finding *f = add(&r, cases[i].det, DIAG_WARNING, 0, 1, 0);
        diag_finding_num(f, cases[i].key, cases[i].v, "");
        if (cases[i].key2)
            diag_finding_num(f, cases[i].key2, cases[i].v2, "");
        char mark[128];
        finding_mark(f, mark, sizeof mark);
        if (strcmp(mark, cases[i].mark) != 0)
            fail_msg("%s %s=%g: '%s', expected '%s'", cases[i].det, cases[i].key, cases[i].v, mark, cases[i].mark);
        diag_report_free(&r);
    }
    /* An application's XID is not the hardware's. */
    diag_report r;
    diag_report_init(&r);
    diag_finding *f = add(&r, "hw_health", DIAG_WARNING, 0, 1, 0);
    diag_finding_num(f, "xid", 13, "");
    diag_finding_str(f, "fault", "application");
    char mark[128];
    finding_mark(f, mark, sizeof mark);
    assert_string_equal(mark, "application XID 13");
    diag_report_free(&r);
    /* hw_health's mark carries NVIDIA's action, pcie_degraded's the link it trained at */
    diag_report_init(&r);
    f = add(&r, "hw_health", DIAG_CRITICAL, 0, 1, 0);
    diag_finding_num(f, "xid", 79, "");
    diag_finding_str(f, "action", "RESTART_BM");
    finding_mark(f, mark, sizeof mark);
    assert_string_equal(mark, "hardware XID 79: RESTART_BM");
    f = add(&r, "pcie_degraded", DIAG_WARNING, 0, 1, 0);
    diag_finding_str(f, "link", "Gen3 x8");
    diag_finding_str(f, "link_max", "Gen4 x16");
    finding_mark(f, mark, sizeof mark);
    assert_string_equal(mark, "PCIe Gen3 x8 of Gen4 x16");
    diag_report_free(&r);
}

/* The detectors themselves, on a synthetic input stall: the mark reads their evidence. */
static void test_mark_of_a_real_stall(void **st)
{
    (void)st;
    for (int v = 0; v < 6; v++) {
        uint64_t rng = 1400 + (uint64_t)v;
        syn_spec sp;
        syn_spec_init(&sp, &rng, 1, 1200);
        double period = syn_range(&rng, 4, 30);
        syn_gpu *g = &sp.gpu[0];
        syn_seg *s = syn_add_seg(g, 0, 1e9, PAT_SQUARE, 95, 5);
        s->period_s = period;
        s->duty = 0.5;
        syn_add_proc(g, 15100, 0, 1e9, "carol", 30000);
        diag_report r;
        syn_diagnose(&sp, &r);
        const diag_finding *f = syn_find(&r, "input_stall", 0);
        assert_non_null(f);
        char mark[128];
        double seen = 0;
        finding_mark(f, mark, sizeof mark);
        assert_int_equal(sscanf(mark, "input stall (period %lf s)", &seen), 1);
        assert_true(fabs(seen - period) <= 0.15 * period + 0.5);
        diag_report_free(&r);
    }
}

/* The thermal detector takes top's temperature thresholds (its colours) unless top.yaml set its own:
 * a GPU held at 78 C is fine at the defaults (warning at 80 C), hot with --temp-warn 75, and fine
 * again when diagnosis.thresholds sets thermal.gpu_warn_c: 79 (the file's threshold stays). */
static void test_thermal_follows_top(void **st)
{
    (void)st;
    for (int v = 0; v < 3; v++) {
        uint64_t rng = 2600 + (uint64_t)v;
        syn_spec sp;
        syn_spec_init(&sp, &rng, 1, 900);
        syn_gpu *g = &sp.gpu[0];
        g->model = 0; /* H100: its own limits (slowdown 89 C) far from 78 C */
        g->temp_from = g->temp_to = 78;
        syn_add_seg(g, 0, 1e9, PAT_STEADY, 95, 95);
        syn_add_proc(g, 15100, 0, 1e9, "carol", 30000);
        diag_window *w = syn_build(&sp);
        assert_non_null(w);
        static const struct {
            top_thresholds th;
            double file_warn; /* > 0: thermal.gpu_warn_c in top.yaml */
            int hot;
        } cases[] = {
            {{80, 90, 95, 105}, 0, 0},
            {{75, 85, 95, 105}, 0, 1},
            {{75, 85, 95, 105}, 79, 0},
        };
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            diag_config cfg;
            diag_config_defaults(&cfg);
            if (cases[c].file_warn > 0)
                assert_int_equal(diag_config_set(&cfg, "thermal.gpu_warn_c", cases[c].file_warn), 0);
            top_diag_thresholds(&cfg, &cases[c].th);
            double crit;
            assert_int_equal(diag_config_get(&cfg, "thermal.gpu_crit_c", &crit), 0);
            assert_true(crit == cases[c].th.temp_crit);
            diag_report r;
            diag_report_init(&r);
            assert_true(diag_run(w, &cfg, &r) >= 0);
            if ((syn_find(&r, "thermal", 0) != NULL) != cases[c].hot)
                fail_msg("variant %d, case %zu: thermal finding %s", v, c, cases[c].hot ? "missing" : "unexpected");
            diag_report_free(&r);
        }
        diag_window_free(w);
    }
}

static void test_gpu_marks_and_status(void **st)
{
    (void)st;
    char buf[400];
    top_level lvl;
    diag_report r;
    diag_report_init(&r);
    diag_finding_num(add(&r, "input_stall", DIAG_WARNING, 0, 1, 0.5), "period_s", 6, "s");
    diag_finding_num(add(&r, "thermal", DIAG_CRITICAL, 0, 1, 0.5), "max_temp_c", 93, "C");
    diag_finding_num(add(&r, "idle_holding", DIAG_WARNING, 1, 1, 0.5), "held_mib", 2048, "MiB");
    diag_report_sort(&r);
    top_findings_publish(&m, &r, FIND_OK, NULL, T0_WALL);
    diag_report_free(&r);
    finding_gpu_marks(&m, 0, 0, buf, sizeof buf, &lvl);
    assert_string_equal(buf, "⚠ hot (93 C)  ⚠ input stall (period 6 s)"); /* worst first */
    assert_int_equal(lvl, LVL_CRIT);
    finding_gpu_marks(&m, 1, 1, buf, sizeof buf, &lvl);
    assert_string_equal(buf, "! idle, holding 2.0 GiB");
    assert_int_equal(lvl, LVL_WARN);
    finding_gpu_marks(&m, 3, 0, buf, sizeof buf, &lvl);
    assert_string_equal(buf, "");
    assert_int_equal(findings_rows_wanted(&m), 3);
    /* No finding to show: why, in words. */
    top_findings fs = {.state = FIND_WAITING, .interval_s = 60, .window_s = 1800, .next_us = T0_WALL + 42000000};
    findings_status(&fs, 0, T0_WALL, buf, sizeof buf);
    assert_string_equal(buf, "none yet: first diagnosis at 00:00:42, then every 1m over the last 30m");
    fs.state = FIND_OK;
    fs.at_us = T0_WALL;
    fs.next_us = T0_WALL + 60000000;
    fs.r.from_us = T0_WALL - 12 * MIN_US;
    fs.r.to_us = T0_WALL;
    findings_status(&fs, 0, T0_WALL, buf, sizeof buf);
    assert_string_equal(buf, "none over the last 12m (diagnosed at 00:00:00, next at 00:01:00)");
    findings_status(&fs, 1, T0_WALL, buf, sizeof buf);
    assert_string_equal(buf, "none: the agent's diagnosis finds nothing (read at 00:00:00)");
    fs.state = FIND_NOT_SERVED;
    snprintf(fs.why, sizeof fs.why, "the agent does not diagnose (404 on /api/v1/findings)");
    findings_status(&fs, 1, T0_WALL, buf, sizeof buf);
    assert_string_equal(buf, fs.why);
    /* Diagnosis off: no panel. */
    m.find.state = FIND_OFF;
    assert_int_equal(findings_rows_wanted(&m), 0);
    finding_gpu_marks(&m, 0, 0, buf, sizeof buf, &lvl);
    assert_string_equal(buf, "");
}

static void layout(layout_in *in, top_layout *l)
{
    layout_compute(in, l);
    assert_true(l->proc_y + l->proc_h <= l->footer_y);
    assert_int_equal(l->find_y, l->alert_y + l->alert_h);
    assert_int_equal(l->proc_y, l->find_y + l->find_h);
}

static void test_layout_shares_rows(void **st)
{
    (void)st;
    top_layout l;
    /* 3 GPUs at 80x24, 2 processes, 6 findings: the findings take the rows the table leaves. */
    layout_in in = {24, 80, 3, LAYOUT_AUTO, CHART_OFF, 0, 0, 4, -1, NULL, 6, 0, 0, 0};
    layout(&in, &l);
    assert_false(l.compact);
    assert_int_equal(l.alert_h, 1);
    assert_true(l.find_h > 3 && l.find_h <= 6);
    assert_true(l.proc_h >= 4);
    /* Many processes: three lines, the table keeps the rest. */
    in.procs = 40;
    layout(&in, &l);
    assert_int_equal(l.find_h, 3);
    /* Alerts too: each keeps three lines, the alerts placed first. */
    in.alerts = 8;
    layout(&in, &l);
    assert_int_equal(l.alert_h, 3);
    assert_true(l.find_h == 3 || l.compact);
    /* `f`: the findings take all but the table's header and one row, before the alerts' extra lines. */
    in.findings_expanded = 1;
    layout(&in, &l);
    assert_int_equal(l.find_h, 6);
    assert_int_equal(l.proc_h, 3);
    assert_int_equal(l.chart_h, 0);
    /* One finding's detail: every row below the alerts; no table. */
    in.findings_detail = 1;
    layout(&in, &l);
    assert_int_equal(l.proc_h, 0);
    assert_int_equal(l.find_y + l.find_h, l.footer_y);
    in.findings_detail = 0;
    in.findings_expanded = 0;
    /* Sixteen GPUs on 80x24: the GPUs first; the findings and alerts squeeze to one line each (the
     * table keeps its header and a row: one GPU scrolls). */
    layout_in many = {24, 80, 16, LAYOUT_AUTO, CHART_SELECTED, 5, 0, 12, -1, NULL, 6, 0, 0, 0};
    layout(&many, &l);
    assert_true(l.compact);
    assert_int_equal(l.gpu_shown, 15);
    assert_int_equal(l.find_h, 1);
    assert_int_equal(l.alert_h, 1);
    /* A line that only says "none" gives way to the GPUs (the alerts line says it then). */
    many.findings = 1;
    many.findings_quiet = 1;
    many.alerts = 0;
    layout(&many, &l);
    assert_int_equal(l.gpu_shown, 16);
    assert_int_equal(l.find_h, 0);
    layout_in roomy = {50, 120, 4, LAYOUT_AUTO, CHART_OFF, 0, 0, 6, -1, NULL, 1, 1, 0, 0};
    layout(&roomy, &l);
    assert_int_equal(l.find_h, 1);
    /* No panel (diagnosis off): nothing changes for the others. */
    layout_in off = {24, 80, 3, LAYOUT_AUTO, CHART_SELECTED, 6, 0, 4, -1, NULL, 0, 0, 0, 0};
    layout(&off, &l);
    assert_int_equal(l.find_h, 0);
    assert_int_equal(l.alert_h, 6);
}

static void test_panel_80x24(void **st)
{
    (void)st;
    /* Before the first run: one line saying when it is. */
    draw();
    int y = find("FINDINGS none yet: first diagnosis at 00:00:42");
    assert_true(y > 0);
    assert_true(find("ALERTS no alerts") == y - 1);
    /* Four stalls: worst first, one line each, the tag in the warning colour, the detector bold. */
    stalls(scores);
    draw();
    int f0 = find("WARN input_stall  GPU 2  since 23:42 (18m)  GPU 2: input_stall summary");
    assert_true(f0 > 0);
    assert_true(find("WARN input_stall  GPU 0") == f0 + 1);
    assert_true(find("WARN input_stall  GPU 1") == f0 + 2);
    assert_true(find("WARN input_stall  GPU 3") == f0 + 3);
    assert_int_equal(cv_cell(&cv, f0, 0)->role, TR_WARN);
    assert_int_equal(cv_cell(&cv, f0, 5)->role, TR_TITLE);
    assert_true(find("PROCESSES 4") > f0 + 3);
    /* Every affected GPU says so (compact here: four full panels and their marks do not fit). */
    assert_true(u.lay.compact);
    for (int i = 0; i < 4; i++) {
        char head[8];
        snprintf(head, sizeof head, "%2d ", i);
        int g = find(head);
        assert_true(g > 1 && g < f0);
        assert_non_null(strstr(row(g), "⚠ input stall"));
    }
    /* Full panels (a taller terminal): a line under the panel. */
    assert_int_equal(canvas_resize(&cv, 40, 120), 0);
    draw();
    assert_false(u.lay.compact);
    int g1 = find(" 1 H100 80GB HBM3");
    assert_true(g1 > 0);
    assert_non_null(strstr(row(g1 + 2), "    ⚠ input stall (period 6 s)"));
    assert_int_equal(canvas_resize(&cv, 24, 80), 0);
    /* A table that needs the rows: three lines, the last one saying how to see the rest. */
    procs(30);
    draw();
    assert_true(find("+2 more findings (f: the list, Enter: evidence and advice)") > 0);
    assert_true(find("GPU 0: input_stall") > 0);
    assert_int_equal(find("GPU 1: input_stall"), -1);
}

static void test_list_and_detail(void **st)
{
    (void)st;
    stalls(scores);
    procs(30);
    top_handle_key(&u, 'f', 4, NULL);
    assert_true(u.findings_expanded);
    draw();
    int t = find("FINDINGS 4, worst first");
    assert_true(t > 0);
    assert_int_equal(cv_cell(&cv, t + 1, 0)->role, TR_SELECTED); /* the worst is selected */
    assert_non_null(strstr(row(t + 4), "GPU 3: input_stall"));
    assert_true(find("PROCESSES 30") > t + 4); /* the table keeps its header and a row */
    assert_non_null(strstr(row(23), "Enter: its evidence and advice"));
    /* Arrows select (not the processes); the selection follows its finding into a new report. */
    top_handle_key(&u, KEY_DOWN, 4, NULL);
    draw();
    assert_int_equal(cv_cell(&cv, t + 2, 0)->role, TR_SELECTED);
    assert_non_null(strstr(row(t + 2), "GPU 0: input_stall"));
    assert_int_equal(u.sel_row, 0);
    double rescored[4] = {0.3, 0.4, 0.9, 0.5}; /* GPU 0 last now */
    stalls(rescored);
    draw();
    assert_int_equal(cv_cell(&cv, t + 2, 0)->role, TR_WARN);
    assert_int_equal(cv_cell(&cv, t + 4, 0)->role, TR_SELECTED);
    assert_non_null(strstr(row(t + 4), "GPU 0: input_stall"));
    /* Enter: its evidence and advice, with its signal; arrows scroll, left/right go to the others. */
    top_handle_key(&u, KEY_UP, 4, NULL);
    top_handle_key(&u, '\r', 4, NULL);
    assert_true(u.fdetail);
    draw();
    int d = find("FINDING 3 of 4: WARN input_stall");
    assert_true(d > 0);
    assert_true(find("period_s=6 s") > d);
    assert_true(find("utilization.gpu (%): 0..100") > d);
    assert_true(find("▕▁█▁█▁█▁█▁█▁█▏") > d);
    assert_true(find("- Give the DataLoader more workers (num_workers) for GPU 1") > d);
    assert_int_equal(find("PROCESSES"), -1);
    assert_non_null(strstr(row(23), "left/right: the other findings"));
    int advice = find("- Use pin_memory=True");
    top_handle_key(&u, KEY_DOWN, 4, NULL);
    draw();
    assert_true(find("- Use pin_memory=True") == advice || find("- Use pin_memory=True") == advice - 1);
    top_handle_key(&u, KEY_RIGHT, 4, NULL);
    draw();
    assert_true(find("FINDING 4 of 4") > 0);
    assert_true(find("for GPU 0") > 0);
    top_handle_key(&u, KEY_RIGHT, 4, NULL); /* past the last: stays there */
    draw();
    assert_true(find("FINDING 4 of 4") > 0);
    top_handle_key(&u, 27, 4, NULL); /* Esc: back to the list */
    assert_false(u.fdetail);
    assert_true(u.findings_expanded);
    draw();
    assert_true(find("FINDINGS 4, worst first") > 0);
    top_handle_key(&u, 'f', 4, NULL);
    assert_false(u.findings_expanded);
    /* Narrow and ASCII: the detail wraps within the width. */
    assert_int_equal(canvas_resize(&cv, 24, 50), 0);
    cv.ascii = 1;
    top_handle_key(&u, 'f', 4, NULL);
    top_handle_key(&u, '\r', 4, NULL);
    draw();
    assert_true(find("FINDING") >= 0);
    assert_true(find("|_#_#_#_#_#_#|") > 0);
    for (int y = 0; y < 24; y++)
        assert_true(fmt_cols(row(y)) <= 50);
    /* Evidence the diagnosis layer breaks into lines goes on at one indentation (6 columns), the
     * diagnosis layer's breaks and the screen's alike, for widths around its own line width. */
    for (int cols = 50; cols <= 130; cols += 1) {
        diag_report r;
        diag_report_init(&r);
        diag_finding *f = add(&r, "thermal", DIAG_WARNING, 1, 1, 0.5);
        static const char *const keys[] = {"max_temp_c",        "warn_threshold_c",  "critical_threshold_c",
                                           "time_above_warn_s", "slowdown_temp_c",   "sw_thermal_s",
                                           "hw_thermal_s",      "max_memory_temp_c", "peer_median_temp_c"};
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            diag_finding_num(f, keys[i], 80 + (double)i, "C");
        top_findings_publish(&m, &r, FIND_OK, NULL, T0_WALL);
        diag_report_free(&r);
        assert_int_equal(canvas_resize(&cv, 24, cols), 0);
        u.fdetail = 1;
        u.fsel = 0;
        draw();
        int ev = find("    evidence:");
        assert_true(ev > 0);
        int cont = 0;
        for (int y = ev + 1; y < 23 && row(y)[strspn(row(y), " ")]; y++, cont++) { /* to the first blank row */
            const char *t = row(y) + strspn(row(y), " ");
            if (strspn(row(y), " ") != 6 || (t[0] == 'C' && (t[1] == ' ' || !t[1])))
                fail_msg("%d columns, evidence line %d (indented 6, no unit without its number): '%s'", cols, y,
                         row(y));
        }
        assert_true(cont >= 1);
        if (!strstr(row(ev + cont), "peer_median_temp_c=88 C")) { /* all of it */
            for (int y = 0; y < 24; y++)
                fprintf(stderr, "%2d|%s\n", y, row(y));
            fail_msg("%d columns: the evidence's last line", cols);
        }
    }
    stalls(scores);
    assert_int_equal(canvas_resize(&cv, 24, 50), 0);
    /* The findings are gone (a new report without them): the detail closes. */
    diag_report none;
    diag_report_init(&none);
    top_findings_publish(&m, &none, FIND_OK, NULL, T0_WALL);
    diag_report_free(&none);
    draw();
    assert_false(u.fdetail);
    /* Diagnosis off: `f` says why. */
    u.findings_off = 1;
    u.findings_expanded = 0;
    top_handle_key(&u, 'f', 4, NULL);
    assert_false(u.findings_expanded);
    assert_non_null(strstr(u.msg, "diagnosis is off"));
}

static void test_squeezed_and_quiet(void **st)
{
    (void)st;
    m.ngpus = 16;
    for (int i = 4; i < 16; i++)
        gpu(i, 50);
    draw();
    /* No finding yet: no line of its own; the alerts line says it. */
    assert_int_equal(u.lay.gpu_shown, 16);
    int y = find("ALERTS no alerts  FINDINGS none yet");
    assert_true(y > 0);
    /* Four findings: one line, the worst, and how to see them all. */
    stalls(scores);
    draw();
    assert_int_equal(u.lay.gpu_shown, 16);
    assert_true(find("4 findings (0 critical; f: list), worst: WARN input_stall  GPU 2") > 0);
    assert_int_equal(find("ALERTS"), -1); /* "no alerts" gave way to the sixteenth GPU */
    /* With alerts too the GPUs scroll, and the header says which are shown. */
    top_alert_set(&m.alerts[0], "GPULost", "critical", "firing", "GPU 1 is lost", 0, 0);
    m.nalerts = 1;
    draw();
    assert_int_equal(u.lay.gpu_shown, 15);
    assert_true(find("GPUs 0-14 of 16 shown") == 1);
    assert_true(find("CRIT GPULost") > 0);
    assert_true(find("4 findings (0 critical") > 0);
    m.nalerts = 0;
    /* An agent that does not diagnose says so. */
    diag_report none;
    diag_report_init(&none);
    top_findings_publish(&m, &none, FIND_NOT_SERVED, "the agent does not diagnose (404 on /api/v1/findings)", T0_WALL);
    diag_report_free(&none);
    m.ngpus = 4;
    draw();
    y = find("FINDINGS the agent does not diagnose (404 on /api/v1/findings)");
    assert_true(y > 0);
    assert_int_equal(cv_cell(&cv, y, 10)->role, TR_WARN);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    setenv("TZ", "UTC", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_texts),
        cmocka_unit_test(test_marks),
        cmocka_unit_test(test_mark_of_a_real_stall),
        cmocka_unit_test(test_thermal_follows_top),
        cmocka_unit_test_setup_teardown(test_gpu_marks_and_status, setup, teardown),
        cmocka_unit_test(test_layout_shares_rows),
        cmocka_unit_test_setup_teardown(test_panel_80x24, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_and_detail, setup, teardown),
        cmocka_unit_test_setup_teardown(test_squeezed_and_quiet, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
