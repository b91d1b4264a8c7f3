/* test_workload.c - who a process works for: families of cgroup paths in the documented layouts
 * (cgroup v1 and v2; docker, containerd, CRI-O, podman; the kubelet's cgroupfs and systemd drivers
 * in every QoS class; Slurm's v1 and v2 layouts, steps and several slurmd per node), Slurm
 * environments, fake /proc, /var/log/pods and /var/log/containers trees, the text form read back,
 * and the labels the exporter then gives (dcgm-exporter's pod/namespace/container, the job info
 * series). Untrusted input: names out of their character sets, links, environments that claim
 * another job, oversized values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "exposition.h"
#include "procinfo.h"
#include "workload.h"

static unsigned seed = 12345;

static unsigned rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) & 0xffffff;
}

static void hex(char *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = "0123456789abcdef"[rnd() % 16];
    out[n] = 0;
}

static void uuid(char *out)
{
    hex(out, 32);
    char tmp[37];
    snprintf(tmp, sizeof tmp, "%.8s-%.4s-%.4s-%.4s-%.12s", out, out + 8, out + 12, out + 16, out + 20);
    strcpy(out, tmp);
}

/* ---- containers: every runtime, both cgroup versions, both drivers ---- */

static void test_container_runtimes(void **state)
{
    (void)state;
    static const struct {
        const char *fmt, *runtime;
    } layouts[] = {
        {"0::/system.slice/docker-%s.scope\n", "docker"},
        {"12:memory:/docker/%s\n11:cpu,cpuacct:/docker/%s\n1:name=systemd:/docker/%s\n", "docker"},
        {"0::/system.slice/cri-containerd-%s.scope\n", "containerd"},
        {"0::/system.slice/crio-%s.scope\n", "crio"},
        {"0::/machine.slice/libpod-%s.scope/container\n", "podman"},
        {"0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-%s.scope\n", "podman"},
        {"5:devices:/machine.slice/libpod-%s.scope\n", "podman"},
    };
    for (int round = 0; round < 20; round++)
        for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
            char id[65], text[1024], want[64], got[160];
            hex(id, 64);
            snprintf(text, sizeof text, layouts[i].fmt, id, id, id);
            workload w;
            assert_int_equal(workload_from_cgroup(text, &w), WL_CONTAINER);
            assert_string_equal(w.runtime, layouts[i].runtime);
            assert_string_equal(w.container_id, id);
            snprintf(want, sizeof want, "%s:%.12s", layouts[i].runtime, id);
            workload_format(&w, got, sizeof got);
            assert_string_equal(got, want);
            workload back;
            assert_int_equal(workload_parse(got, &back), WL_CONTAINER);
            assert_string_equal(back.runtime, layouts[i].runtime);
        }
    /* the monitors beside a container are not it */
    char id[65], text[256];
    hex(id, 64);
    snprintf(text, sizeof text, "0::/machine.slice/libpod-conmon-%s.scope\n", id);
    workload w;
    assert_int_equal(workload_from_cgroup(text, &w), WL_NONE);
    snprintf(text, sizeof text, "0::/system.slice/crio-conmon-%s.scope\n", id);
    assert_true(workload_from_cgroup(text, &w) < WL_CONTAINER); /* not a container */
}

/* ---- Kubernetes pods: cgroupfs and systemd drivers, v1 and v2, every QoS class ---- */

static void pod_path(char *out, size_t n, int systemd, int v2, const char *qos, const char *uid, const char *rt,
                     const char *id)
{
    char uid_us[40];
    strcpy(uid_us, uid);
    for (char *p = uid_us; *p; p++)
        if (*p == '-')
            *p = '_';
    const char *prefix = v2 ? "0::" : "4:memory:";
    if (systemd) {
        char qslice[64] = "", qpod[64] = "";
        if (*qos) {
            snprintf(qslice, sizeof qslice, "/kubepods-%s.slice", qos);
            snprintf(qpod, sizeof qpod, "-%s", qos);
        }
        snprintf(out, n, "%s/kubepods.slice%s/kubepods%s-pod%s.slice/%s-%s.scope\n", prefix, qslice, qpod, uid_us, rt,
                 id);
    } else {
        snprintf(out, n, "%s/kubepods%s%s/pod%s/%s\n", prefix, *qos ? "/" : "", qos, uid, id);
    }
}

