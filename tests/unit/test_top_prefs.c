/* test_top_prefs.c - top's preferences file: where it is (XDG_CONFIG_HOME, else ~/.config), the
 * defaults without one, every value written and read back, a family of broken files (each one
 * FILE:LINE:COL problem at the right place and the defaults, never a failure), a write that cannot
 * happen, and the keys that change a preference (and mark it to be saved) or do not. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "top_ui.h"

static char dir[256];

static int setup(void **st)
{
    (void)st;
    snprintf(dir, sizeof dir, "/tmp/test_top_prefs.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **st)
{
    (void)st;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int same(const top_prefs *a, const top_prefs *b)
{
    return a->interval_s == b->interval_s && a->layout == b->layout && a->chart == b->chart &&
           a->sort_col == b->sort_col && a->sort_desc == b->sort_desc && a->th.temp_warn == b->th.temp_warn &&
           a->th.temp_crit == b->th.temp_crit && a->th.hbm_warn == b->th.hbm_warn && a->th.hbm_crit == b->th.hbm_crit &&
           a->ascii == b->ascii && a->color == b->color && a->diag.enabled == b->diag.enabled &&
           a->diag.window_s == b->diag.window_s && a->diag.interval_s == b->diag.interval_s &&
           memcmp(&a->diag.cfg, &b->diag.cfg, sizeof a->diag.cfg) == 0;
}

static void test_path(void **st)
{
    (void)st;
    char path[512];
    setenv("XDG_CONFIG_HOME", "/cfg/x", 1);
    setenv("HOME", "/home/u", 1);
    assert_int_equal(top_prefs_path(path, sizeof path), 0);
    assert_string_equal(path, "/cfg/x/gpuwatch/top.yaml");
    setenv("XDG_CONFIG_HOME", "relative/dir", 1); /* not absolute: ignored */
    assert_int_equal(top_prefs_path(path, sizeof path), 0);
    assert_string_equal(path, "/home/u/.config/gpuwatch/top.yaml");
    unsetenv("XDG_CONFIG_HOME");
    assert_int_equal(top_prefs_path(path, sizeof path), 0);
    assert_string_equal(path, "/home/u/.config/gpuwatch/top.yaml");
    unsetenv("HOME");
    assert_int_equal(top_prefs_path(path, sizeof path), -1);
}

static void test_round_trip(void **st)
{
    (void)st;
    char path[512];
    snprintf(path, sizeof path, "%s/sub/gpuwatch/top.yaml", dir);
    errlist errs = {0};
    top_prefs p, d, back;
    top_prefs_defaults(&d);
    assert_int_equal(top_prefs_read(path, &p, &errs), 0); /* no file yet: the defaults */
    assert_int_equal(errs.n, 0);
    assert_true(same(&p, &d));
    /* Every value away from its default, written (folders made) and read back. */
    p.interval_s = 0.25;
    p.layout = LAYOUT_COMPACT;
    p.chart = CHART_OFF;
    p.sort_col = PC_CPU;
    p.sort_desc = 0;
    p.th = (top_thresholds){75, 85, 90, 100};
    p.ascii = 1;
    p.color = 0;
    p.diag.enabled = 0;
    p.diag.window_s = 600;
    p.diag.interval_s = 5;
    assert_int_equal(diag_config_set(&p.diag.cfg, "input_stall.min_duration_s", 5), 0);
    assert_int_equal(diag_config_set(&p.diag.cfg, "memory_full.used_frac", 0.9), 0);
    char why[600];
    assert_int_equal(top_prefs_write(path, &p, why, sizeof why), 0);
    assert_int_equal(top_prefs_read(path, &back, &errs), 0);
    assert_int_equal(errs.n, 0);
    assert_true(same(&p, &back));
    gw_buf b;
    buf_init(&b);
    assert_int_equal(top_prefs_text(&back, &b), 0);
    assert_non_null(strstr(b.data, "sort: cpu%\n"));
    assert_non_null(strstr(b.data, "interval: 250ms\n"));
    assert_non_null(strstr(b.data, "  window: 10m\n"));
    assert_non_null(strstr(b.data, "    input_stall.min_duration_s: 5\n"));
    assert_null(strstr(b.data, "p95_util")); /* only the thresholds set */
    buf_release(&b);
    /* Every sort column has a name that reads back. */
    for (int c = 0; c < PC_COUNT; c++) {
        p.sort_col = (proc_col)c;
        assert_int_equal(top_prefs_write(path, &p, why, sizeof why), 0);
        assert_int_equal(top_prefs_read(path, &back, &errs), 0);
        assert_int_equal(back.sort_col, c);
    }
    /* A hand-written file: any case, other duration forms, keys left out keep their defaults. */
    write_text(path, "layout: Full\nsort: TIME\ninterval: 500ms\ndiagnosis:\n  thresholds:\n"
                     "    input_stall: {p95_util: 75}\n");
    assert_int_equal(top_prefs_read(path, &back, &errs), 0);
    assert_int_equal(back.layout, LAYOUT_FULL);
    assert_int_equal(back.sort_col, PC_TIME);
    assert_true(back.interval_s == 0.5);
    assert_int_equal(back.chart, d.chart);
    double v;
    assert_int_equal(diag_config_get(&back.diag.cfg, "input_stall.p95_util", &v), 0);
    assert_true(v == 75);
    write_text(path, ""); /* empty: the defaults */
    assert_int_equal(top_prefs_read(path, &back, &errs), 0);
    assert_true(same(&back, &d));
    /* A link to a file kept elsewhere: the target is rewritten, the link stays. */
    char target[600], link[600];
    snprintf(target, sizeof target, "%s/dotfiles-top.yaml", dir);
    snprintf(link, sizeof link, "%s/linked.yaml", dir);
    write_text(target, "layout: full\n");
    assert_int_equal(symlink(target, link), 0);
    p.layout = LAYOUT_COMPACT;
    assert_int_equal(top_prefs_write(link, &p, why, sizeof why), 0);
    struct stat lst;
    assert_int_equal(lstat(link, &lst), 0);
    assert_true(S_ISLNK(lst.st_mode));
    assert_int_equal(top_prefs_read(target, &back, &errs), 0);
    assert_int_equal(back.layout, LAYOUT_COMPACT);
    /* A folder that cannot be made: the reason, no crash. */
    char blocked[600];
    snprintf(blocked, sizeof blocked, "%s/file", dir);
    write_text(blocked, "x");
    snprintf(blocked, sizeof blocked, "%s/file/gpuwatch/top.yaml", dir);
    assert_int_equal(top_prefs_write(blocked, &p, why, sizeof why), -1);
    assert_non_null(strstr(why, "Not a directory"));
    errlist_free(&errs);
}

