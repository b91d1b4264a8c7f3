/* test_top_logic.c - top's pure logic: process sort and filter, layout choice (alerts in the spare
 * rows, charts that do not fit, wrapped panels), GPU texts and thresholds, keys (sort, filter, the
 * signal menu, pause), signals (a real child; simulated GPUs only reach gpuwatch and its parent),
 * alert lines (state order, pending countdown), rule durations, the chart history, /proc readers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ncurses.h>
#include "top_ui.h"

static gpu_proc P(int gpu, unsigned pid, const char *user, double mem, int has_mem, const char *cmd)
{
    gpu_proc p;
    memset(&p, 0, sizeof p);
    p.gpu = gpu;
    p.pid = pid;
    snprintf(p.user, sizeof p.user, "%s", user);
    p.mem_mib = mem;
    p.has_mem = has_mem;
    snprintf(p.cmdline, sizeof p.cmdline, "%s", cmd);
    snprintf(p.name, sizeof p.name, "%s", cmd);
    return p;
}

static void test_sort_and_filter(void **st)
{
    (void)st;
    gpu_proc ps[] = {
        P(0, 300, "alice", 2000, 1, "python train.py"),
        P(1, 100, "bob", 0, 0, "ollama serve"),
        P(0, 200, "carol", 9000, 1, "torchrun --nproc 8"),
        P(1, 400, "Alice", 500, 1, "jupyter"),
    };
    int order[8];
    int n = proc_order(ps, 4, "", -1, PC_GPUMEM, 1, 0, order);
    assert_int_equal(n, 4);
    assert_int_equal(ps[order[0]].pid, 200);
    assert_int_equal(ps[order[1]].pid, 300);
    assert_int_equal(ps[order[2]].pid, 400);
    assert_int_equal(ps[order[3]].pid, 100); /* no value: last, whatever the direction */
    n = proc_order(ps, 4, "", -1, PC_GPUMEM, 0, 0, order);
    assert_int_equal(ps[order[0]].pid, 400);
    assert_int_equal(ps[order[3]].pid, 100);
    n = proc_order(ps, 4, "", -1, PC_PID, 0, 0, order);
    assert_int_equal(ps[order[0]].pid, 100);
    n = proc_order(ps, 4, "alice", -1, PC_PID, 0, 0, order); /* case-insensitive */
    assert_int_equal(n, 2);
    assert_int_equal(ps[order[0]].pid, 300);
    assert_int_equal(ps[order[1]].pid, 400);
    n = proc_order(ps, 4, "TORCH", -1, PC_PID, 0, 0, order);
    assert_int_equal(n, 1);
    assert_int_equal(ps[order[0]].pid, 200);
    n = proc_order(ps, 4, "gpu1", -1, PC_PID, 0, 0, order);
    assert_int_equal(n, 2);
    n = proc_order(ps, 4, "", 0, PC_USER, 0, 0, order); /* GPU 0 only, by user */
    assert_int_equal(n, 2);
    assert_int_equal(ps[order[0]].pid, 300);
    n = proc_order(ps, 4, "nothing-matches", -1, PC_PID, 0, 0, order);
    assert_int_equal(n, 0);
}

static void layout(int rows, int cols, int ngpus, layout_pref pref, chart_mode chart, int alerts, int sel,
                   top_layout *l)
{
    layout_in in = {rows, cols, ngpus, pref, chart, alerts, 0, 7, sel, NULL, 0, 0, 0, 0};
    layout_compute(&in, l);
}