static void test_pods(void **state)
{
    (void)state;
    static const char *const qos[] = {"", "burstable", "besteffort"};
    static const char *const rts[] = {"cri-containerd", "crio", "docker"};
    for (int systemd = 0; systemd < 2; systemd++)
        for (int v2 = 0; v2 < 2; v2++)
            for (int q = 0; q < 3; q++)
                for (int r = 0; r < 3; r++) {
                    char uid[40], id[65], text[512], got[160], want[160];
                    uuid(uid);
                    hex(id, 64);
                    pod_path(text, sizeof text, systemd, v2, qos[q], uid, rts[r], id);
                    workload w;
                    if (workload_from_cgroup(text, &w) != WL_POD)
                        fail_msg("%s: not a pod", text);
                    assert_string_equal(w.pod_uid, uid);
                    assert_string_equal(w.container_id, id);
                    workload_format(&w, got, sizeof got);
                    snprintf(want, sizeof want, "k8s:pod%s/%.12s", uid, id);
                    assert_string_equal(got, want);
                    workload back;
                    assert_int_equal(workload_parse(got, &back), WL_POD);
                    assert_string_equal(back.pod_uid, uid);
                    assert_string_equal(back.namespace_, "");
                }
}

/* A pod uid that is not one (a character out of place anywhere, a length off by one) is no pod: the
 * text would not read back (found by fuzz_parsers). */
static void test_pod_uid_shapes(void **state)
{
    (void)state;
    for (int at = 0; at < 36; at++)
        for (int systemd = 0; systemd < 2; systemd++) {
            char uid[40], id[65], text[512];
            uuid(uid);
            hex(id, 64);
            uid[at] = "]g.xZ-"[at % 6]; /* a dash where a digit goes, or a letter that is not hex */
            if (uid[at] == '-' && (at == 8 || at == 13 || at == 18 || at == 23))
                uid[at] = 'q';
            pod_path(text, sizeof text, systemd, 1, "burstable", uid, "cri-containerd", id);
            workload w;
            if (workload_from_cgroup(text, &w) == WL_POD)
                fail_msg("%s: a pod", text);
        }
    char uid[40], id[65], text[512];
    uuid(uid), hex(id, 64);
    uid[35] = 0; /* 35 characters */
    pod_path(text, sizeof text, 0, 1, "", uid, "x", id);
    workload w;
    assert_int_not_equal(workload_from_cgroup(text, &w), WL_POD);
}

/* ---- Slurm: v1 and v2, steps, several slurmd on one node ---- */

static void test_slurm(void **state)
{
    (void)state;
    static const char *const layouts[] = {
        "7:cpuset:/slurm/uid_%u/job_%u/step_%s/task_0\n4:memory:/slurm/uid_%u/job_%u/step_%s/task_0\n",
        "4:memory:/slurm_node3/uid_%u/job_%u/step_%s\n",
        "0::/system.slice/slurmstepd.scope/job_%2$u/step_%3$s/user/task_0\n",
        "0::/system.slice/node3_slurmstepd.scope/job_%2$u/step_%3$s/user/task_1\n",
    };
    static const char *const steps[] = {"0", "1", "batch", "extern", "interactive", "12"};
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
        for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
            unsigned uid = 1000 + rnd() % 1000, job = 1 + rnd() % 9000000;
            char text[512], got[160], want[160];
            if (l >= 2)
                snprintf(text, sizeof text, layouts[l], uid, job, steps[s]);
            else
                snprintf(text, sizeof text, layouts[l], uid, job, steps[s], uid, job, steps[s]);
            workload w;
            if (workload_from_cgroup(text, &w) != WL_SLURM)
                fail_msg("%s: not a Slurm job", text);
            char jobs[24];
            snprintf(jobs, sizeof jobs, "%u", job);
            assert_string_equal(w.slurm_job, jobs);
            assert_string_equal(w.slurm_step, steps[s]);
            workload_format(&w, got, sizeof got);
            snprintf(want, sizeof want, "slurm:job %u step %s", job, steps[s]);
            assert_string_equal(got, want);
        }
}

