/* test_top_fleet.c - top --hosts without a terminal: the hosts list and hosts file (families of bad
 * ones, each problem located), the reasons an agent cannot be read, the fleet model (a host up,
 * down with its last GPUs kept, up again), its lines grouped by host and by job and sorted by each
 * column (missing values last both ways), the findings ranked across hosts, the columns that give
 * way, and whole screens at 80x24 and 200x50 with the selection scrolled into view. */
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
#include <unistd.h>
#include "top_fleet.h"

/* ---- hosts ---- */

static int parse_text(const char *text, fleet_hosts *h, errlist *e)
{
    memset(h, 0, sizeof *h);
    memset(e, 0, sizeof *e);
    return fleet_hosts_parse(h, "hosts.txt", text, strlen(text), e);
}

static void test_hosts_file_good(void **st)
{
    (void)st;
    fleet_hosts *h = calloc(1, sizeof *h);
    errlist e;
    assert_int_equal(parse_text("# the fleet\n\ngpu1:9400\n  gpu2:9400   # rack 2\r\n\t[::1]:9401\n10.0.0.5:1", h, &e),
                     0);
    assert_int_equal(e.n, 0);
    assert_int_equal(h->n, 4);
    assert_string_equal(h->addr[0], "gpu1:9400");
    assert_string_equal(h->addr[1], "gpu2:9400");
    assert_string_equal(h->addr[2], "[::1]:9401");
    assert_string_equal(h->addr[3], "10.0.0.5:1"); /* no newline at the end */
    errlist_free(&e);
    free(h);
}

static void test_hosts_file_bad_lines(void **st)
{
    (void)st;
    /* every bad address a line of its own, after a good one: each reported at its line and column */
    static const char *bad[] = {"gpu1",      "gpu1:",      ":9400",       "gpu1:0",    "gpu1:65536",
                                "gpu1:94x",  "http://g:1", "g:1/metrics", "user@g:1",  "g 1:9400",
                                "[::1:9400", "g:1,h:2",    "g:-1",        "g:9400?x=1"};
    fleet_hosts *h = calloc(1, sizeof *h);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256], want[64];
        errlist e;
        snprintf(text, sizeof text, "ok:1\n# c\n   %s\n", bad[i]);
        assert_int_equal(parse_text(text, h, &e), -1);
        assert_int_equal(e.n, 1);
        snprintf(want, sizeof want, "hosts.txt:3:4: expected HOST:PORT");
        if (strncmp(e.msg[0], want, strlen(want)) != 0)
            fail_msg("'%s': %s", bad[i], e.msg[0]);
        errlist_free(&e);
    }
    free(h);
}