static void test_layout(void **st)
{
    (void)st;
    top_layout l;
    layout(24, 80, 16, LAYOUT_AUTO, CHART_SELECTED, 0, -1, &l);
    assert_true(l.compact);
    assert_int_equal(l.gpu_shown, 16);
    assert_true(l.proc_h >= 3);
    assert_int_equal(l.footer_y, 23);
    assert_true(l.proc_y + l.proc_h <= l.footer_y);

    layout(24, 80, 16, LAYOUT_AUTO, CHART_SELECTED, 5, -1, &l); /* alerts give way */
    assert_int_equal(l.gpu_shown, 16);
    assert_int_equal(l.alert_h, 1);
    layout(40, 120, 2, LAYOUT_AUTO, CHART_SELECTED, 5, -1, &l); /* the table leaves room: all five */
    assert_int_equal(l.alert_h, 5);

    layout(40, 120, 8, LAYOUT_AUTO, CHART_SELECTED, 0, -1, &l);
    assert_false(l.compact);
    assert_int_equal(l.gpu_lines, 2);
    assert_int_equal(l.gpu_shown, 8);
    assert_true(l.chart_h >= 8);
    assert_true(l.proc_h >= 6);

    layout(24, 80, 8, LAYOUT_AUTO, CHART_SELECTED, 0, -1, &l);
    assert_true(l.compact); /* 8 full panels do not fit */
    layout(24, 80, 1, LAYOUT_AUTO, CHART_SELECTED, 0, -1, &l);
    assert_false(l.compact);
    assert_int_equal(l.gpu_lines, 3);
    layout(24, 80, 1, LAYOUT_COMPACT, CHART_SELECTED, 0, -1, &l);
    assert_true(l.compact);
    layout(40, 120, 8, LAYOUT_AUTO, CHART_OFF, 0, -1, &l);
    assert_int_equal(l.chart_h, 0);

    /* More GPUs than lines: the list scrolls to keep the selected one visible. */
    layout(24, 80, 32, LAYOUT_AUTO, CHART_OFF, 0, 30, &l);
    assert_true(l.gpu_shown < 32);
    assert_true(30 >= l.gpu_first && 30 < l.gpu_first + l.gpu_shown);
    /* Tiny terminal: nothing negative. */
    layout(5, 20, 8, LAYOUT_AUTO, CHART_SELECTED, 0, -1, &l);
    assert_true(l.gpu_h >= 0 && l.proc_h >= 0);
}