static void test_slurm_environment(void **state)
{
    (void)state;
    workload w;
    workload_from_cgroup("0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n", &w);
    static const char env[] = "HOME=/home/a\0SLURM_JOB_ID=4242\0SLURM_ARRAY_JOB_ID=4240\0SLURM_ARRAY_TASK_ID=2\0"
                              "SLURM_JOB_NAME=bert finetune\0SLURM_STEP_ID=0\0";
    assert_int_equal(workload_slurm_env(&w, env, sizeof env - 1), 1);
    assert_string_equal(w.slurm_array_job, "4240");
    assert_string_equal(w.slurm_array_task, "2");
    assert_string_equal(w.job_name, "bert finetune");
    char text[160];
    workload_format(&w, text, sizeof text);
    assert_string_equal(text, "slurm:job 4242 step 0 array 4240_2 name bert finetune");
    workload back;
    assert_int_equal(workload_parse(text, &back), WL_SLURM);
    assert_string_equal(back.slurm_job, "4242");
    assert_string_equal(back.slurm_array_task, "2");
    assert_string_equal(back.job_name, "bert finetune");

    /* a process claiming another job in its environment is not believed */
    workload other;
    workload_from_cgroup("0::/system.slice/slurmstepd.scope/job_4242/step_0\n", &other);
    static const char liar[] = "SLURM_JOB_ID=9999\0SLURM_JOB_NAME=not mine\0";
    assert_int_equal(workload_slurm_env(&other, liar, sizeof liar - 1), 0);
    assert_string_equal(other.job_name, "");
    /* control characters in a name become '?'; a long name is cut at a whole character */
    static const char weird[] = "SLURM_JOB_ID=4242\0SLURM_JOB_NAME=a\033[31mred\nx\0";
    assert_int_equal(workload_slurm_env(&other, weird, sizeof weird - 1), 1);
    assert_null(strchr(other.job_name, '\033'));
    assert_null(strchr(other.job_name, '\n'));
    char longenv[300];
    int k = snprintf(longenv, sizeof longenv, "SLURM_JOB_ID=4242%cSLURM_JOB_NAME=", 0);
    for (int i = 0; i < 100; i++) {
        memcpy(longenv + k, "\xc3\xa9", 2); /* é */
        k += 2;
    }
    longenv[k++] = 0;
    workload_slurm_env(&other, longenv, (size_t)k);
    assert_true(strlen(other.job_name) <= 63 && strlen(other.job_name) % 2 == 0);
    /* array ids that are not digits are left out */
    static const char bad[] = "SLURM_JOB_ID=4242\0SLURM_ARRAY_JOB_ID=12;rm\0SLURM_ARRAY_TASK_ID=1\0";
    workload_from_cgroup("0::/system.slice/slurmstepd.scope/job_4242/step_0\n", &other);
    workload_slurm_env(&other, bad, sizeof bad - 1);
    assert_string_equal(other.slurm_array_job, "");
}