static void test_hosts_file_bad_files(void **st)
{
    (void)st;
    fleet_hosts *h = calloc(1, sizeof *h);
    errlist e;
    /* every problem at once, in line order */
    assert_int_equal(parse_text("a:1\nnope\nb:2\na:1\n", h, &e), -1);
    assert_int_equal(e.n, 2);
    assert_non_null(strstr(e.msg[0], "hosts.txt:2:1: expected HOST:PORT"));
    assert_non_null(strstr(e.msg[1], "hosts.txt:4:1: a:1 is listed twice"));
    errlist_free(&e);
    /* nothing but comments and blanks */
    assert_int_equal(parse_text("# none\n\n   \n# yet\n", h, &e), -1);
    assert_int_equal(e.n, 1);
    assert_non_null(strstr(e.msg[0], "hosts.txt: no HOST:PORT in the file"));
    errlist_free(&e);
    assert_int_equal(parse_text("", h, &e), -1);
    errlist_free(&e);
    /* a line too long, a NUL byte */
    char *text = malloc(FLEET_LINE_MAX + 32);
    memset(text, 'g', FLEET_LINE_MAX + 10);
    strcpy(text + FLEET_LINE_MAX + 10, ":1\nok:1\n");
    assert_int_equal(parse_text(text, h, &e), -1);
    assert_int_equal(e.n, 1);
    assert_non_null(strstr(e.msg[0], "hosts.txt:1:1: a line of at most"));
    assert_int_equal(h->n, 1); /* the good line still read */
    errlist_free(&e);
    free(text);
    memset(h, 0, sizeof *h);
    memset(&e, 0, sizeof e);
    assert_int_equal(fleet_hosts_parse(h, "hosts.txt", "a:1\nb\0:2\n", 10, &e), -1);
    assert_non_null(strstr(e.msg[0], "hosts.txt:2:1: a NUL byte"));
    errlist_free(&e);
    /* more agents than a screen holds: one message, not one per line */
    size_t cap = (FLEET_MAX_HOSTS + 50) * 24;
    text = malloc(cap);
    size_t off = 0;
    for (int i = 0; i < FLEET_MAX_HOSTS + 50; i++)
        off += (size_t)snprintf(text + off, cap - off, "10.0.%d.%d:9400\n", i / 250, i % 250);
    assert_int_equal(parse_text(text, h, &e), -1);
    assert_int_equal(e.n, 1);
    assert_int_equal(h->n, FLEET_MAX_HOSTS);
    assert_non_null(strstr(e.msg[0], "more than 256 agents"));
    errlist_free(&e);
    free(text);
    /* a file over the size bound is refused whole */
    text = malloc(FLEET_FILE_MAX + 2);
    memset(text, '#', FLEET_FILE_MAX + 1);
    text[FLEET_FILE_MAX + 1] = 0;
    assert_int_equal(parse_text(text, h, &e), -1);
    assert_non_null(strstr(e.msg[0], "hosts.txt: a hosts file of at most"));
    errlist_free(&e);
    free(text);
    free(h);
}

static void test_hosts_read_and_list(void **st)
{
    (void)st;
    fleet_hosts *h = calloc(1, sizeof *h);
    errlist e = {0};
    assert_int_equal(fleet_hosts_add_list(h, "a:1,b:2,[::1]:3", &e), 0);
    assert_int_equal(h->n, 3);
    static const char *bad[] = {"a:1,", ",a:1", "a:1,,b:2", "a:1,a:1", "a:1;b:2", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(h, 0, sizeof *h);
        assert_int_equal(fleet_hosts_add_list(h, bad[i], &e), -1);
        assert_true(e.n >= 1);
        assert_non_null(strstr(e.msg[0], "item "));
        errlist_free(&e);
    }
    /* the file: a missing one and a folder are refused with the reason */
    char dir[] = "/tmp/gwfleetXXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/hosts", dir);
    memset(h, 0, sizeof *h);
    assert_int_equal(fleet_hosts_read(h, path, &e), -1);
    assert_non_null(strstr(e.msg[0], path));
    errlist_free(&e);
    assert_int_equal(fleet_hosts_read(h, dir, &e), -1);
    errlist_free(&e);
    FILE *f = fopen(path, "w");
    fputs("x:1\ny:2\n", f);
    fclose(f);
    assert_int_equal(fleet_hosts_read(h, path, &e), 0);
    assert_int_equal(h->n, 2);
    unlink(path);
    rmdir(dir);
    free(h);
}