static void test_layout_alerts_and_charts(void **st)
{
    (void)st;
    top_layout l;
    /* 3 GPUs at 80x24 with 2 processes: full panels, no room for charts (and the rows that need),
     * and the alerts take the rows the table does not fill. */
    layout_in in = {24, 80, 3, LAYOUT_AUTO, CHART_SELECTED, 6, 0, 4, -1, NULL, 0, 0, 0, 0};
    layout_compute(&in, &l);
    assert_false(l.compact);
    assert_int_equal(l.chart_h, 0);
    assert_true(l.chart_need > 24);
    in.rows = l.chart_need; /* that many rows do show them */
    layout_compute(&in, &l);
    assert_true(l.chart_h > 0);
    assert_int_equal(l.chart_need, 0);
    in.rows = 24;
    layout_compute(&in, &l);
    assert_int_equal(l.alert_h, 6);
    assert_true(l.proc_h >= 4);
    assert_int_equal(l.proc_y + l.proc_h, l.footer_y);
    /* Many processes: the alerts keep their three lines ... */
    in.alerts = 12;
    in.procs = 40;
    layout_compute(&in, &l);
    assert_int_equal(l.alert_h, 3);
    /* ... unless expanded: then the table keeps its header and one row. */
    in.alerts_expanded = 1;
    layout_compute(&in, &l);
    assert_int_equal(l.alert_h, 9); /* all the rows below the GPUs but the table's three */
    assert_int_equal(l.proc_h, 3);
    in.alerts = 40; /* more than fit: the table still keeps its minimum */
    layout_compute(&in, &l);
    assert_int_equal(l.proc_h, 3);
    assert_int_equal(l.alert_y + l.alert_h, l.proc_y);
    /* No alerts: one line ("no alerts"). */
    in.alerts = 0;
    in.alerts_expanded = 0;
    layout_compute(&in, &l);
    assert_int_equal(l.alert_h, 1);
    /* A wrapped figures line makes a panel one line taller. */
    unsigned char extra[3] = {1, 0, 0};
    in.gpu_extra = extra;
    in.procs = 4;
    top_layout w;
    layout_compute(&in, &w);
    assert_int_equal(w.gpu_h, l.gpu_h + 1);
    /* Scrolling full panels of different heights keeps the selected one whole. */
    unsigned char ex8[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    layout_in big = {30, 80, 8, LAYOUT_FULL, CHART_OFF, 0, 0, 4, 7, ex8, 0, 0, 0, 0};
    layout_compute(&big, &l);
    assert_true(l.gpu_shown >= 1 && l.gpu_first + l.gpu_shown == 8);
    assert_int_equal(l.gpu_h, l.gpu_shown * 4);
    assert_true(l.gpu_y + l.gpu_h <= l.alert_y);
}

static void test_visible_columns(void **st)
{
    (void)st;
    int v[PC_COUNT];
    proc_visible_cols(200, v);
    for (int c = 0; c < PC_COUNT; c++)
        assert_true(v[c]);
    proc_visible_cols(80, v); /* 80 columns: command keeps >= 24 */
    assert_false(v[PC_HOSTMEM]);
    assert_false(v[PC_TIME]);
    assert_true(v[PC_PID] && v[PC_GPUMEM] && v[PC_CMD] && v[PC_USER]);
    int used = 0;
    for (int c = 0; c < PC_COUNT; c++)
        if (v[c])
            used += proc_col_width[c] + 1;
    assert_true(80 - used >= 24);
}

static void test_gpu_text(void **st)
{
    (void)st;
    top_gpu g;
    memset(&g, 0, sizeof g);
    snprintf(g.info.str[M_NAME], GW_STR_LEN, "NVIDIA H100 80GB HBM3");
    g.have_sample = 1;
    sample_set(&g.s, M_TEMP_GPU, 85);
    sample_set(&g.s, M_TEMP_MEMORY, 106);
    sample_set(&g.s, M_UTIL_GPU, 62);
    sample_set(&g.s, M_MEM_USED, 40960);
    sample_set(&g.s, M_MEM_TOTAL, 81920);
    sample_set(&g.s, M_POWER_DRAW, 350.4);
    sample_set(&g.s, M_POWER_LIMIT, 700);
    sample_set(&g.s, M_CER_ACTIVE, 0x20);
    sample_set(&g.s, M_XID_LAST, 79);
    top_thresholds th = {80, 90, 95, 105};
    gpu_text t;
    gpu_text_make(&g, &th, 0, 1, &t);
    assert_string_equal(t.temp, "85C");
    assert_int_equal(t.temp_lvl, LVL_WARN);
    assert_int_equal(t.hbm_lvl, LVL_CRIT);
    assert_string_equal(t.util, "62%");
    assert_string_equal(t.mem, "40.0 GiB/80.0 GiB");
    assert_string_equal(t.power, "350/700 W");
    assert_string_equal(t.fan, "N/A"); /* absent, never 0 */
    assert_string_equal(t.throttle, "sw thermal slowdown");
    assert_string_equal(t.marks, "XID 79");
    assert_string_equal(t.state, "");
    assert_string_equal(t.tensor, ""); /* no GPM: not shown at all, never 0 */
    assert_string_equal(t.nvlink, "");
    sample_set(&g.s, M_GPM_TENSOR_ACTIVE, 31.4);
    sample_set(&g.s, M_GPM_NVLINK_RX, 0);
    sample_set(&g.s, M_GPM_NVLINK_TX, 2048);
    gpu_text_make(&g, &th, 0, 1, &t);
    assert_string_equal(t.tensor, "31%");
    assert_string_equal(t.nvlink, "rx 0 KB/s tx 2.1 GB/s"); /* a reported 0 is shown */
    th.temp_warn = 86;                                      /* configurable thresholds */
    gpu_text_make(&g, &th, 0, 0, &t);
    assert_int_equal(t.temp_lvl, LVL_OK);
    assert_string_equal(t.temp, "85°C");
    g.lost = 1;
    gpu_text_make(&g, &th, 0, 0, &t);
    assert_string_equal(t.state, "LOST");
    g.lost = 0;
    gpu_text_make(&g, &th, 1, 0, &t);
    assert_string_equal(t.state, "STALE");
}

static void test_keys(void **st)
{
    (void)st;
    top_opts o = {.interval_s = 1, .th = {80, 90, 95, 105}};
    top_ui u;
    top_ui_init(&u, &o);
    assert_int_equal(u.sort_col, PC_GPUMEM);
    top_handle_key(&u, 's', 4, NULL);
    assert_int_equal(u.sort_col, PC_SM);
    top_handle_key(&u, '<', 4, NULL);
    top_handle_key(&u, '<', 4, NULL);
    assert_int_equal(u.sort_col, PC_CONTAINER);
    top_handle_key(&u, 'r', 4, NULL);
    assert_int_equal(u.sort_desc, 0);
    top_handle_key(&u, '/', 4, NULL);
    assert_true(u.editing_filter);
    top_handle_key(&u, 'p', 4, NULL); /* goes to the filter, does not pause */
    top_handle_key(&u, 'y', 4, NULL);
    top_handle_key(&u, KEY_BACKSPACE, 4, NULL);
    top_handle_key(&u, '\r', 4, NULL);
    assert_string_equal(u.filter, "p");
    assert_false(u.editing_filter);
    assert_false(u.paused);
    top_handle_key(&u, '3', 4, NULL);
    assert_int_equal(u.sel_gpu, 3);
    top_handle_key(&u, '7', 4, NULL); /* no GPU 7: kept, with a message */
    assert_int_equal(u.sel_gpu, 3);
    assert_non_null(strstr(u.msg, "no GPU 7"));
    top_handle_key(&u, 'g', 4, NULL);
    assert_int_equal(u.sel_gpu, -1);
    top_handle_key(&u, '+', 4, NULL);
    assert_true(o.interval_s == 2);
    top_handle_key(&u, '-', 4, NULL);
    top_handle_key(&u, '-', 4, NULL);
    assert_true(o.interval_s == 0.5);
    /* From an interval between two steps (-d), + goes to the step above and - to the step below. */
    static const struct {
        double from;
        int key;
        double to;
    } steps[] = {{0.3, '+', 0.5},  {0.3, '-', 0.25}, {1.5, '+', 2}, {1.5, '-', 1},     {45, '+', 60}, {45, '-', 30},
                 {0.1, '+', 0.25}, {0.1, '-', 0.1},  {60, '+', 60}, {0.25, '-', 0.25}, {5, '-', 2},   {5, '+', 10}};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        o.interval_s = steps[i].from;
        top_handle_key(&u, steps[i].key, 4, NULL);
        if (o.interval_s != steps[i].to)
            fail_msg("%g and %c: %g, expected %g", steps[i].from, steps[i].key, o.interval_s, steps[i].to);
    }
    o.interval_s = 0.5;
    /* k without a selection does nothing; with one it offers INT/TERM/KILL, and only y sends. */
    top_handle_key(&u, 'k', 4, NULL);
    assert_int_equal(u.confirm_sig, 0);
    assert_false(u.sig_menu);
    u.sel_pid = 999999;
    snprintf(u.sel_name, sizeof u.sel_name, "trainer");
    top_handle_key(&u, 'K', 4, NULL);
    assert_int_equal(u.confirm_sig, SIGKILL);
    assert_string_equal(u.confirm_name, "trainer");
    top_handle_key(&u, 'n', 4, NULL);
    assert_int_equal(u.confirm_sig, 0);
    assert_string_equal(u.msg, "no signal sent");
    top_handle_key(&u, 'k', 4, NULL);
    assert_true(u.sig_menu);
    top_handle_key(&u, 'i', 4, NULL);
    assert_false(u.sig_menu);
    assert_int_equal(u.confirm_sig, SIGINT);
    top_handle_key(&u, 'n', 4, NULL);
    top_handle_key(&u, 'k', 4, NULL);
    top_handle_key(&u, 't', 4, NULL);
    assert_int_equal(u.confirm_sig, SIGTERM);
    top_handle_key(&u, 'n', 4, NULL);
    top_handle_key(&u, 'k', 4, NULL);
    top_handle_key(&u, 27, 4, NULL); /* Esc: nothing */
    assert_int_equal(u.confirm_sig, 0);
    assert_false(u.sig_menu);
    /* Simulated GPUs: a scenario's pid gets no menu, just the reason. */
    u.sim_guard = 1;
    top_handle_key(&u, 'k', 4, NULL);
    assert_false(u.sig_menu);
    assert_non_null(strstr(u.msg, "simulated GPUs: no signal sent"));
    top_handle_key(&u, 'K', 4, NULL);
    assert_int_equal(u.confirm_sig, 0);
    u.sel_pid = (unsigned)getppid(); /* the scenario's `parent` */
    top_handle_key(&u, 'k', 4, NULL);
    assert_true(u.sig_menu);
    top_handle_key(&u, 27, 4, NULL);
    u.sim_guard = 0;
    /* The tree needs a selection, and is not there with --host. */
    top_handle_key(&u, 't', 4, NULL);
    assert_true(u.tree);
    assert_int_equal(u.tree_pid, (unsigned)getppid());
    top_handle_key(&u, 27, 4, NULL);
    assert_false(u.tree);
    u.remote = 1;
    top_handle_key(&u, 't', 4, NULL);
    assert_false(u.tree);
    assert_non_null(strstr(u.msg, "not with --host"));
    u.remote = 0;
    /* e expands the alert list; p pauses at a time the screen keeps. */
    top_handle_key(&u, 'e', 4, NULL);
    assert_true(u.alerts_expanded);
    top_handle_key(&u, 'e', 4, NULL);
    assert_false(u.alerts_expanded);
    top_handle_key(&u, 'p', 4, NULL);
    assert_true(u.paused);
    assert_true(u.paused_mono_us > 0 && u.paused_wall_us > 0);
    top_handle_key(&u, 'p', 4, NULL);
    assert_false(u.paused);
    top_handle_key(&u, 'c', 4, NULL);
    assert_int_equal(u.chart, CHART_ALL);
    assert_true(u.chart_said);
    top_handle_key(&u, '?', 4, NULL);
    assert_true(u.help);
    top_handle_key(&u, 'q', 4, NULL); /* closes help only */
    assert_false(u.help);
    assert_false(u.quit);
    top_handle_key(&u, 'q', 4, NULL);
    assert_true(u.quit);
}

