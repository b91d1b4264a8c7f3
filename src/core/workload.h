/* workload.h - who a process works for: its container, Kubernetes pod, Slurm job or systemd unit,
 * told by its cgroup path, the kubelet's log folders and, for a Slurm job, its environment; and the
 * one text form of that answer (gpu_proc.container) that the exporter, the history and remote write
 * read back, so that what the history keeps gives the same labels as what was sampled live.
 *
 * Everything read here is untrusted: cgroup paths and environments are the processes' doing, log
 * folder names the pods' creators'. Every field is bounded and validated to the character set its
 * source allows (Kubernetes names, Slurm ids, hex ids); text that fails is left out, never copied. */
#ifndef GPUWATCH_WORKLOAD_H
#define GPUWATCH_WORKLOAD_H

#include <stddef.h>

/* Ranks, best last: a more specific owner wins over the unit that contains it. */
typedef enum { WL_NONE, WL_SYSTEM_UNIT, WL_USER_UNIT, WL_SLURM, WL_CONTAINER, WL_POD } workload_kind;

typedef struct workload {
    workload_kind kind;
    char runtime[16];      /* WL_CONTAINER: docker, containerd, crio, podman, or container (bare id) */
    char container_id[65]; /* the container's hex id as found (12 to 64 digits), pod or bare container */
    char pod_uid[40];      /* WL_POD: with dashes */
    char namespace_[64];   /* WL_POD, resolved from the kubelet's folders */
    char pod[254];
    char container[64];  /* the container's name in its pod */
    char slurm_job[24];  /* WL_SLURM: the job id (digits) */
    char slurm_step[24]; /* "0", "batch", "extern", "interactive" */
    char slurm_array_job[24], slurm_array_task[24];
    char job_name[64]; /* Slurm's job name (cleaned text) */
    char unit[80];     /* WL_SYSTEM_UNIT / WL_USER_UNIT: the unit */
} workload;

/* The owner told by one /proc/<pid>/cgroup text (every hierarchy's line; the most specific owner
 * wins): cgroup v1 and v2; docker, containerd, CRI-O and podman; the kubelet's cgroupfs and systemd
 * drivers; Slurm's v1 (/slurm/uid_N/job_M/step_S) and v2 (slurmstepd.scope/job_M/step_S) layouts;
 * systemd system and user units. Fills w (zeroed first); returns w->kind. */
workload_kind workload_from_cgroup(const char *cgroup_text, workload *w);

/* A Slurm job's details from its environment (/proc/<pid>/environ: NUL-separated NAME=value, len
 * bytes): the array job and task, the step when the cgroup did not say, the job's name. Believed
 * only when its SLURM_JOB_ID is the job the cgroup names (a process sets its own environment, not
 * its cgroup). Returns 1 when applied, 0 when not. */
int workload_slurm_env(workload *w, const char *environ, size_t len);

/* A pod's namespace and name from the kubelet's log folders, pods_dir/<namespace>_<pod>_<uid>/
 * (/var/log/pods), and the container's name from containers_dir/<pod>_<namespace>_<name>-<id>.log
 * (/var/log/containers; only names are read, links are never followed) or, failing that, the pod
 * folder's one container folder. The folders are listed at most once every 10 s, when a pod is not
 * known yet; thread-safe. Returns 1 when the pod was found, 0 when not. */
int workload_resolve_pod(workload *w, const char *pods_dir, const char *containers_dir);
/* Forgets what workload_resolve_pod listed (tests). */
void workload_forget_pods(void);

/* Where workload_read looks; a NULL member means the system's folder. */
typedef struct workload_roots {
    const char *proc;       /* /proc */
    const char *pods;       /* /var/log/pods */
    const char *containers; /* /var/log/containers */
} workload_roots;

/* Who pid works for, read from <proc>/<pid>/cgroup, then for a pod the kubelet's folders and for a
 * Slurm job <proc>/<pid>/environ (at most 64 KiB of it, when this user may read it). roots may be
 * NULL. Fills w; returns w->kind (WL_NONE as well when pid is not visible). */
workload_kind workload_read(const workload_roots *roots, unsigned pid, workload *w);

/* The text form, as gpu_proc.container holds it ("" for WL_NONE):
 *   k8s:<namespace>/<pod>/<container>   a resolved pod (k8s:<namespace>/<pod> without a name)
 *   k8s:pod<uid>/<12 hex>               an unresolved one (k8s:pod<uid> without a container)
 *   docker:<12 hex>  containerd:...  crio:...  podman:...  container:...
 *   slurm:job <id>[ step <s>][ array <job>_<task>][ name <job name>]
 *   user:<unit>  systemd:<unit>
 * Truncated to n-1 bytes, always terminated. */
void workload_format(const workload *w, char *out, size_t n);
/* The inverse, for what reads a process's container text back (exporter, history, remote write):
 * fills what the text says (zeroed first); other text gives WL_NONE. Returns w->kind. */
workload_kind workload_parse(const char *text, workload *w);

#endif
