/* top_fleet.h - `top --hosts`: many agents on one screen. The list of agents (from --hosts and
 * --hosts-file), the fleet model (each host's latest GPUs, processes and findings, or why it cannot
 * be read), the fleet source (one thread and one connection per agent, so that a slow or dead agent
 * never holds up the others or the screen), the rows of the screen (grouped by host or by job,
 * sorted by a column), the findings ranked across hosts, and the screen itself. Everything but
 * fleet_run() works without a terminal. */
#ifndef GPUWATCH_TOP_FLEET_H
#define GPUWATCH_TOP_FLEET_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "agent_api.h"
#include "prom_api.h"
#include "errlist.h"
#include "top_ui.h"

/* ---- the agents to read (fleet_hosts.c) ---- */

#define FLEET_MAX_HOSTS 256          /* agents on one screen */
#define FLEET_ADDR_LEN 128           /* a HOST:PORT, NUL included */
#define FLEET_FILE_MAX (64u * 1024u) /* bytes of a hosts file */
#define FLEET_LINE_MAX 256           /* bytes of one of its lines */

typedef struct fleet_hosts {
    int n;
    char addr[FLEET_MAX_HOSTS][FLEET_ADDR_LEN];
} fleet_hosts;

/* Adds one HOST:PORT; where says where it came from in errors ("FILE:LINE:COL", "item 3").
 * 0, or -1 with the problem added to errs (a bad address, one listed twice, too many). */
int fleet_hosts_add(fleet_hosts *h, const char *addr, const char *where, errlist *errs);
/* The comma separated list of --hosts. 0, or -1 with each problem in errs. */
int fleet_hosts_add_list(fleet_hosts *h, const char *list, errlist *errs);
/* A hosts file's text (len bytes, named file in errors): one HOST:PORT a line, blank lines and
 * comments (from '#' to the end of the line) left out; every problem at once as FILE:LINE:COL: ....
 * 0, or -1. */
int fleet_hosts_parse(fleet_hosts *h, const char *file, const char *text, size_t len, errlist *errs);
/* Reads path (a regular file of at most FLEET_FILE_MAX bytes) and parses it. 0, or -1. */
int fleet_hosts_read(fleet_hosts *h, const char *path, errlist *errs);
/* --hosts' check for the option parser: a valid list is stored as text. */
int fleet_hosts_check(const gw_opt *opt, const char *value, void *out, char *why, size_t n);

/* ---- the model (fleet_model.c) ---- */

/* HOST_SILENT: an engine's host whose series are stale or gone (top --prometheus). */
typedef enum { HOST_WAITING, HOST_UP, HOST_DOWN, HOST_SILENT } host_reach;

#define FLEET_JOB_LEN 96

/* Who a GPU works for, as an engine's labels say (top --prometheus). */
typedef struct fleet_who {
    char job[FLEET_JOB_LEN];
    char user[32];
} fleet_who;

typedef struct fleet_host {
    char addr[FLEET_ADDR_LEN];
    char name[128]; /* the agent's hostname; "" until it says */
    host_reach reach;
    char why[256];     /* HOST_DOWN: the reason ("connection refused", "no answer in 2 s") */
    uint64_t since_us; /* wall time it went down (HOST_DOWN), or last reported (HOST_SILENT) */
    uint64_t read_us;  /* wall time of its last good read (0: none) */
    api_gpus gpus;     /* its GPUs as last read (kept while it is down: shown as such) */
    api_procs procs;   /* their processes */
    find_state fstate; /* FIND_WAITING until the first read of /api/v1/findings */
    diag_report find;  /* its findings, worst first */
    fleet_who *who;    /* an engine's host: who each of gpus works for; NULL with --hosts */
} fleet_host;

typedef struct fleet_model {
    pthread_mutex_t lock;
    int nhosts;
    fleet_host *hosts;
    uint64_t seq; /* bumped on every change */
    /* top --prometheus: the hosts are those the engine's series name, added as they appear */
    char engine[512];         /* the engine's URL; "" with --hosts */
    char engine_why[256];     /* why the engine cannot be read; "" while it answers */
    uint64_t engine_since_us; /* wall time it stopped answering */
    uint64_t engine_read_us;  /* wall time of its last answer (0: none) */
    char engine_note[256];    /* what its last answer lacked or left out; "" when nothing */
} fleet_model;

/* One host per address, all waiting. 0, or -1 when out of memory. */
int fleet_model_init(fleet_model *m, const fleet_hosts *h);
void fleet_model_free(fleet_model *m);
/* No host yet: they come as the engine at url names them (room for FLEET_MAX_HOSTS). 0, or -1. */
int fleet_model_init_engine(fleet_model *m, const char *url);
/* The index of the engine's host addr, added (waiting) when new. -1 when FLEET_MAX_HOSTS are
 * known. Under the lock. */
int fleet_model_host(fleet_model *m, const char *addr);
/* A good read of an engine's host i: takes g's GPUs and who (one per GPU; g left empty, who set to
 * NULL). Under the lock. */