static pid_t sleeper(void)
{
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    return child;
}

static void test_signal(void **st)
{
    (void)st;
    char msg[200];
    pid_t child = sleeper();
    assert_int_equal(top_signal_process((unsigned)child, SIGTERM, SIG_REMOTE, msg, sizeof msg), LVL_WARN);
    assert_non_null(strstr(msg, "remote"));
    /* Simulated GPUs: a real process that merely has a scenario's pid is never signalled. */
    assert_false(top_signal_allowed((unsigned)child, SIG_SIMULATED));
    assert_int_equal(top_signal_process((unsigned)child, SIGKILL, SIG_SIMULATED, msg, sizeof msg), LVL_WARN);
    assert_non_null(strstr(msg, "simulated GPUs: no signal sent"));
    assert_int_equal(kill(child, 0), 0);                                 /* still alive */
    assert_true(top_signal_allowed((unsigned)getpid(), SIG_SIMULATED));  /* `self` */
    assert_true(top_signal_allowed((unsigned)getppid(), SIG_SIMULATED)); /* `parent` */
    assert_true(top_signal_allowed((unsigned)child, SIG_LOCAL));
    assert_false(top_signal_allowed(0, SIG_LOCAL));
    assert_int_equal(top_signal_process((unsigned)child, SIGINT, SIG_LOCAL, msg, sizeof msg), LVL_OK);
    assert_non_null(strstr(msg, "SIGINT sent"));
    int status;
    waitpid(child, &status, 0);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
    assert_int_equal(top_signal_process((unsigned)child, SIGKILL, SIG_LOCAL, msg, sizeof msg), LVL_WARN);
    assert_non_null(strstr(msg, "gone"));
}