static void test_units_and_nothing(void **state)
{
    (void)state;
    workload w;
    char text[160];
    assert_int_equal(workload_from_cgroup("0::/system.slice/jupyterhub.service\n", &w), WL_SYSTEM_UNIT);
    workload_format(&w, text, sizeof text);
    assert_string_equal(text, "systemd:jupyterhub.service");
    assert_int_equal(workload_from_cgroup("0::/user.slice/user-1001.slice/session-7.scope\n", &w), WL_USER_UNIT);
    static const char *const none[] = {"0::/\n",
                                       "0::/init.scope\n",
                                       "",
                                       "garbage without colons\n",
                                       "0::/kubepods/podnot-a-uid/xyz\n",
                                       "4:memory:/slurm/uid_1/job_12x/step_0\n"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        workload_from_cgroup(none[i], &w);
        assert_true(w.kind == WL_NONE || w.kind == WL_SYSTEM_UNIT);
    }
    static const char *const not_ours[] = {"",
                                           "docker-7f3c2a91b0de",
                                           "k8s-pod-5d2e9c",
                                           "k8s:",
                                           "k8s:UPPER/pod",
                                           "k8s:ns/pod/With_Underscore",
                                           "slurm:job x",
                                           "docker:xyz"};
    for (size_t i = 0; i < sizeof not_ours / sizeof not_ours[0]; i++)
        assert_int_equal(workload_parse(not_ours[i], &w), WL_NONE);
}

/* ---- fake /proc, /var/log/pods and /var/log/containers ---- */

static char root[256];

static void write_file(const char *path, const char *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
}