void fleet_host_read_engine(fleet_model *m, int i, api_gpus *g, fleet_who **who, uint64_t wall_us);
/* An engine's host i is in the engine no more (its series stale or gone), why; since: its last
 * sample's wall time, or 0 for its last read. Under the lock. */
void fleet_host_silent(fleet_model *m, int i, const char *why, uint64_t since_us);
/* The engine answered (why NULL; note: what the answer lacked, or NULL), or not (why). Under the lock. */
void fleet_engine_state(fleet_model *m, const char *why, const char *note, uint64_t wall_us);
/* A good read of host i: takes g's and p's storage (they are left empty). Under the lock. */
void fleet_host_read(fleet_model *m, int i, api_gpus *g, api_procs *p, uint64_t wall_us);
/* Host i cannot be read, why. Under the lock. */
void fleet_host_down(fleet_model *m, int i, const char *why, uint64_t wall_us);
/* Host i's findings (taken from r, which gets the old storage, emptied), or their state. */
void fleet_host_findings(fleet_model *m, int i, diag_report *r, find_state st);
/* The reason of a client error in a few words: "connection refused", "no answer in 2 s", "HTTP
 * 401 ...", else err without its "agent URL: " head. */
void fleet_reason(const char *err, char *out, size_t n);

/* The columns of a GPU line. */
typedef enum { FC_HOST, FC_GPU, FC_UTIL, FC_MEM, FC_POWER, FC_TEMP, FC_SMCLK, FC_THROTTLE, FC_JOB, FC_COUNT } fleet_col;
extern const char *const fleet_col_names[FC_COUNT];

typedef enum { GROUP_HOST, GROUP_JOB } fleet_group;

/* A line of the list: a group's header (gpu -1: a host, or a job when grouped by job) or a GPU. */
typedef struct fleet_row {
    int host; /* its host (a job's header: -1) */
    int gpu;  /* position in the host's gpus, or -1 for a header */
    int job;  /* GROUP_JOB: the job's number in the jobs list */
} fleet_row;

/* The lines of the screen: every host (GROUP_HOST, in the order given) or every job (GROUP_JOB:
 * GPUs grouped by the job of their processes, by name, GPUs without a job last) with its GPUs
 * under it, sorted by col (missing values last whatever the order). jobs gets the jobs' names
 * (FLEET_JOB_LEN each; NULL with GROUP_HOST). Returns the rows written (at most max), or -1 when
 * out of memory. The model locked by the caller. */
int fleet_rows(const fleet_model *m, fleet_group by, fleet_col col, int desc, fleet_row *out, int max,
               char (*jobs)[FLEET_JOB_LEN], int max_jobs, int *njobs);
/* Lines fleet_rows may write: a header per host or job and a line per GPU (and the size of a jobs
 * list that holds every job). */
int fleet_rows_max(const fleet_model *m);
struct workload;
/* The job a workload (workload.h) is, as the fleet groups GPUs: "slurm job 4242 llama", "k8s
 * ml-team/bert" (a pod without its replica's ordinal), else text. */
void fleet_workload_job(const struct workload *w, const char *text, char *out, size_t n);
/* Who GPU gpu of host h works for: the job of its process holding the most memory ("slurm job 4242
 * llama", "k8s ml-team/bert-0", a container) in job, and that process's user in user; "" when none. */
void fleet_gpu_job(const fleet_host *h, int gpu, char *job, size_t jn, char *user, size_t un);

/* One finding of the fleet: host and index in its report. */
typedef struct fleet_finding {
    int host, i;
} fleet_finding;
/* Every host's findings, worst first (severity, then score), at most max. Returns the count. */
int fleet_findings(const fleet_model *m, fleet_finding *out, int max);

/* ---- an engine's series as hosts and GPUs (fleet_prom.c) ---- */

/* The metrics a fleet line shows, in the catalog's units; an agent sends these alone, and an
 * engine is asked for each by its native name (or dcgm-exporter's). */
extern const metric_id fleet_metrics[];
extern const int fleet_nmetrics;

typedef struct prom_host {
    char addr[FLEET_ADDR_LEN]; /* its instance label (else its Hostname) */
    char name[128];            /* its Hostname label, "" when none */
    api_gpus gpus;             /* its GPUs by index */
    fleet_who *who;            /* one per GPU */
    int cap;                   /* room in gpus.gpus and who */
} prom_host;

typedef struct prom_fleet {
    int n;
    prom_host *h; /* FLEET_MAX_HOSTS of room */
    /* left out of an answer, and counted */
    int no_host;                       /* a series without an instance or Hostname label */
    int no_gpu;                        /* a series without a gpu (0 to 63) or UUID label */
    int duplicate;                     /* a second value of one metric of one host's GPU (the first kept) */
    int bad_value;                     /* negative, or above API_MAX_NUMBER */
    int hosts_left_out, gpus_left_out; /* past FLEET_MAX_HOSTS hosts, API_MAX_GPUS GPUs a host */
} prom_fleet;