/* As nobody: SIGTERM to a process of root's (the test's own child) is refused with EPERM, said in
 * words; exits 0 when it was, 1 otherwise. Never returns. */
static void signal_as_nobody(pid_t roots)
{
    char msg[200] = "";
    if (setgid(65534) != 0 || setuid(65534) != 0 || geteuid() != 65534)
        _exit(2); /* never signal as root by mistake */
    int level = top_signal_process((unsigned)roots, SIGTERM, SIG_LOCAL, msg, sizeof msg);
    _exit(level == LVL_CRIT && strstr(msg, "not permitted") ? 0 : 1);
}

/* A process that is not ours: EPERM said in words. Root is allowed everything, so as root a child
 * drops to nobody and signals another child of root's, which must survive; as any other user, pid
 * 1 (root's) is the target. */
static void test_signal_not_permitted(void **st)
{
    (void)st;
    char msg[200] = "";
    if (geteuid() != 0) {
        assert_int_equal(top_signal_process(1, SIGTERM, SIG_LOCAL, msg, sizeof msg), LVL_CRIT);
        assert_non_null(strstr(msg, "not permitted"));
        return;
    }
    pid_t roots = sleeper();
    assert_true(roots > 0);
    pid_t nobody = fork();
    assert_true(nobody >= 0);
    if (nobody == 0)
        signal_as_nobody(roots);
    int status = 0;
    assert_int_equal(waitpid(nobody, &status, 0), nobody);
    int refused = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    /* A SIGTERM that got through would be pending now and end the child before this SIGKILL. */
    kill(roots, SIGKILL);
    assert_int_equal(waitpid(roots, &status, 0), roots);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    assert_true(refused);
}