static void mkdirs(const char *fmt, ...)
{
    char path[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
    assert_int_equal(system(cmd), 0);
}

/* A process of a pod: its cgroup in /proc, its pod's log folder, its container's log link. */
static void add_pod_process(unsigned pid, const char *ns, const char *pod, const char *uid, const char *ctr,
                            const char *id, int systemd)
{
    char path[512], text[512];
    mkdirs("%s/proc/%u", root, pid);
    pod_path(text, sizeof text, systemd, 1, "burstable", uid, "cri-containerd", id);
    snprintf(path, sizeof path, "%s/proc/%u/cgroup", root, pid);
    write_file(path, text, strlen(text));
    mkdirs("%s/pods/%s_%s_%s/%s", root, ns, pod, uid, ctr);
    mkdirs("%s/containers", root);
    char link[512], target[512];
    snprintf(link, sizeof link, "%s/containers/%s_%s_%s-%s.log", root, pod, ns, ctr, id);
    snprintf(target, sizeof target, "%s/pods/%s_%s_%s/%s/0.log", root, ns, pod, uid, ctr);
    unlink(link);
    assert_int_equal(symlink(target, link), 0);
}

static void test_fake_trees(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/gw-workload-XXXXXX");
    assert_non_null(mkdtemp(root));
    workload_forget_pods();
    char pods[300], ctrs[300], proc[300];
    snprintf(pods, sizeof pods, "%s/pods", root);
    snprintf(ctrs, sizeof ctrs, "%s/containers", root);
    snprintf(proc, sizeof proc, "%s/proc", root);
    workload_roots roots = {proc, pods, ctrs};

    /* two pods, one with two containers (the name comes from /var/log/containers) */
    char uid1[40], uid2[40], id1[65], id2[65], id3[65];
    uuid(uid1), uuid(uid2), hex(id1, 64), hex(id2, 64), hex(id3, 64);
    add_pod_process(100, "ml-team", "bert-train-0", uid1, "trainer", id1, 1);
    add_pod_process(101, "ml-team", "bert-train-0", uid1, "sidecar", id2, 0);
    add_pod_process(102, "infer", "triton-7d9f8b6c5-x2x9z", uid2, "server", id3, 1);
    workload w;
    char text[160];
    assert_int_equal(workload_read(&roots, 100, &w), WL_POD);
    workload_format(&w, text, sizeof text);
    assert_string_equal(text, "k8s:ml-team/bert-train-0/trainer");
    assert_int_equal(workload_read(&roots, 101, &w), WL_POD);
    workload_format(&w, text, sizeof text);
    assert_string_equal(text, "k8s:ml-team/bert-train-0/sidecar");
    assert_int_equal(workload_read(&roots, 102, &w), WL_POD);
    workload_format(&w, text, sizeof text);
    assert_string_equal(text, "k8s:infer/triton-7d9f8b6c5-x2x9z/server");
    workload back;
    assert_int_equal(workload_parse(text, &back), WL_POD);
    assert_string_equal(back.namespace_, "infer");
    assert_string_equal(back.pod, "triton-7d9f8b6c5-x2x9z");
    assert_string_equal(back.container, "server");

    /* without /var/log/containers, a pod folder's one container folder names it */
    workload_forget_pods();
    workload_roots no_ctrs = {proc, pods, "/nonexistent"};
    assert_int_equal(workload_read(&no_ctrs, 102, &w), WL_POD);
    assert_string_equal(w.container, "server");
    assert_int_equal(workload_read(&no_ctrs, 100, &w), WL_POD); /* two folders: which is unknown */
    assert_string_equal(w.container, "");
    assert_string_equal(w.pod, "bert-train-0");

    /* a pod folder that is a link is listed (its name) but never entered; names out of their
     * character sets are ignored */
    char uid3[40], id4[65], path[512], target[512];
    uuid(uid3), hex(id4, 64);
    mkdirs("%s/elsewhere/evil", root);
    snprintf(path, sizeof path, "%s/pods/linked_pod-a_%s", root, uid3);
    snprintf(target, sizeof target, "%s/elsewhere", root);
    assert_int_equal(symlink(target, path), 0);
    mkdirs("%s/proc/103", root);
    char cg[512];
    pod_path(cg, sizeof cg, 1, 1, "", uid3, "crio", id4);
    snprintf(path, sizeof path, "%s/proc/103/cgroup", root);
    write_file(path, cg, strlen(cg));
    workload_forget_pods();
    assert_int_equal(workload_read(&no_ctrs, 103, &w), WL_POD);
    assert_string_equal(w.pod, "pod-a");
    assert_string_equal(w.container, ""); /* the link's target was not read */
    char uid4[40];
    uuid(uid4);
    mkdirs("%s/pods/Bad_Name_%s/x", root, uid4);
    mkdirs("%s/pods/ns_pod\033x_%s/x", root, uid4);
    mkdirs("%s/proc/104", root);
    pod_path(cg, sizeof cg, 0, 0, "", uid4, "x", id4);
    snprintf(path, sizeof path, "%s/proc/104/cgroup", root);
    write_file(path, cg, strlen(cg));
    workload_forget_pods();
    assert_int_equal(workload_read(&roots, 104, &w), WL_POD);
    assert_string_equal(w.namespace_, "");
    workload_format(&w, text, sizeof text);
    assert_true(strncmp(text, "k8s:pod", 7) == 0);

    /* a Slurm job: cgroup v1 layout and its environment under the fake /proc */
    mkdirs("%s/proc/200", root);
    snprintf(path, sizeof path, "%s/proc/200/cgroup", root);
    const char *slurm = "4:memory:/slurm/uid_1000/job_777/step_0/task_0\n";
    write_file(path, slurm, strlen(slurm));
    snprintf(path, sizeof path, "%s/proc/200/environ", root);
    static const char env[] = "SLURM_JOB_ID=777\0SLURM_JOB_NAME=llama-pretrain\0";
    write_file(path, env, sizeof env - 1);
    assert_int_equal(workload_read(&roots, 200, &w), WL_SLURM);
    workload_format(&w, text, sizeof text);
    assert_string_equal(text, "slurm:job 777 step 0 name llama-pretrain");
    assert_int_equal(workload_read(&roots, 999, &w), WL_NONE); /* not visible */

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
    workload_forget_pods();
}

/* ---- the labels the exporter gives ---- */

typedef struct seen {
    char lines[64][512];
    int n;
} seen;

static void on_family(void *ctx, const char *name, const char *help, const char *type)
{
    (void)ctx, (void)name, (void)help, (void)type;
}

static void on_sample(void *ctx, const char *name, const expo_pair *labels, int n, const char *text, double v)
{
    (void)labels, (void)n, (void)v;
    seen *s = ctx;
    if (s->n < 64 && (strcmp(name, "DCGM_FI_DEV_GPU_TEMP") == 0 || strcmp(name, "gpuwatch_gpu_job_info") == 0))
        snprintf(s->lines[s->n++], sizeof s->lines[0], "%s{%s}", name, text);
}

static int has_line(const seen *s, const char *want)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->lines[i], want) == 0)
            return 1;
    return 0;
}

