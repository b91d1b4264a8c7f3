/* test_proc_table.c - the one process table (core/proc_table.h) on fake /proc roots and on this
 * machine's: the stat line's parser; families of random process trees, whose subtrees and sums are
 * those of a walk of the parent links; CPU use between two readings (processes read in one scan
 * share the interval: their CPU use is in the ratio of their ticks), at a first reading since the
 * process started, and starting over when a pid is reused; a stat file kept open reads a process
 * until it exits, and the table forgets it then; command lines. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fakeproc.h"
#include "proc_stat.h"
#include "proc_table.h"

#define START_TICKS 12345

static char root[] = "/tmp/gw-proc-XXXXXX";

/* root/PID/stat and cmdline of a process "p PID". */
static void fake(unsigned pid, unsigned ppid, unsigned long long utime, unsigned long long start, const char *cmd,
                 size_t len)
{
    char comm[32];
    snprintf(comm, sizeof comm, "p %u", pid);
    assert_int_equal(fakeproc_write(root, pid, ppid, comm, utime, start, cmd, len), 0);
}

static void gone(unsigned pid)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s/%u", root, pid);
    assert_int_equal(system(cmd), 0);
}

/* root/stat with a boot time that makes START_TICKS `age` seconds ago. */
static void boot_time(double age)
{
    char path[256];
    snprintf(path, sizeof path, "%s/stat", root);
    FILE *f = fopen(path, "w");
    double hz = (double)sysconf(_SC_CLK_TCK);
    fprintf(f, "cpu  1 2 3 4\nbtime %.0f\n", (double)time(NULL) - age - START_TICKS / hz);
    fclose(f);
}

static int setup(void **st)
{
    (void)st;
    assert_non_null(mkdtemp(root));
    boot_time(100);
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    return system(cmd);
}

static void test_stat_parse(void **st)
{
    (void)st;
    proc_stat ps;
    assert_int_equal(proc_stat_parse("42 (my (odd) name) R 7 1 1 0 -1 0 0 0 0 0 300 45 0 0 20 0 1 0 999 1 128", &ps),
                     0);
    assert_string_equal(ps.comm, "my (odd) name");
    assert_int_equal(ps.ppid, 7);
    assert_true(ps.utime == 300 && ps.stime == 45 && ps.start_ticks == 999 && ps.rss_pages == 128);
    assert_int_equal(proc_stat_parse("garbage", &ps), -1);
    assert_int_equal(proc_stat_parse("1 (x) S 2 3", &ps), -1);
}

/* Random trees: each subtree is what a walk of the parent links finds. */
static void test_trees(void **st)
{
    (void)st;
    srand(7);
    for (int family = 0; family < 12; family++) {
        int n = 5 + rand() % 60;
        unsigned pid[64] = {0}, parent[64] = {0};
        for (int i = 0; i < n; i++) {
            pid[i] = 100 + (unsigned)family * 100 + (unsigned)i;
            parent[i] = i == 0 ? 1 : pid[rand() % i]; /* an earlier process, or init */
            fake(pid[i], parent[i], (unsigned long long)(i * 10), START_TICKS, "x\0", 2);
        }
        proc_table *t = proc_table_new(root, 0);
        assert_int_equal(proc_table_scan(t), n);
        for (int q = 0; q < n; q += 1 + rand() % 4) {
            unsigned out[64];
            double cpu, rss;
            int got = proc_table_subtree(t, pid[q], out, 64, &cpu, &rss);
            /* the walk: in the subtree when an ancestor is pid[q] */
            int want = 0;
            for (int i = 0; i < n; i++) {
                unsigned a = pid[i];
                int in = 0;
                for (int hops = 0; hops < 64 && a >= 100 && !in; hops++) {
                    in = a == pid[q];
                    int k = (int)(a - 100 - (unsigned)family * 100);
                    a = parent[k];
                }
                if (!in)
                    continue;
                want++;
                int found = 0;
                for (int j = 0; j < got; j++)
                    found |= out[j] == pid[i];
                assert_true(found);
            }
            assert_int_equal(got, want);
            assert_int_equal(out[0], pid[q]);
            double page = (double)sysconf(_SC_PAGESIZE) / 1048576.0;
            assert_true(fabs(rss - want * 2560 * page) < 1e-6);
            assert_true(cpu > 0 || want == 1);
        }
        unsigned out[4];
        assert_int_equal(proc_table_subtree(t, 99999, out, 4, NULL, NULL), 0);
        assert_int_equal(proc_table_subtree(t, pid[0], out, 4, NULL, NULL), n < 4 ? n : 4); /* at most max */
        proc_table_free(t);
        for (int i = 0; i < n; i++)
            gone(pid[i]);
    }
}