static void test_alert_lines(void **st)
{
    (void)st;
    top_alert a[4];
    int64_t t0 = 1700000000000000;
    top_alert_set(&a[0], "GPUTemperatureWarning", "warning", "pending", "core hot", t0, 300000000);
    top_alert_set(&a[1], "GPUPowerCapped", "info", "firing", "capped", t0, 0);
    top_alert_set(&a[2], "GPUTemperatureCritical", "critical", "pending", "core at 92", t0, 60000000);
    top_alert_set(&a[3], "GPULost", "critical", "firing", "lost", t0, 0);
    top_alerts_sort(a, 4);
    /* Firing before pending (whatever the severity), then worst first. */
    assert_string_equal(a[0].name, "GPULost");
    assert_string_equal(a[1].name, "GPUPowerCapped");
    assert_string_equal(a[2].name, "GPUTemperatureCritical");
    assert_string_equal(a[3].name, "GPUTemperatureWarning");
    char text[300];
    top_alert_text(&a[0], t0 + 5000000, text, sizeof text);
    assert_string_equal(text, "CRIT GPULost: lost");
    /* Pending: the rule's `for` minus the time pending. */
    top_alert_text(&a[3], t0 + 50000000, text, sizeof text);
    assert_string_equal(text, "pending WARN GPUTemperatureWarning (would fire in 4m10s): core hot");
    top_alert_text(&a[2], t0 + 61000000, text, sizeof text);
    assert_string_equal(text, "pending CRIT GPUTemperatureCritical (would fire at the next evaluation): core at 92");
    /* A remote agent does not say its rules' `for`: how long it has been pending. */
    top_alert r;
    top_alert_set(&r, "X", "critical", "pending", NULL, t0, -1);
    top_alert_text(&r, t0 + 75000000, text, sizeof text);
    assert_string_equal(text, "pending CRIT X (pending for 1m15s, not firing yet)");
    assert_false(r.firing);
    assert_int_equal(r.level, 2);
}

static void test_durations_and_rule_fors(void **st)
{
    (void)st;
    int64_t us;
    assert_int_equal(top_parse_duration("5m", &us), 0);
    assert_true(us == 300000000);
    assert_int_equal(top_parse_duration("1h30m", &us), 0);
    assert_true(us == 5400000000);
    assert_int_equal(top_parse_duration("500ms", &us), 0);
    assert_true(us == 500000);
    assert_int_equal(top_parse_duration("0", &us), 0);
    assert_true(us == 0);
    assert_int_equal(top_parse_duration("5x", &us), -1);
    assert_int_equal(top_parse_duration("", &us), -1);
    char path[] = "/tmp/top_rules_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *yaml = "groups:\n"
                       "  - name: a\n"
                       "    rules:\n"
                       "      - alert: Hot\n"
                       "        for: 2m\n"
                       "      - alert: Now\n"
                       "  - name: b\n"
                       "    rules:\n"
                       "      - alert: Long\n"
                       "        for: 1h30m\n";
    assert_true(write(fd, yaml, strlen(yaml)) == (ssize_t)strlen(yaml));
    close(fd);
    top_rule_for f[8];
    assert_int_equal(top_rule_fors_read(path, f, 8), 3);
    assert_string_equal(f[0].name, "Hot");
    assert_true(f[0].for_us == 120000000);
    assert_true(f[1].for_us == 0); /* no `for`: fires at once */
    assert_string_equal(f[2].name, "Long");
    assert_true(f[2].for_us == 5400000000);
    unlink(path);
    assert_int_equal(top_rule_fors_read("/nonexistent/rules.yaml", f, 8), -1);
}

