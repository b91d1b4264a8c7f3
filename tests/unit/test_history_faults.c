/* test_history_faults.c - a disk that fills up (RLIMIT_FSIZE) and a read-only file: recording goes
 * on in memory, nothing crashes or corrupts, and writing resumes when the limit is lifted. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "history.h"
#include "query.h"
#include "hsynth.h"

#define T0 1764673200000000ll
#define SEC 1000000ll

static char dir[64], path[128];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/gw-hist-faults-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/h.db", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static history *open_hist(size_t max_buffer)
{
    history_config cfg;
    history_config_defaults(&cfg);
    cfg.path = path;
    cfg.no_thread = 1;
    if (max_buffer)
        cfg.max_buffer = max_buffer;
    char err[256];
    return history_open(&cfg, err, sizeof err);
}

static void record_range(history *h, hsynth_gpu *sg, int from, int to, int flush_every, int *fails)
{
    gpu_sample s;
    for (int i = from; i < to; i++) {
        hsynth_sample(sg, 0, T0 + i * SEC, &s);
        history_record_sample(h, 0, NULL, &s);
        if (flush_every && i % flush_every == flush_every - 1 && history_flush(h) != 0)
            (*fails)++;
    }
}

/* Samples of gpu 0 in the file and whether integrity_check says ok. */
static size_t count_samples(int *ok)
{
    char err[256];
    store *st = store_open(path, 1, err, sizeof err);
    if (!st)
        return 0;
    sqlite3_stmt *q = NULL;
    sqlite3_prepare_v2(store_db(st), "PRAGMA integrity_check", -1, &q, NULL);
    *ok = sqlite3_step(q) == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(q, 0), "ok") == 0;
    sqlite3_finalize(q);
    metric_id m = M_UTIL_GPU;
    hq_request rq = {.metrics = &m, .nmetrics = 1, .from_us = T0, .to_us = T0 + 100000 * SEC, .source = HQ_RAW};
    hq_result r;
    size_t n = 0;
    if (hq_run(st, &rq, &r, err, sizeof err) == 0) {
        n = r.n ? r.s[0].n : 0;
        for (size_t i = 1; i < n; i++)
            if (r.s[0].t[i] != r.s[0].t[i - 1] + SEC)
                n = 0; /* a hole or a duplicate */
        hq_free(&r);
    }
    store_close(st);
    return n;
}

/* Runs fn in a child process (so that a lowered file-size limit or another uid stays there). */
static void in_child(void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        fn();
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

#define CHECK(c)                                                           \
    do {                                                                   \
        if (!(c)) {                                                        \
            fprintf(stderr, "check failed: %s (line %d)\n", #c, __LINE__); \
            _exit(1);                                                      \
        }                                                                  \
    } while (0)

static void disk_full_child(void)
{
    history *h = open_hist(0);
    CHECK(h);
    hsynth_gpu sg;
    hsynth_init(&sg, 0);
    int fails = 0;
    record_range(h, &sg, 0, 300, 10, &fails);
    CHECK(fails == 0);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 4096; /* every write past the first page fails with EFBIG */
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    record_range(h, &sg, 300, 900, 10, &fails);
    history_stats st;
    history_get_stats(h, &st);
    CHECK(fails == 60);                                        /* each flush failed ... */
    CHECK(!st.writable && st.buffered > 0 && st.dropped == 0); /* ... and everything waits in memory */
    CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
    CHECK(history_flush(h) == 0); /* resumes */
    history_close(h);
    int ok = 0;
    CHECK(count_samples(&ok) == 900);
    CHECK(ok);
}

static void test_disk_full(void **state)
{
    (void)state;
    in_child(disk_full_child);
}

static void bounded_child(void)
{
    history *h = open_hist(64 * 1024);
    CHECK(h);
    hsynth_gpu sg;
    hsynth_init(&sg, 0);
    int fails = 0;
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 4096;
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    record_range(h, &sg, 0, 3000, 10, &fails); /* 5 sealed chunks, more than the 64 KiB buffer */
    history_stats st;
    history_get_stats(h, &st);
    CHECK(st.dropped > 0 && st.buffered <= 64 * 1024 + 32 * 1024);
    CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
    CHECK(history_flush(h) == 0);
    history_close(h);
    int ok = 0;
    size_t n = count_samples(&ok);
    CHECK(ok);
    (void)n;
}

static void test_bounded_buffer(void **state)
{
    (void)state;
    in_child(bounded_child);
}

static void read_only_child(void)
{
    if (geteuid() == 0) { /* root writes through 0444: become nobody first */
        CHECK(chown(dir, 65534, 65534) == 0);
        CHECK(setgid(65534) == 0 && setuid(65534) == 0);
    }
    history *h = open_hist(0);
    CHECK(h);
    hsynth_gpu sg;
    hsynth_init(&sg, 0);
    int fails = 0;
    record_range(h, &sg, 0, 100, 10, &fails);
    history_close(h);
    CHECK(fails == 0);
    CHECK(chmod(path, 0444) == 0);
    h = open_hist(0); /* a read-only file is no reason to stop */
    CHECK(h);
    record_range(h, &sg, 100, 400, 10, &fails);
    CHECK(fails == 30);
    history_stats st;
    history_get_stats(h, &st);
    CHECK(!st.writable && st.samples > 0);
    CHECK(chmod(path, 0644) == 0);
    CHECK(history_flush(h) == 0);
    history_close(h);
    int ok = 0;
    CHECK(count_samples(&ok) == 400);
    CHECK(ok);
}

static void test_read_only(void **state)
{
    (void)state;
    in_child(read_only_child);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_disk_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bounded_buffer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_only, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
