/* test_procinfo.c - container/job detection from real-looking /proc/<pid>/cgroup texts, and /proc
 * enrichment of this test's own process. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "procinfo.h"

static void expect_container(const char *cgroup, const char *want)
{
    char out[96];
    memset(out, 'x', sizeof out);
    procinfo_container_from_cgroup(cgroup, out, sizeof out);
    if (strcmp(out, want) != 0)
        fail_msg("cgroup %s\n  gave \"%s\", expected \"%s\"", cgroup, out, want);
}

static void test_docker(void **state)
{
    (void)state;
    expect_container("0::/system.slice/docker-4f2c1a9b8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b.scope\n",
                     "docker:4f2c1a9b8e7d");
    /* cgroup v1, cgroupfs driver: one line per hierarchy */
    expect_container("12:memory:/docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"
                     "11:cpu,cpuacct:/docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"
                     "1:name=systemd:/docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
                     "docker:0123456789ab");
}

static void test_containerd_podman(void **state)
{
    (void)state;
    expect_container(
        "0::/system.slice/cri-containerd-9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b.scope",
        "containerd:9a8b7c6d5e4f");
    expect_container(
        "0::/machine.slice/libpod-77aa88bb99cc00dd11ee22ff33aa44bb55cc66dd77ee88ff99aa00bb11cc22dd.scope/container\n",
        "podman:77aa88bb99cc");
    /* rootless podman under a user manager: the container wins over the user unit */
    expect_container("0::/user.slice/user-1000.slice/user@1000.service/user.slice/"
                     "libpod-aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899.scope\n",
                     "podman:aabbccddeeff");
    /* conmon is podman's monitor, not the container */
    expect_container(
        "0::/machine.slice/libpod-conmon-aabbccddeeff00112233445566778899aabbccddeeff0011223344556677.scope\n", "");
}

static void test_kubernetes(void **state)
{
    (void)state;
    /* systemd cgroup driver, cgroup v2: the pod uid is written with underscores */
    expect_container("0::/kubepods.slice/kubepods-burstable.slice/"
                     "kubepods-burstable-pod8d1c6a2e_4b3f_4e5a_9c7d_1f2e3a4b5c6d.slice/"
                     "cri-containerd-5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f.scope\n",
                     "k8s:pod8d1c6a2e-4b3f-4e5a-9c7d-1f2e3a4b5c6d/5e6f7a8b9c0d");
    /* cgroupfs driver, cgroup v1, guaranteed QoS (no qos level) */
    expect_container("11:devices:/kubepods/pod0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b/"
                     "d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3\n",
                     "k8s:pod0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b/d4c3b2a1f0e9");
    /* the pod's sandbox cgroup, no container below it */
    expect_container("0::/kubepods.slice/kubepods-besteffort.slice/"
                     "kubepods-besteffort-pod11112222_3333_4444_5555_666677778888.slice\n",
                     "k8s:pod11112222-3333-4444-5555-666677778888");
}

static void test_slurm(void **state)
{
    (void)state;
    expect_container("7:cpuset:/slurm/uid_1000/job_4242/step_0/task_0\n"
                     "4:memory:/slurm/uid_1000/job_4242/step_0/task_0\n",
                     "slurm:job 4242 step 0");
    /* cgroup v2 Slurm (slurmstepd scope) */
    expect_container("0::/system.slice/slurmstepd.scope/job_123456/step_batch/user/task_0\n",
                     "slurm:job 123456 step batch");
}

static void test_systemd_and_user(void **state)
{
    (void)state;
    expect_container("0::/system.slice/jupyterhub.service\n", "systemd:jupyterhub.service");
    expect_container("0::/user.slice/user-1000.slice/user@1000.service/app.slice/"
                     "app-org.gnome.Terminal.slice/vte-spawn-0c8a7b6e-1d2f-4a3b-9c8d-7e6f5a4b3c2d.scope\n",
                     "user:vte-spawn-0c8a7b6e-1d2f-4a3b-9c8d-7e6f5a4b3c2d.scope");
    expect_container("0::/user.slice/user-1000.slice/user@1000.service/app.slice/jupyter.service\n",
                     "user:jupyter.service");
    expect_container("0::/user.slice/user-1001.slice/session-7.scope\n", "user:session-7.scope");
}

