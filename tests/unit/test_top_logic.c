/* test_top_logic.c - top's pure logic: process sort and filter, layout choice, GPU texts and
 * thresholds, keys (sort, filter, confirmation) and the signal action's messages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "top_ui.h"
#include "top_keys.h"
#include "top_draw.h"
#include "top_proc.h"

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

static void test_layout(void **st)
{
    (void)st;
    top_layout l;
    layout_compute(24, 80, 16, LAYOUT_AUTO, CHART_SELECTED, 0, -1, &l);
    assert_true(l.compact);
    assert_int_equal(l.gpu_shown, 16);
    assert_true(l.proc_h >= 3);
    assert_int_equal(l.footer_y, 23);
    assert_true(l.proc_y + l.proc_h <= l.footer_y);

    layout_compute(24, 80, 16, LAYOUT_AUTO, CHART_SELECTED, 5, -1, &l); /* alerts give way */
    assert_int_equal(l.gpu_shown, 16);
    assert_int_equal(l.alert_h, 1);
    layout_compute(40, 120, 2, LAYOUT_AUTO, CHART_SELECTED, 5, -1, &l); /* room: up to 3 lines */
    assert_int_equal(l.alert_h, 3);

    layout_compute(40, 120, 8, LAYOUT_AUTO, CHART_SELECTED, 0, -1, &l);
    assert_false(l.compact);
    assert_int_equal(l.gpu_lines, 2);
    assert_int_equal(l.gpu_shown, 8);
    assert_true(l.chart_h >= 8);
    assert_true(l.proc_h >= 6);

    layout_compute(24, 80, 8, LAYOUT_AUTO, CHART_SELECTED, 0, -1, &l);
    assert_true(l.compact); /* 8 full panels do not fit */
    layout_compute(24, 80, 1, LAYOUT_AUTO, CHART_SELECTED, 0, -1, &l);
    assert_false(l.compact);
    assert_int_equal(l.gpu_lines, 3);
    layout_compute(24, 80, 1, LAYOUT_COMPACT, CHART_SELECTED, 0, -1, &l);
    assert_true(l.compact);
    layout_compute(40, 120, 8, LAYOUT_AUTO, CHART_OFF, 0, -1, &l);
    assert_int_equal(l.chart_h, 0);

    /* More GPUs than lines: the list scrolls to keep the selected one visible. */
    layout_compute(24, 80, 32, LAYOUT_AUTO, CHART_OFF, 0, 30, &l);
    assert_true(l.gpu_shown < 32);
    assert_true(30 >= l.gpu_first && 30 < l.gpu_first + l.gpu_shown);
    /* Tiny terminal: nothing negative. */
    layout_compute(5, 20, 8, LAYOUT_AUTO, CHART_SELECTED, 0, -1, &l);
    assert_true(l.gpu_h >= 0 && l.proc_h >= 0);
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
    th.temp_warn = 86; /* configurable thresholds */
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
    /* k without a selection does nothing; with one it asks, and only y sends. */
    top_handle_key(&u, 'k', 4, NULL);
    assert_int_equal(u.confirm_sig, 0);
    u.sel_pid = 999999;
    top_handle_key(&u, 'K', 4, NULL);
    assert_int_equal(u.confirm_sig, SIGKILL);
    top_handle_key(&u, 'n', 4, NULL);
    assert_int_equal(u.confirm_sig, 0);
    assert_string_equal(u.msg, "no signal sent");
    top_handle_key(&u, '?', 4, NULL);
    assert_true(u.help);
    top_handle_key(&u, 'q', 4, NULL); /* closes help only */
    assert_false(u.help);
    assert_false(u.quit);
    top_handle_key(&u, 'q', 4, NULL);
    assert_true(u.quit);
}

static void test_signal(void **st)
{
    (void)st;
    char msg[200];
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    assert_int_equal(top_signal_process((unsigned)child, SIGTERM, 1, msg, sizeof msg), LVL_WARN);
    assert_non_null(strstr(msg, "remote"));
    assert_int_equal(top_signal_process((unsigned)child, SIGTERM, 0, msg, sizeof msg), LVL_OK);
    int status;
    waitpid(child, &status, 0);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    assert_int_equal(top_signal_process((unsigned)child, SIGKILL, 0, msg, sizeof msg), LVL_WARN);
    assert_non_null(strstr(msg, "gone"));
    if (geteuid() != 0) {
        assert_int_equal(top_signal_process(1, SIGTERM, 0, msg, sizeof msg), LVL_CRIT);
        assert_non_null(strstr(msg, "not permitted"));
    }
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_and_filter), cmocka_unit_test(test_layout), cmocka_unit_test(test_visible_columns),
        cmocka_unit_test(test_gpu_text),        cmocka_unit_test(test_keys),   cmocka_unit_test(test_signal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