/* Broken files: one located problem each, and the defaults. */
static void test_broken_files(void **st)
{
    (void)st;
    static const struct {
        const char *text;
        int line, col;
        const char *says;
    } cases[] = {
        {"layout: diagonal\n", 1, 9, "layout: expected auto, full or compact, got 'diagonal'"},
        {"interval: 1s\ncharts: some\n", 2, 9, "charts: expected selected, all or off, got 'some'"},
        {"sort: size\n", 1, 7, "sort: expected gpu, pid, user"},
        {"sort_order: up\n", 1, 13, "sort_order: expected asc or desc, got 'up'"},
        {"interval: 0\n", 1, 11, "interval: expected 0.1s to 60s"},
        {"interval: soon\n", 1, 11, "interval"},
        {"temp_warn: hot\n", 1, 12, "temp_warn: expected a number"},
        {"temp_warn: 95\ntemp_crit: 90\n", 1, 12, "temp_warn: 95 is above temp_crit 90"},
        {"hbm_crit: 300\n", 1, 11, "hbm_crit: expected degrees C from 0 to 200"},
        {"color: maybe\n", 1, 8, "color"},
        {"layout: auto\nlayuot: full\n", 2, 1, "layuot"},
        {"layout: auto\nlayout: full\n", 2, 1, "duplicate key 'layout'"},
        {"- layout\n- auto\n", 1, 1, "expected a mapping"},
        {"diagnosis:\n  window: 1s\n", 2, 11, "diagnosis.window: between 1m and 7d"},
        {"diagnosis:\n  thresholds:\n    input_stall.nope: 3\n", 3, 23, "no such threshold"},
        {"layout: [auto\n", 2, 1, ""},
    };
    char path[512];
    snprintf(path, sizeof path, "%s/top.yaml", dir);
    top_prefs d;
    top_prefs_defaults(&d);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        errlist errs = {0};
        top_prefs p;
        /* what a good file had set is not half-applied: all defaults */
        write_text(path, cases[i].text);
        assert_int_equal(top_prefs_read(path, &p, &errs), -1);
        assert_true(same(&p, &d));
        assert_true(errs.n >= 1);
        char where[600];
        snprintf(where, sizeof where, "%s:%d:%d: ", path, cases[i].line, cases[i].col);
        if (strncmp(errs.msg[0], where, strlen(where)) != 0 || !strstr(errs.msg[0], cases[i].says))
            fail_msg("file %zu: '%s', expected '%s%s...'", i, errs.msg[0], where, cases[i].says);
        errlist_free(&errs);
    }
    /* A file that cannot be read (a folder) is a problem too, not a failure. */
    errlist errs = {0};
    top_prefs p;
    assert_int_equal(top_prefs_read(dir, &p, &errs), -1);
    assert_true(same(&p, &d));
    assert_non_null(strstr(errs.msg[0], "cannot read"));
    errlist_free(&errs);
}