/* The host a series is of: its instance label, else its Hostname, cut to n bytes. 0, or -1: none. */
int prom_host_key(const prom_series *s, char *key, size_t n);
/* An empty fleet. 0, or -1 when out of memory. */
int prom_fleet_init(prom_fleet *f);
void prom_fleet_free(prom_fleet *f);
/* The series of r (an instant vector of metric id, its values times scale give the catalog's unit)
 * into their hosts and GPUs; dcgm-exporter's pod, namespace, container and hpc_job labels say who
 * a GPU works for. 0, or -1 when out of memory. */
int prom_fleet_add(prom_fleet *f, metric_id id, double scale, const prom_result *r);
/* gpuwatch_gpu_job_info's series: who each GPU works for (a GPU's first job kept). 0, or -1. */
int prom_fleet_add_jobs(prom_fleet *f, const prom_result *r);
/* Hosts by address and each host's GPUs by index; a host none of whose series named a GPU dropped. */
void prom_fleet_sort(prom_fleet *f);

/* ---- reading an engine (fleet_engine.c) ---- */

#define FLEET_MATCH_MAX 512 /* bytes of --match's selector */

/* --match: a selector in braces ({job="gpu"}, {cluster=~"a|b"}), printable, at most
 * FLEET_MATCH_MAX - 1 bytes. A custom row's check (args.h). */
int fleet_match_check(const gw_opt *opt, const char *value, void *out, char *why, size_t n);

typedef struct fleet_engine fleet_engine;
/* The engine at url (TLS and basic auth from o), each query bounded by timeout_s. NULL with err. */
fleet_engine *fleet_engine_open(const char *url, const char *match, const top_remote_opts *o, double timeout_s,
                                char *err, size_t n);
/* One read of every metric into m (fleet_model_init_engine's), or the engine's state. */
void fleet_engine_read(fleet_engine *e, fleet_model *m);
void fleet_engine_close(fleet_engine *e);

/* ---- the source (fleet_source.c) ---- */

typedef struct fleet_source fleet_source;
/* Opens a client per host (TLS and basic auth from o, host ignored) and starts its thread: each
 * reads /api/v1/gpus and /api/v1/processes every interval, /api/v1/findings every 10 s, each request
 * bounded by timeout_s. NULL with err filled. */
fleet_source *fleet_source_start(fleet_model *m, const top_remote_opts *o, double interval_s, double timeout_s,
                                 char *err, size_t n);
void fleet_source_set_interval(fleet_source *s, double interval_s);
void fleet_source_pause(fleet_source *s, int paused);
/* Readable after any host's read. */
int fleet_source_fd(fleet_source *s);
void fleet_source_drain(fleet_source *s);
/* One thread that asks the engine at url (o: its TLS and basic auth) for every metric of the
 * fleet's lines each interval, narrowed by match ("{job=\"gpu\"}", or NULL), each query bounded by
 * timeout_s; the hosts its series name go into m (fleet_model_init_engine). NULL with err filled. */
fleet_source *fleet_source_start_engine(fleet_model *m, const char *url, const char *match, const top_remote_opts *o,
                                        double interval_s, double timeout_s, char *err, size_t n);
/* How many readers have had their first read (good or not), and how many there are. */
int fleet_source_rounds_done(fleet_source *s);
int fleet_source_readers(fleet_source *s);
void fleet_source_stop(fleet_source *s);

/* ---- the screen (fleet_view.c) ---- */

typedef struct fleet_ui {
    top_opts *o;
    fleet_group group;
    fleet_col sort_col;
    int sort_desc;
    int sel, top; /* selected row and first row shown */
    int sel_host; /* the selected row's host (followed across re-sorts), -1 none */
    int sel_gpu;  /* and GPU (-1: the header) */
    int help;
    int paused;
    int findings_expanded; /* `f`: the findings take half the screen */
    int open_host;         /* Enter: the host to open in the single-host view (-1: none) */
    int quit;
    char msg[200];
    int msg_level;
    uint64_t msg_until_us;
    /* the last screen's rows, for keys */
    fleet_row *rows;
    int nrows, rows_cap, list_h;
} fleet_ui;

void fleet_ui_init(fleet_ui *u, top_opts *o);
void fleet_ui_free(fleet_ui *u);
/* A line in the footer for 5 s. */
void fleet_ui_message(fleet_ui *u, int level, const char *text);
/* Applies a key; returns 1 when the screen should be redrawn. */
int fleet_handle_key(fleet_ui *u, int ch);
/* Which columns fit in cols, least needed dropped first (throttle, SM clock, power, temperature,
 * memory, host), the job keeping at least 12 columns. */
void fleet_visible_cols(int cols, int visible[FC_COUNT]);
/* The whole screen at a time (the model locked inside). */
void fleet_draw(canvas *cv, fleet_model *m, fleet_ui *u, uint64_t mono_us, uint64_t wall_us);
/* Plain text of the fleet (--once, or not on a terminal). */
void fleet_snapshot(FILE *f, fleet_model *m, const top_opts *o);

/* ---- the interactive side (fleet_run.c) ---- */

/* `top --hosts`: the source, then the screen or the snapshot; the exit status. */
int fleet_main(top_opts *o, const fleet_hosts *h);
/* `top --prometheus URL [--match SELECTOR]`: the same screen, its hosts read from the engine. */
int fleet_main_engine(top_opts *o);

#endif