static void test_nothing_known(void **state)
{
    (void)state;
    expect_container("0::/\n", "");
    expect_container("0::/init.scope\n", "");
    expect_container("", "");
    expect_container("garbage without colons\n", "");
    char tiny[8];
    procinfo_container_from_cgroup("0::/system.slice/docker-0123456789abcdef0123.scope", tiny, sizeof tiny);
    assert_string_equal(tiny, "docker:"); /* truncated, still terminated */
}

static void test_own_process(void **state)
{
    (void)state;
    gpu_proc p;
    memset(&p, 0, sizeof p);
    p.pid = (unsigned)getpid();
    snprintf(p.name, sizeof p.name, "from-nvml");
    proc_table *t = proc_table_new(NULL, 0);
    assert_non_null(t);
    assert_int_equal(procinfo_fill(t, &p, NULL), 0);
    assert_string_equal(p.name, "test_procinfo"); /* comm replaces NVML's name */
    assert_non_null(strstr(p.cmdline, "test_procinfo"));
    struct passwd *pw = getpwuid(getuid());
    if (pw)
        assert_string_equal(p.user, pw->pw_name);
    assert_true(p.has_rss);
    assert_true(p.rss_mib > 0.1 && p.rss_mib < 4096);
    uint64_t now = (uint64_t)time(NULL);
    assert_true(p.start_time_s <= now + 1);
    assert_true(p.start_time_s + 600 > now); /* this test started moments ago */
    assert_true(p.has_cpu);

    /* Burn CPU, then compare procinfo's CPU% with our own CPU time over the same wall time
     * (measured, not assumed: on a loaded machine we get less than a whole core). */
    struct timespec w0, w1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    volatile double x = 0;
    do {
        for (int i = 0; i < 100000; i++)
            x += i * 0.5;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    } while ((c1.tv_sec - c0.tv_sec) * 1000000000L + (c1.tv_nsec - c0.tv_nsec) < 200000000L);
    proc_entry e;
    assert_int_equal(procinfo_fill(t, &p, &e), 0);
    assert_int_equal(e.pid, p.pid);
    clock_gettime(CLOCK_MONOTONIC, &w1);
    double wall = (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) / 1e9;
    double cpu = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;
    double expected = 100.0 * cpu / wall;
    assert_true(p.has_cpu);
    /* /proc counts in 10 ms ticks over ~200 ms of CPU: allow 15 points either way. */
    if (p.cpu_percent < expected - 15 || p.cpu_percent > expected + 15)
        fail_msg("cpu_percent %.1f, expected about %.1f", p.cpu_percent, expected);
    proc_table_free(t);
}

static void test_invisible_pid(void **state)
{
    (void)state;
    gpu_proc p;
    memset(&p, 0, sizeof p);
    p.pid = 0x3ffffff0u; /* above pid_max: as a pid from another namespace */
    snprintf(p.name, sizeof p.name, "python3");
    snprintf(p.container, sizeof p.container, "from-backend");
    proc_table *t = proc_table_new(NULL, 0);
    assert_int_equal(procinfo_fill(t, &p, NULL), -1);
    proc_table_free(t);
    assert_string_equal(p.name, "python3");
    assert_string_equal(p.container, "from-backend");
    assert_string_equal(p.cmdline, "");
    assert_false(p.has_cpu);
    assert_false(p.has_rss);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_docker),           cmocka_unit_test(test_containerd_podman),
        cmocka_unit_test(test_kubernetes),       cmocka_unit_test(test_slurm),
        cmocka_unit_test(test_systemd_and_user), cmocka_unit_test(test_nothing_known),
        cmocka_unit_test(test_own_process),      cmocka_unit_test(test_invisible_pid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