static void test_history(void **st)
{
    (void)st;
    top_history *h = history_new(2, 4);
    assert_non_null(h);
    double out[4];
    series_fill(h, 0, SER_UTIL, 10000000, 1, 4, out); /* nothing yet: all NaN */
    for (int i = 0; i < 4; i++)
        assert_true(isnan(out[i]));
    for (int t = 1; t <= 6; t++) { /* 6 samples into 4 slots: the oldest two go */
        gpu_sample s;
        memset(&s, 0, sizeof s);
        s.t_us = (uint64_t)t * 1000000;
        sample_set(&s, M_UTIL_GPU, t * 10);
        if (t != 5) /* sample 5 has no memory figures */
            sample_set(&s, M_MEM_USED, 40), sample_set(&s, M_MEM_TOTAL, 80);
        history_push(h, 0, &s);
    }
    series_fill(h, 0, SER_UTIL, 6500000, 1, 4, out); /* buckets [2.5,3.5) [3.5,4.5) [4.5,5.5) [5.5,6.5) */
    assert_true(out[0] == 30 && out[1] == 40 && out[2] == 50 && out[3] == 60);
    series_fill(h, 0, SER_MEM_PCT, 6500000, 1, 4, out);
    assert_true(out[0] == 50 && isnan(out[2]) && out[3] == 50);
    series_fill(h, 0, SER_UTIL, 6500000, 2, 2, out); /* two samples per bucket: their mean */
    assert_true(out[0] == 35 && out[1] == 55);
    series_fill(h, 1, SER_UTIL, 6500000, 1, 4, out); /* another GPU: empty */
    assert_true(isnan(out[3]));
    gpu_sample old;
    memset(&old, 0, sizeof old);
    old.t_us = 1000000;
    sample_set(&old, M_UTIL_GPU, 99);
    history_push(h, 0, &old); /* back in time: ignored */
    series_fill(h, 0, SER_UTIL, 6500000, 1, 4, out);
    assert_true(out[3] == 60);
    history_free(h);
}

/* Writes root/PID/stat (and cmdline) for a fake /proc. */
static void fake_proc(const char *root, unsigned pid, unsigned ppid, const char *comm, const char *cmdline, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%u", root, pid);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%u/stat", root, pid);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%u (%s) S %u 1 1 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 1 0 12345 1000000 2560 18446744073709551615\n",
            pid, comm, ppid);
    fclose(f);
    snprintf(path, sizeof path, "%s/%u/cmdline", root, pid);
    f = fopen(path, "w");
    fwrite(cmdline, 1, len, f);
    fclose(f);
}