static void test_labels(void **state)
{
    (void)state;
    agent_gpu_view g;
    memset(&g, 0, sizeof g);
    g.info.index = 0;
    g.has_sample = 1;
    sample_set(&g.sample, M_TEMP_GPU, 61);
    gpu_proc p[4];
    memset(p, 0, sizeof p);
    const char *containers[] = {"k8s:ml-team/bert-train-0/trainer", "k8s:ml-team/bert-train-0/sidecar",
                                "slurm:job 777 step 0 array 770_7 name llama",
                                "slurm:job 777 step 1 array 770_7 name llama"};
    double mem[] = {40000, 100, 10, 10};
    for (int i = 0; i < 4; i++) {
        p[i].pid = 100 + (unsigned)i;
        p[i].has_mem = 1;
        p[i].mem_mib = mem[i];
        snprintf(p[i].user, sizeof p[i].user, "%s", i < 2 ? "alice" : "bob");
        snprintf(p[i].container, sizeof p[i].container, "%s", containers[i]);
    }
    agent_snapshot snap;
    memset(&snap, 0, sizeof snap);
    snap.ngpus = 1;
    snap.gpus = &g;
    snap.procs = p;
    snap.nprocs = 4;
    expo_options o;
    expo_options_default(&o);
    o.hostname = "n1";
    seen s = {0};
    expo_sink sink = {.ctx = &s, .family = on_family, .sample = on_sample};
    expo_walk_gpus(&snap, &o, &sink);
    /* the pod of the process holding the most memory, as dcgm-exporter names it */
    assert_true(has_line(&s,
                         "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"\",pci_bus_id=\"\",device=\"nvidia0\",modelName=\"\","
                         "Hostname=\"n1\",DCGM_FI_DRIVER_VERSION=\"\",pod=\"bert-train-0\",namespace=\"ml-team\","
                         "container=\"trainer\"}"));
    /* one info series per job: two containers of the pod, and the Slurm job once (two steps) */
    assert_true(has_line(&s,
                         "gpuwatch_gpu_job_info{gpu=\"0\",uuid=\"\",user=\"alice\",namespace=\"ml-team\",pod=\"bert-"
                         "train-0\",container=\"trainer\"}"));
    assert_true(has_line(&s,
                         "gpuwatch_gpu_job_info{gpu=\"0\",uuid=\"\",user=\"alice\",namespace=\"ml-team\",pod=\"bert-"
                         "train-0\",container=\"sidecar\"}"));
    assert_true(has_line(&s, "gpuwatch_gpu_job_info{gpu=\"0\",uuid=\"\",user=\"bob\",job_name=\"llama\",slurm_job_id="
                             "\"777\",slurm_array_id=\"770_7\"}"));
    int jobs = 0;
    for (int i = 0; i < s.n; i++)
        jobs += strncmp(s.lines[i], "gpuwatch_gpu_job_info", 21) == 0;
    assert_int_equal(jobs, 3);
    /* no process in a pod: dcgm series without pod labels */
    snap.nprocs = 0;
    s.n = 0;
    expo_walk_gpus(&snap, &o, &sink);
    assert_true(has_line(&s,
                         "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"\",pci_bus_id=\"\",device=\"nvidia0\",modelName=\"\","
                         "Hostname=\"n1\",DCGM_FI_DRIVER_VERSION=\"\"}"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_container_runtimes), cmocka_unit_test(test_pods),
        cmocka_unit_test(test_pod_uid_shapes),     cmocka_unit_test(test_slurm),
        cmocka_unit_test(test_slurm_environment),  cmocka_unit_test(test_units_and_nothing),
        cmocka_unit_test(test_fake_trees),         cmocka_unit_test(test_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