static void test_reasons(void **st)
{
    (void)st;
    static const struct {
        const char *err, *want;
    } cases[] = {
        {"agent http://h:1: Couldn't connect to server (Connection refused)", "connection refused"},
        {"agent http://h:1: Couldn't connect to server (No route to host)", "no route to host"},
        {"agent http://h:1: Timeout was reached (no answer in 2 s)", "no answer in 2 s"},
        {"agent https://h:1/api/v1/gpus: HTTP 401 (wrong or missing --user/--password-file)",
         "HTTP 401 (wrong or missing --user/--password-file)"},
        {"agent http://h:1/api/v1/gpus: not a list of GPUs (no \"gpus\" array)",
         "not a list of GPUs (no \"gpus\" array)"},
        {"something else", "something else"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[256];
        fleet_reason(cases[i].err, out, sizeof out);
        assert_string_equal(out, cases[i].want);
    }
}

/* ---- the model ---- */

/* Host h's GPUs: n of them, utilization util[i] (NAN: absent), a process of job[i] ("" none). */
static void set_host(fleet_model *m, int h, int n, const double *util, const char *const *job, const char *name)
{
    api_gpus g = {0};
    api_procs p = {0};
    g.gpus = calloc((size_t)n, sizeof *g.gpus);
    p.p = calloc((size_t)n, sizeof *p.p);
    g.n = n;
    snprintf(g.hostname, sizeof g.hostname, "%s", name);
    for (int i = 0; i < n; i++) {
        g.gpus[i].info.index = i;
        if (!isnan(util[i]))
            sample_set(&g.gpus[i].s, M_UTIL_GPU, util[i]);
        sample_set(&g.gpus[i].s, M_TEMP_GPU, 40 + i);
        if (job && job[i][0]) {
            gpu_proc *q = &p.p[p.n++];
            q->gpu = i;
            q->pid = 100 + (unsigned)i;
            q->has_mem = 1;
            q->mem_mib = 1000;
            snprintf(q->container, sizeof q->container, "%s", job[i]);
            snprintf(q->user, sizeof q->user, "u%d", h);
        }
    }
    fleet_host_read(m, h, &g, &p, 1000000);
    assert_null(g.gpus);
    assert_null(p.p);
}

static fleet_model *model_of(int nhosts)
{
    fleet_hosts *h = calloc(1, sizeof *h);
    errlist e = {0};
    for (int i = 0; i < nhosts; i++) {
        char a[32];
        snprintf(a, sizeof a, "10.0.0.%d:9400", i + 1);
        assert_int_equal(fleet_hosts_add(h, a, "test", &e), 0);
    }
    fleet_model *m = calloc(1, sizeof *m);
    assert_int_equal(fleet_model_init(m, h), 0);
    free(h);
    return m;
}

static void model_free(fleet_model *m)
{
    fleet_model_free(m);
    free(m);
}

/* The rows' (host, gpu index) as text: "h0 g1 g0 | h1 g0" (headers as hN or jN). */
static void rows_text(const fleet_model *m, const fleet_row *r, int n, char *out, size_t cap)
{
    size_t off = 0;
    out[0] = 0;
    for (int i = 0; i < n && off < cap; i++) {
        if (r[i].gpu < 0)
            off += (size_t)snprintf(out + off, cap - off, "%s%c%d", i ? " | " : "", r[i].host >= 0 ? 'h' : 'j',
                                    r[i].host >= 0 ? r[i].host : r[i].job);
        else
            off += (size_t)snprintf(out + off, cap - off, " %d.%d", r[i].host,
                                    m->hosts[r[i].host].gpus.gpus[r[i].gpu].info.index);
    }
}

static void test_host_states(void **st)
{
    (void)st;
    fleet_model *m = model_of(2);
    assert_int_equal(m->hosts[0].reach, HOST_WAITING);
    static const double u[] = {10, 20};
    set_host(m, 0, 2, u, NULL, "node-a");
    assert_int_equal(m->hosts[0].reach, HOST_UP);
    assert_string_equal(m->hosts[0].name, "node-a");
    /* down: the reason, since when (the first failure), and its GPUs as last read */
    fleet_host_down(m, 0, "connection refused", 5000000);
    fleet_host_down(m, 0, "no answer in 2 s", 9000000);
    assert_int_equal(m->hosts[0].reach, HOST_DOWN);
    assert_string_equal(m->hosts[0].why, "no answer in 2 s");
    assert_int_equal(m->hosts[0].since_us, 5000000);
    assert_int_equal(m->hosts[0].gpus.n, 2);
    fleet_host_down(m, 1, "connection refused", 6000000);
    fleet_row r[16];
    char text[256];
    int n = fleet_rows(m, GROUP_HOST, FC_GPU, 0, r, 16, NULL, 0, NULL);
    rows_text(m, r, n, text, sizeof text);
    assert_string_equal(text, "h0 0.0 0.1 | h1"); /* a host that never answered: its header alone */
    /* back up */
    set_host(m, 0, 2, u, NULL, "node-a");
    assert_int_equal(m->hosts[0].reach, HOST_UP);
    assert_string_equal(m->hosts[0].why, "");
    model_free(m);
}

static void test_rows_sorted(void **st)
{
    (void)st;
    fleet_model *m = model_of(2);
    static const double u0[] = {30, NAN, 90, 10}, u1[] = {50, 70, NAN};
    set_host(m, 0, 4, u0, NULL, "a");
    set_host(m, 1, 3, u1, NULL, "b");
    fleet_row r[32];
    char text[256];
    int n = fleet_rows(m, GROUP_HOST, FC_UTIL, 1, r, 32, NULL, 0, NULL);
    rows_text(m, r, n, text, sizeof text);
    assert_string_equal(text, "h0 0.2 0.0 0.3 0.1 | h1 1.1 1.0 1.2"); /* largest first, absent last */
    n = fleet_rows(m, GROUP_HOST, FC_UTIL, 0, r, 32, NULL, 0, NULL);
    rows_text(m, r, n, text, sizeof text);
    assert_string_equal(text, "h0 0.3 0.0 0.2 0.1 | h1 1.0 1.1 1.2"); /* smallest first, absent still last */
    n = fleet_rows(m, GROUP_HOST, FC_TEMP, 1, r, 32, NULL, 0, NULL);
    rows_text(m, r, n, text, sizeof text);
    assert_string_equal(text, "h0 0.3 0.2 0.1 0.0 | h1 1.2 1.1 1.0");
    /* every column sorts without losing or repeating a line, both ways */
    for (int c = 0; c < FC_COUNT; c++)
        for (int d = 0; d < 2; d++) {
            n = fleet_rows(m, GROUP_HOST, (fleet_col)c, d, r, 32, NULL, 0, NULL);
            assert_int_equal(n, 2 + 7);
            int seen[2][4] = {{0}};
            for (int i = 0; i < n; i++)
                if (r[i].gpu >= 0)
                    seen[r[i].host][r[i].gpu]++;
            for (int g = 0; g < 4; g++)
                assert_int_equal(seen[0][g], 1);
            for (int g = 0; g < 3; g++)
                assert_int_equal(seen[1][g], 1);
        }
    /* max bounds the rows */
    assert_int_equal(fleet_rows(m, GROUP_HOST, FC_UTIL, 1, r, 3, NULL, 0, NULL), 3);
    model_free(m);
}

static void test_rows_by_job(void **st)
{
    (void)st;
    fleet_model *m = model_of(2);
    static const double u0[] = {30, 60, 90}, u1[] = {50, 70, 20};
    static const char *const j0[] = {"slurm:job 4242 step 0 name llama", "k8s:ml/bert-0/trainer", ""};
    static const char *const j1[] = {"slurm:job 4242 step 1 name llama", "k8s:ml/bert-1/trainer",
                                     "docker:0123456789ab"};
    set_host(m, 0, 3, u0, j0, "a");
    set_host(m, 1, 3, u1, j1, "b");
    int max = fleet_rows_max(m);
    fleet_row *r = calloc((size_t)max, sizeof *r);
    char(*jobs)[FLEET_JOB_LEN] = calloc((size_t)max, FLEET_JOB_LEN);
    int njobs = 0;
    char text[256];
    int n = fleet_rows(m, GROUP_JOB, FC_UTIL, 1, r, max, jobs, max, &njobs);
    assert_int_equal(njobs, 4);
    assert_string_equal(jobs[0], "docker:0123456789ab");
    assert_string_equal(jobs[1], "k8s ml/bert"); /* the replicas of one job on two hosts */
    assert_string_equal(jobs[2], "slurm job 4242 llama");
    assert_string_equal(jobs[3], "");
    rows_text(m, r, n, text, sizeof text);
    assert_string_equal(text, "j0 1.2 | j1 1.1 0.1 | j2 1.0 0.0 | j3 0.2");
    /* sorting by job keeps the GPUs without one last */
    n = fleet_rows(m, GROUP_HOST, FC_JOB, 0, r, max, NULL, 0, NULL);
    rows_text(m, r, n, text, sizeof text);
    assert_string_equal(text, "h0 0.1 0.0 0.2 | h1 1.2 1.1 1.0");
    char job[FLEET_JOB_LEN], user[32];
    fleet_gpu_job(&m->hosts[1], 0, job, sizeof job, user, sizeof user);
    assert_string_equal(job, "slurm job 4242 llama");
    assert_string_equal(user, "u1");
    fleet_gpu_job(&m->hosts[0], 2, job, sizeof job, user, sizeof user);
    assert_string_equal(job, "");
    free(jobs);
    free(r);
    model_free(m);
}

static void add_finding(fleet_model *m, int h, const char *det, diag_severity sev, double score)
{
    diag_report r;
    diag_report_init(&r);
    for (int i = 0; i < m->hosts[h].find.n; i++) {
        diag_finding *f = diag_report_add(&r, m->hosts[h].find.f[i].detector, m->hosts[h].find.f[i].severity);
        f->score = m->hosts[h].find.f[i].score;
    }
    diag_finding *f = diag_report_add(&r, det, sev);
    f->score = score;
    diag_finding_summary(f, "%s on host %d", det, h);
    fleet_host_findings(m, h, &r, FIND_OK);
    diag_report_free(&r);
}

static void test_findings_ranked(void **st)
{
    (void)st;
    fleet_model *m = model_of(3);
    add_finding(m, 0, "idle_holding", DIAG_WARNING, 1);
    add_finding(m, 0, "thermal", DIAG_CRITICAL, 1);
    add_finding(m, 1, "input_stall", DIAG_WARNING, 5);
    add_finding(m, 2, "launch_overhead", DIAG_INFO, 9);
    add_finding(m, 2, "xid", DIAG_CRITICAL, 3);
    fleet_finding f[8];
    int n = fleet_findings(m, f, 8);
    assert_int_equal(n, 5);
    const char *want[] = {"xid", "thermal", "input_stall", "idle_holding", "launch_overhead"};
    for (int i = 0; i < n; i++)
        assert_string_equal(m->hosts[f[i].host].find.f[f[i].i].detector, want[i]);
    assert_int_equal(fleet_findings(m, f, 2), 2);
    /* a host whose findings cannot be read adds none */
    diag_report empty;
    diag_report_init(&empty);
    fleet_host_findings(m, 2, &empty, FIND_ERROR);
    diag_report_free(&empty);
    assert_int_equal(fleet_findings(m, f, 8), 3);
    model_free(m);
}

static void test_visible_cols(void **st)
{
    (void)st;
    int v[FC_COUNT];
    fleet_visible_cols(200, v);
    for (int c = 0; c < FC_COUNT; c++)
        assert_true(v[c]);
    fleet_visible_cols(80, v);
    assert_false(v[FC_THROTTLE]);
    assert_true(v[FC_SMCLK] && v[FC_HOST] && v[FC_GPU] && v[FC_UTIL] && v[FC_MEM] && v[FC_JOB]);
    /* narrower: the least needed go first, GPU, utilization and the job stay */
    int prev = FC_COUNT;
    for (int cols = 200; cols >= 20; cols -= 5) {
        fleet_visible_cols(cols, v);
        int n = 0;
        for (int c = 0; c < FC_COUNT; c++)
            n += v[c];
        assert_true(n <= prev);
        prev = n;
        assert_true(v[FC_GPU] && v[FC_UTIL] && v[FC_JOB]);
        if (!v[FC_MEM])
            assert_false(v[FC_TEMP] || v[FC_POWER] || v[FC_SMCLK] || v[FC_THROTTLE]);
    }
}

/* ---- screens ---- */

static int screen_has(const canvas *cv, const char *text)
{
    char row[2048];
    for (int y = 0; y < cv->rows; y++)
        if (strstr(cv_row_text(cv, y, row, sizeof row), text))
            return 1;
    return 0;
}

static int gpu_lines(const canvas *cv)
{
    char row[2048];
    int n = 0;
    for (int y = 0; y < cv->rows; y++)
        n += strncmp(cv_row_text(cv, y, row, sizeof row), "10.0.0.", 7) == 0;
    return n;
}

static void test_screens(void **st)
{
    (void)st;
    setlocale(LC_ALL, "C.UTF-8");
    fleet_model *m = model_of(4);
    static const double u[] = {1, 2, 3, 4, 5, 6, 7, 8};
    for (int h = 0; h < 3; h++)
        set_host(m, h, 8, u, NULL, "node");
    fleet_host_down(m, 3, "connection refused", 1000000);
    top_opts o = {.interval_s = 2, .th = {80, 90, 95, 105}};
    fleet_ui u_;
    fleet_ui_init(&u_, &o);
    canvas cv = {0};
    assert_int_equal(canvas_resize(&cv, 50, 200), 0);
    fleet_draw(&cv, m, &u_, 1, 1000000);
    assert_int_equal(gpu_lines(&cv), 24);
    assert_true(screen_has(&cv, "fleet: 4 hosts, 3 up, 1 unreachable"));
    assert_true(screen_has(&cv, "10.0.0.4:9400  UNREACHABLE since"));
    assert_true(screen_has(&cv, ": connection refused"));
    assert_true(screen_has(&cv, "THROTTLE"));
    /* 80x24: fewer lines, the rest reached by scrolling; the selection stays in view */
    assert_int_equal(canvas_resize(&cv, 24, 80), 0);
    fleet_draw(&cv, m, &u_, 1, 1000000);
    assert_true(gpu_lines(&cv) < 24);
    assert_true(screen_has(&cv, "lines 1-"));
    assert_false(screen_has(&cv, "THROTTLE"));
    int seen = 0;
    for (int k = 0; k < 40; k++) {
        fleet_handle_key(&u_, KEY_DOWN);
        fleet_draw(&cv, m, &u_, 1, 1000000);
        assert_true(u_.sel >= u_.top && u_.sel < u_.top + u_.list_h);
        seen = u_.sel;
    }
    assert_int_equal(seen, 3 * 9); /* the last line: the unreachable host's header */
    assert_true(screen_has(&cv, "UNREACHABLE"));
    /* Enter on a GPU line opens its host */
    fleet_handle_key(&u_, KEY_HOME);
    fleet_handle_key(&u_, KEY_DOWN);
    fleet_handle_key(&u_, '\r');
    assert_int_equal(u_.open_host, 0);
    /* the sort keys go round every column and back */
    for (int k = 0; k < FC_COUNT; k++)
        fleet_handle_key(&u_, 's');
    assert_int_equal(u_.sort_col, FC_GPU);
    fleet_handle_key(&u_, '<');
    assert_int_equal(u_.sort_col, FC_GPU - 1 < 0 ? FC_COUNT - 1 : FC_GPU - 1);
    canvas_free(&cv);
    fleet_ui_free(&u_);
    model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hosts_file_good),
        cmocka_unit_test(test_hosts_file_bad_lines),
        cmocka_unit_test(test_hosts_file_bad_files),
        cmocka_unit_test(test_hosts_read_and_list),
        cmocka_unit_test(test_reasons),
        cmocka_unit_test(test_host_states),
        cmocka_unit_test(test_rows_sorted),
        cmocka_unit_test(test_rows_by_job),
        cmocka_unit_test(test_findings_ranked),
        cmocka_unit_test(test_visible_cols),
        cmocka_unit_test(test_screens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