/* CPU use: since the start at the first reading; between readings after; a reused pid starts over. */
static void test_cpu(void **st)
{
    (void)st;
    double hz = (double)sysconf(_SC_CLK_TCK);
    for (int k = 1; k <= 5; k++) {
        fake(10, 1, 0, START_TICKS, "a\0", 2);
        fake(11, 1, 0, START_TICKS, "b\0", 2);
        proc_table *t = proc_table_new(root, k % 2);
        assert_int_equal(proc_table_scan(t), 2);
        proc_entry e[2];
        assert_int_equal(proc_table_list(t, e, 2), 2);
        /* first reading: 50 ticks of stime over the 100 s since the start */
        assert_true(fabs(e[0].cpu_percent - 50 / hz / 100 * 100) < 0.05);
        assert_true(e[0].start_time_s > 0);
        fake(10, 1, (unsigned long long)(20 * k), START_TICKS, "a\0", 2);
        fake(11, 1, (unsigned long long)(60 * k), START_TICKS, "b\0", 2);
        usleep(20000);
        assert_int_equal(proc_table_scan(t), 2);
        proc_table_list(t, e, 2);
        assert_true(e[0].cpu_percent > 0);
        assert_true(fabs(e[1].cpu_percent / e[0].cpu_percent - 3) < 1e-9); /* one interval for both */
        /* pid 11 is now another process (another start): a first reading again */
        fake(11, 1, 0, START_TICKS + 100, "c\0", 2);
        proc_entry one;
        assert_int_equal(proc_table_read(t, 11, &one), 0);
        assert_true(one.start_ticks == START_TICKS + 100);
        assert_true(fabs(one.cpu_percent - 50 / hz / (100 - 100 / hz) * 100) < 0.05);
        gone(10);
        assert_int_equal(proc_table_read(t, 10, &one), -1);
        assert_int_equal(proc_table_scan(t), 1); /* the one left */
        proc_table_free(t);
        gone(11);
    }
}

/* This machine's /proc: a kept stat file reads a child until it exits; its command line. */
static void test_real_process(void **st)
{
    (void)st;
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    proc_table *t = proc_table_new(NULL, 1);
    proc_entry e;
    assert_int_equal(proc_table_read(t, (unsigned)child, &e), 0);
    assert_int_equal(e.ppid, (unsigned)getpid());
    assert_true(e.rss_mib > 0);
    assert_int_equal(proc_table_read(t, (unsigned)child, &e), 0);
    char cmd[256];
    assert_int_equal(proc_read_cmdline(NULL, (unsigned)getpid(), cmd, sizeof cmd), 0);
    assert_non_null(strstr(cmd, "test_proc_table"));
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    assert_int_equal(proc_table_read(t, (unsigned)child, &e), -1);
    assert_int_equal(proc_table_read(t, 0, &e), -1);
    proc_table_free(t);
    fake(30, 1, 0, START_TICKS, "python\0-c\0worker\0", 17);
    assert_int_equal(proc_read_cmdline(root, 30, cmd, sizeof cmd), 0);
    assert_string_equal(cmd, "python -c worker");
    assert_int_equal(proc_read_cmdline(root, 31, cmd, sizeof cmd), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stat_parse),
        cmocka_unit_test(test_trees),
        cmocka_unit_test(test_cpu),
        cmocka_unit_test(test_real_process),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