/* Keys that change a preference update the file's values and ask for a save; the others do not. */
static void test_keys(void **st)
{
    (void)st;
    top_prefs p;
    top_prefs_defaults(&p);
    p.sort_col = PC_PID;
    p.chart = CHART_OFF;
    top_opts o = {.interval_s = 1, .th = {80, 90, 95, 105}, .prefs = &p};
    top_ui u;
    top_ui_init(&u, &o);
    assert_int_equal(u.sort_col, PC_PID); /* the file's choices at start */
    assert_int_equal(u.chart, CHART_OFF);
    static const int quiet[] = {'g', '1', 'a', 'e', 'e', 't', KEY_DOWN, 'p', 'p', '?', 'x'};
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
        top_handle_key(&u, quiet[i], 4, NULL);
    assert_false(u.prefs_dirty);
    top_handle_key(&u, 's', 4, NULL);
    assert_true(u.prefs_dirty);
    assert_int_equal(p.sort_col, PC_USER);
    u.prefs_dirty = 0;
    top_handle_key(&u, 'r', 4, NULL);
    assert_int_equal(p.sort_desc, 0);
    top_handle_key(&u, 'l', 4, NULL);
    assert_int_equal(p.layout, LAYOUT_FULL);
    top_handle_key(&u, 'c', 4, NULL);
    assert_int_equal(p.chart, CHART_SELECTED);
    top_handle_key(&u, '+', 4, NULL);
    assert_true(p.interval_s == 2);
    assert_true(u.prefs_dirty);
    /* Colours and ASCII: switched, saved, and the terminal side asked to restyle. */
    top_handle_key(&u, 'C', 4, NULL);
    assert_true(o.no_color);
    assert_int_equal(p.color, 0);
    assert_true(u.restyle);
    top_handle_key(&u, 'A', 4, NULL);
    assert_true(o.ascii);
    assert_int_equal(p.ascii, 1);
    top_handle_key(&u, 'A', 4, NULL);
    assert_false(o.ascii);
    /* A terminal that cannot show Unicode keeps ASCII, and that is not saved as a choice. */
    o.ascii = o.ascii_forced = 1;
    top_handle_key(&u, 'A', 4, NULL);
    assert_true(o.ascii);
    assert_non_null(strstr(u.msg, "cannot show Unicode"));
    top_handle_key(&u, 's', 4, NULL);
    assert_int_equal(p.ascii, 0);
    /* What an option, NO_COLOR or the terminal chose for this run is not saved by a key that changes
     * another preference: only that key's own value goes into the file's values. */
    top_prefs_defaults(&p);
    top_opts o3 = {.interval_s = 0.5,
                   .th = {80, 90, 95, 105},
                   .layout = LAYOUT_COMPACT,
                   .no_color = 1,
                   .ascii = 1,
                   .prefs = &p}; /* -d 0.5 --layout compact, NO_COLOR, --ascii */
    top_ui_init(&u, &o3);
    static const int others[] = {'s', 'r', '<', 'c', 'C', 'l', '+', 'A'};
    for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
        top_prefs before = p;
        top_handle_key(&u, others[k], 4, NULL);
        assert_true(u.prefs_dirty);
        u.prefs_dirty = 0;
        /* each key changes its own values and leaves every other one as the file had it */
        int sort = others[k] == 's' || others[k] == 'r' || others[k] == '<';
        if (!sort)
            assert_true(p.sort_col == before.sort_col && p.sort_desc == before.sort_desc);
        if (others[k] != 'c')
            assert_int_equal(p.chart, before.chart);
        if (others[k] != 'C')
            assert_int_equal(p.color, before.color);
        if (others[k] != 'l')
            assert_int_equal(p.layout, before.layout);
        if (others[k] != '+')
            assert_true(p.interval_s == before.interval_s);
        if (others[k] != 'A')
            assert_int_equal(p.ascii, before.ascii);
    }
    assert_int_equal(p.color, 1);            /* C turned colours on: saved as on */
    assert_int_equal(p.layout, LAYOUT_AUTO); /* l from compact: auto */
    assert_true(p.interval_s == 1);          /* + from 0.5 */
    assert_int_equal(p.ascii, 0);            /* A turned ASCII off */
    assert_int_equal(p.sort_col, PC_GPUMEM); /* s then <: back to the default column, */
    assert_int_equal(p.sort_desc, 0);        /* reversed */
    /* Without a preferences file (NULL), keys work and nothing asks for a save. */
    top_opts o2 = {.interval_s = 1, .th = {80, 90, 95, 105}};
    top_ui_init(&u, &o2);
    assert_int_equal(u.sort_col, PC_GPUMEM);
    top_handle_key(&u, 's', 4, NULL);
    assert_false(u.prefs_dirty);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path),
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_broken_files, setup, teardown),
        cmocka_unit_test(test_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