static void test_procfs(void **st)
{
    (void)st;
    proc_stat ps;
    assert_int_equal(proc_stat_parse("42 (my (odd) name) R 7 1 1 0 -1 0 0 0 0 0 300 45 0 0 20 0 1 0 999 1 128", &ps),
                     0);
    assert_string_equal(ps.comm, "my (odd) name");
    assert_int_equal(ps.ppid, 7);
    assert_true(ps.utime == 300 && ps.stime == 45 && ps.start_ticks == 999 && ps.rss_pages == 128);
    assert_int_equal(proc_stat_parse("garbage", &ps), -1);
    host_ticks a, b;
    assert_int_equal(procfs_parse_cpu("cpu  100 0 100 700 100 0 0 0 0 0\ncpu0 1 2 3 4\n", &a), 0);
    assert_int_equal(procfs_parse_cpu("cpu  150 0 150 800 100 0 0 0 0 0\n", &b), 0);
    assert_true(procfs_cpu_pct(&a, &b) == 50.0); /* 100 busy of 200 */
    assert_true(procfs_cpu_pct(&b, &a) < 0);
    assert_int_equal(procfs_parse_cpu("intr 1 2 3", &a), -1);
    double total, avail;
    assert_int_equal(
        procfs_parse_meminfo("MemTotal:  2097152 kB\nMemFree: 1 kB\nMemAvailable:  1048576 kB\n", &total, &avail), 0);
    assert_true(total == 2048 && avail == 1024);
    assert_int_equal(procfs_parse_meminfo("MemTotal: 5 kB\n", &total, &avail), -1);

    /* A family: 1 -> 10 -> 20 (selected) -> 30, 31 -> 40; 50 is unrelated. */
    char root[] = "/tmp/top_proc_XXXXXX";
    assert_non_null(mkdtemp(root));
    fake_proc(root, 1, 0, "init", "/sbin/init\0", 11);
    fake_proc(root, 10, 1, "sshd", "sshd: alice\0", 12);
    fake_proc(root, 20, 10, "python", "python\0train.py\0", 16);
    fake_proc(root, 30, 20, "pt_worker", "python\0-c\0worker\0", 18);
    fake_proc(root, 31, 20, "kthread", "", 0);
    fake_proc(root, 40, 31, "child", "child\0", 6);
    fake_proc(root, 50, 1, "other", "other\0", 6);
    proc_node nd[16];
    int n = procfs_tree(root, 20, nd, 16);
    assert_int_equal(n, 6);
    assert_int_equal(nd[0].pid, 1);
    assert_int_equal(nd[0].depth, 0);
    assert_int_equal(nd[1].pid, 10);
    assert_int_equal(nd[2].pid, 20);
    assert_true(nd[2].selected);
    assert_string_equal(nd[2].cmd, "python train.py");
    assert_int_equal(nd[2].depth, 2);
    assert_int_equal(nd[3].pid, 30);
    assert_int_equal(nd[3].depth, 3);
    assert_int_equal(nd[4].pid, 31);
    assert_string_equal(nd[4].cmd, "[kthread]"); /* no command line: its name, as ps shows it */
    assert_int_equal(nd[5].pid, 40);
    assert_int_equal(nd[5].depth, 4);
    assert_int_equal(procfs_tree(root, 99, nd, 16), 0); /* not there */
    assert_int_equal(procfs_tree(root, 20, nd, 2), 2);  /* cut: the nearest ancestor and the process */
    assert_int_equal(nd[0].pid, 10);
    assert_true(nd[1].selected);
    char cmd[64];
    assert_int_equal(procfs_read_cmdline(root, 30, cmd, sizeof cmd), 0);
    assert_string_equal(cmd, "python -c worker");
    /* A stat file kept open reads the new values; once that process is gone, it fails. */
    int fd = procfs_open_stat(root, 30);
    assert_true(fd >= 0);
    assert_int_equal(procfs_pread_stat(fd, &ps), 0);
    assert_true(ps.utime == 250 && ps.rss_pages == 2560);
    fake_proc(root, 30, 20, "pt_worker", "x", 1);
    assert_int_equal(procfs_pread_stat(fd, &ps), 0);
    close(fd);
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    fd = procfs_open_stat("/proc", (unsigned)child);
    assert_true(fd >= 0);
    assert_int_equal(procfs_pread_stat(fd, &ps), 0);
    assert_int_equal(ps.ppid, (unsigned)getpid());
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    assert_int_equal(procfs_pread_stat(fd, &ps), -1);
    close(fd);
    char rm[300];
    snprintf(rm, sizeof rm, "rm -rf %s", root);
    assert_int_equal(system(rm), 0);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_and_filter),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_layout_alerts_and_charts),
        cmocka_unit_test(test_visible_columns),
        cmocka_unit_test(test_gpu_text),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_signal),
        cmocka_unit_test(test_signal_not_permitted),
        cmocka_unit_test(test_alert_lines),
        cmocka_unit_test(test_durations_and_rule_fors),
        cmocka_unit_test(test_history),
        cmocka_unit_test(test_procfs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
