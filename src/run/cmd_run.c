/* cmd_run.c - `gpuwatch run`: place a job on free GPUs, reserve them, bind it to their NUMA node, run it
 * with its output relayed, watch it, and report what it did (docs/run.md). */
#include <errno.h>
#include <pthread.h>
#include <math.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "agent_client.h"
#include "agent_state.h"
#include "cli_common.h"
#include "child.h"
#include "files.h"
#include "history.h"
#include "host_topo.h"
#include "jobs.h"
#include "placement.h"
#include "reserve.h"
#include "run.h"
#include "run_opts.h"
#include "session.h"
#include "summary.h"
#include "util.h"
#include "watch.h"

#define CHARTJS_DEFAULT "/usr/share/javascript/chart.js/chart.min.js"
#define UTIL_READS 5
#define UTIL_GAP_US 200000
#define AGENT_UTIL_WINDOW_S 10

typedef struct run_ctx {
    run_opts o;
    sampler s;
    int sampler_open;
    agent_client *agent;
    char lockdir[4096];
    unsigned char only[RUN_MAX_GPUS], exclude[RUN_MAX_GPUS];
    gpu_topology topo[RUN_MAX_GPUS];
    unsigned char cost[RUN_MAX_GPUS][RUN_MAX_GPUS];
    int ngpus;
    place_result placed;
    reserve_hold holds[RUN_MAX_GPUS];
    reserve_owner me;
    run_meta meta;
    char db[4096];
    pid_t job_group; /* the job's process group (0 before it starts) */
    step_parser *sp; /* the job's step lines */
} run_ctx;

static void job_id(char *out, size_t n)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char t[32];
    strftime(t, sizeof t, "%Y%m%d-%H%M%S", &tm);
    unsigned r = (unsigned)(gw_now_us() ^ ((uint64_t)getpid() << 16)) & 0xffff;
    snprintf(out, n, "%s-%04x", t, r);
}

static void join_argv(char *const *argv, char *out, size_t n)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; argv[i] && len + 1 < n; i++)
        len += (size_t)snprintf(out + len, n - len, "%s%s", i ? " " : "", argv[i]);
}

/* --agent, $GPUWATCH_AGENT, the running agent's address (agent_state.h), or an agent on
 * 127.0.0.1:9400 that sees these same GPUs. */
static void find_agent(run_ctx *c)
{
    const char *host = c->o.agent ? c->o.agent : getenv("GPUWATCH_AGENT");
    int explicit = host && *host;
    if (explicit && strcmp(host, "none") == 0)
        return;
    agent_state st;
    if (!explicit)
        host = agent_state_find(&st) && st.listen[0] ? st.listen : "127.0.0.1:9400";
    char err[512];
    http_client_opts ho = {.host = host, .user_agent = "gpuwatch-run", .timeout_ms = explicit ? 3000 : 400};
    agent_client *a = agent_client_open(&ho, err, sizeof err);
    api_gpus g = {0};
    if (!a || agent_client_gpus(a, &g, err, sizeof err) != 0) {
        if (explicit)
            fprintf(stderr, "gpuwatch run: %s; sampling here instead\n", err);
        agent_client_close(a);
        return;
    }
    /* the agent must see our GPUs (the same UUIDs at the same indexes) */
    int same = g.n == c->ngpus;
    for (int i = 0; same && i < g.n; i++)
        same = g.gpus[i].info.index == i && c->s.gpus[i].have_info &&
               strcmp(g.gpus[i].info.str[M_UUID], c->s.gpus[i].info.str[M_UUID]) == 0;
    api_gpus_free(&g);
    if (!same) {
        if (explicit)
            fprintf(stderr, "gpuwatch run: agent %s does not see this machine's GPUs; sampling here instead\n", host);
        agent_client_close(a);
        return;
    }
    c->agent = a;
}

/* Mean utilization.gpu of each GPU over the agent's last AGENT_UTIL_WINDOW_S (NAN when none). 0, or -1. */
static int agent_util_means(agent_client *a, double *util, int max)
{
    char err[256];
    api_samples smp;
    for (int i = 0; i < max; i++)
        util[i] = NAN;
    if (agent_client_samples(a, M_UTIL_GPU, AGENT_UTIL_WINDOW_S, API_MAX_POINTS, &smp, err, sizeof err) != 0)
        return -1;
    for (int k = 0; k < smp.n; k++) {
        const api_series *s = &smp.s[k];
        double sum = 0;
        int cnt = 0;
        for (int i = 0; i < s->n; i++)
            if (!isnan(s->p[i].v)) {
                sum += s->p[i].v;
                cnt++;
            }
        if (cnt && s->gpu < max)
            util[s->gpu] = sum / cnt;
    }
    api_samples_free(&smp);
    return 0;
}

/* Free memory and mean utilization over a short window, of every GPU. */
static void measure(run_ctx *c, place_gpu *pg)
{
    metric_set want;
    memset(&want, 0, sizeof want);
    mset_add(&want, M_UTIL_GPU);
    mset_add(&want, M_MEM_FREE);
    double usum[RUN_MAX_GPUS] = {0};
    int un[RUN_MAX_GPUS] = {0};
    gpu_sample *smp = malloc(sizeof *smp);
    for (int i = 0; i < c->ngpus; i++) {
        memset(&pg[i], 0, sizeof pg[i]);
        pg[i].free_mib = pg[i].util = NAN;
    }
    if (!smp)
        return;
    double agent_util[RUN_MAX_GPUS];
    int use_agent = c->agent && agent_util_means(c->agent, agent_util, RUN_MAX_GPUS) == 0;
    for (int r = 0; r < (use_agent ? 1 : UTIL_READS); r++) {
        if (r)
            gw_sleep_us(UTIL_GAP_US);
        for (int i = 0; i < c->ngpus; i++) {
            gpu_status st = sampler_read(&c->s, i, &want, smp);
            pg[i].lost = st == GPU_LOST;
            if (st != GPU_OK)
                continue;
            if (sample_has(smp, M_MEM_FREE))
                pg[i].free_mib = smp->v[M_MEM_FREE];
            if (sample_has(smp, M_UTIL_GPU)) {
                usum[i] += smp->v[M_UTIL_GPU];
                un[i]++;
            }
        }
    }
    for (int i = 0; i < c->ngpus; i++)
        pg[i].util = use_agent && !isnan(agent_util[i]) ? agent_util[i] : un[i] ? usum[i] / un[i] : NAN;
    free(smp);
}

/* The key a GPU's reservation is locked by: its UUID, else its PCI bus id (both stable); "" when
 * it has neither (it cannot be reserved). */
static const char *lock_key(const run_ctx *c, int i)
{
    const gpu_info *in = &c->s.gpus[i].info;
    if (!c->s.gpus[i].have_info)
        return "";
    return in->str[M_UUID][0] ? in->str[M_UUID] : in->str[M_PCI_BUS_ID];
}

/* One try at placing the job, waiting at most lock_wait_s for the placement lock (< 0: for ever):
 * 1 placed and reserved, 0 not enough GPUs, -2 the placement lock stayed held, -1 error (printed). */
static int try_place(run_ctx *c, place_gpu *pg, const place_request *rq, double lock_wait_s)
{
    char err[512];
    int pl = reserve_placement_lock(c->lockdir, lock_wait_s, err, sizeof err);
    if (pl < 0) {
        fprintf(stderr, "gpuwatch run: %s\n", err);
        return errno == EWOULDBLOCK ? -2 : -1;
    }
    for (int i = 0; i < c->ngpus; i++) {
        reserve_owner o;
        const char *key = lock_key(c, i);
        reserve_state st = key[0] ? reserve_check(c->lockdir, key, &o) : RESERVE_REFUSED;
        pg[i].reserved = st == RESERVE_HELD || st == RESERVE_REFUSED;
        if (st == RESERVE_HELD)
            reserve_owner_text(&o, pg[i].holder, sizeof pg[i].holder);
        else if (st == RESERVE_REFUSED && key[0])
            snprintf(pg[i].holder, sizeof pg[i].holder, "an unusable lock file (%.120s)", o.command);
        else if (st == RESERVE_REFUSED)
            snprintf(pg[i].holder, sizeof pg[i].holder, "nothing: it has no UUID or PCI bus id to lock it by");
        /* CUDA_VISIBLE_DEVICES names GPUs by UUID: an index would mean another GPU wherever the job's
         * CUDA sees fewer GPUs than NVML (a container, our own CUDA_VISIBLE_DEVICES) */
        if (!c->s.gpus[i].have_info || !c->s.gpus[i].info.str[M_UUID][0])
            snprintf(pg[i].unusable, sizeof pg[i].unusable,
                     "its UUID cannot be read: CUDA_VISIBLE_DEVICES could not name it");
    }
    int rc = place_choose(pg, c->ngpus, rq, (const unsigned char(*)[RUN_MAX_GPUS])c->cost, &c->placed) ? 1 : 0;
    for (int k = 0; rc == 1 && k < c->placed.n; k++) {
        int g = c->placed.gpus[k];
        c->me.gpu = g;
        if (reserve_take(c->lockdir, lock_key(c, g), &c->me, &c->holds[k], err, sizeof err) != 0) {
            fprintf(stderr, "gpuwatch run: GPU %d: %s\n", g, err);
            for (int j = 0; j < k; j++)
                reserve_release(&c->holds[j], 0);
            c->placed.n = 0;
            rc = -1;
        }
    }
    close(pl);
    return rc;
}

static void why_text(const run_ctx *c, char *out, size_t n)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < c->ngpus && len + 1 < n; i++)
        len +=
            (size_t)snprintf(out + len, n - len, "\n  GPU %d: %s", i, c->placed.why[i][0] ? c->placed.why[i] : "free");
}

/* Places and reserves the job's GPUs, waiting with --wait. 0, or an exit status (message printed). */
static int place(run_ctx *c)
{
    place_request rq = {.n = c->o.ngpus, .min_free_mib = c->o.min_free_mib, .max_util = c->o.max_util};
    rq.has_only = c->o.only != NULL;
    memcpy(rq.only, c->only, sizeof rq.only);
    memcpy(rq.exclude, c->exclude, sizeof rq.exclude);
    place_gpu pg[RUN_MAX_GPUS];
    uint64_t t0 = gw_mono_us();
    int tty = isatty(STDERR_FILENO), waited = 0;
    uint64_t last_line = 0;
    for (;;) {
        measure(c, pg);
        /* the placement lock is held for milliseconds by a run; without --wait, 10 s is plenty */
        double elapsed = (double)(gw_mono_us() - t0) / 1e6;
        double lock_wait = !c->o.wait ? 10 : c->o.wait_s > 0 ? fmax(c->o.wait_s - elapsed, 0) : -1;
        int rc = try_place(c, pg, &rq, lock_wait);
        if (rc == -2)
            return RUN_EXIT_NO_GPUS;
        if (rc < 0)
            return 1;
        if (rc == 1) {
            if (waited && tty)
                fputc('\n', stderr);
            return 0;
        }
        double waited_s = (double)(gw_mono_us() - t0) / 1e6;
        char why[4096];
        why_text(c, why, sizeof why);
        if (!c->o.wait || (c->o.wait_s > 0 && waited_s >= c->o.wait_s)) {
            if (waited && tty)
                fputc('\n', stderr);
            char d[32];
            summary_duration(waited_s, d, sizeof d);
            if (c->o.wait)
                fprintf(stderr, "gpuwatch run: gave up after waiting %s: %d GPU%s wanted, %d eligible:%s\n", d,
                        c->o.ngpus, c->o.ngpus == 1 ? "" : "s", c->placed.neligible, why);
            else
                fprintf(stderr, "gpuwatch run: %d GPU%s wanted, %d eligible (--wait waits for them):%s\n", c->o.ngpus,
                        c->o.ngpus == 1 ? "" : "s", c->placed.neligible, why);
            return RUN_EXIT_NO_GPUS;
        }
        waited = 1;
        uint64_t now = gw_mono_us();
        if (tty) {
            fprintf(stderr, "\rgpuwatch run: waiting for %d GPU%s: %d eligible, %.0f s so far%s   ", c->o.ngpus,
                    c->o.ngpus == 1 ? "" : "s", c->placed.neligible, waited_s,
                    c->o.wait_s > 0 ? " (Ctrl-C to give up)" : "");
        } else if (!last_line || now - last_line >= 30000000) {
            fprintf(stderr, "gpuwatch run: waiting for %d GPU%s: %d eligible, %.0f s so far\n", c->o.ngpus,
                    c->o.ngpus == 1 ? "" : "s", c->placed.neligible, waited_s);
            last_line = now;
        }
        double left = c->o.wait_s > 0 ? c->o.wait_s - waited_s : 2;
        gw_sleep_us((uint64_t)(fmin(2.0, fmax(left, 0.05)) * 1e6));
    }
}

/* The job's environment. CUDA_VISIBLE_DEVICES names the GPUs by UUID (every chosen GPU has one: one
 * without is not eligible), sized by their count. 0, or -1 when memory is short. */
static int set_job_env(run_ctx *c)
{
    gw_buf uuids;
    buf_init(&uuids);
    for (int k = 0; k < c->placed.n; k++)
        buf_printf(&uuids, "%s%s", k ? "," : "", c->s.gpus[c->placed.gpus[k]].info.str[M_UUID]);
    int rc = uuids.oom || !uuids.data || setenv("CUDA_VISIBLE_DEVICES", uuids.data, 1) != 0 ? -1 : 0;
    buf_release(&uuids);
    setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
    setenv("GPUWATCH_JOB_ID", c->meta.id, 1);
    /* with pipes, Python would hold its output in blocks and the step times would arrive late */
    if (!child_wants_pty())
        setenv("PYTHONUNBUFFERED", "1", 0);
    return rc;
}

static void list_one(void *ctx, const char *uuid, reserve_state st, const reserve_owner *o)
{
    (void)ctx;
    char who[512];
    reserve_owner_text(o, who, sizeof who);
    char since[40] = "";
    if (o->since_s) {
        time_t t = (time_t)o->since_s;
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(since, sizeof since, "%Y-%m-%d %H:%M:%S", &tm);
    }
    if (st == RESERVE_HELD)
        printf("GPU %-3d %-40s held by %s since %s: %s\n", o->gpu, uuid, who, since, o->command);
    else if (st == RESERVE_STALE)
        printf("GPU %-3d %-40s free (stale: %s died without releasing it)\n", o->gpu, uuid, who);
    else if (st == RESERVE_REFUSED)
        printf("GPU ?   %-40s cannot be reserved: %s\n", uuid, o->command);
}

static int list_reservations(void)
{
    char dir[4096], err[512];
    if (reserve_dir(dir, sizeof dir, err, sizeof err) != 0) {
        fprintf(stderr, "gpuwatch run: %s\n", err);
        return 1;
    }
    int n = reserve_list(dir, list_one, NULL);
    if (n < 0) {
        fprintf(stderr, "gpuwatch run: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    if (n == 0)
        printf("no GPU reserved (%s)\n", dir);
    return 0;
}

static int resolve_lists(run_ctx *c)
{
    unsigned char sel[RUN_MAX_GPUS * 4];
    if (c->o.only) {
        if (session_select(&c->s, "run --only", c->o.only, sel) != 0)
            return GW_EXIT_USAGE;
        memcpy(c->only, sel, (size_t)c->ngpus);
    }
    if (c->o.exclude) {
        if (session_select(&c->s, "run --exclude", c->o.exclude, sel) != 0)
            return GW_EXIT_USAGE;
        memcpy(c->exclude, sel, (size_t)c->ngpus);
    }
    return 0;
}

static void read_topology(run_ctx *c)
{
    for (int i = 0; i < c->ngpus; i++)
        if (sampler_read_topology(&c->s, i, &c->topo[i]) != 0) {
            memset(&c->topo[i], 0, sizeof c->topo[i]);
            c->topo[i].numa_node = -1;
        }
    for (int i = 0; i < c->ngpus; i++)
        for (int j = 0; j < c->ngpus; j++)
            c->cost[i][j] = (unsigned char)(i == j ? 0 : place_pair_cost(&c->topo[i], j));
}

static void fill_meta(run_ctx *c)
{
    run_meta *m = &c->meta;
    job_id(m->id, sizeof m->id);
    gw_strlcpy(m->name, c->o.name ? c->o.name : "", sizeof m->name);
    join_argv(c->o.argv, m->command, sizeof m->command);
    struct passwd *pw = getpwuid(getuid());
    gw_strlcpy(m->user, pw ? pw->pw_name : "?", sizeof m->user);
    if (gethostname(m->host, sizeof m->host) != 0)
        gw_strlcpy(m->host, "?", sizeof m->host);
    if (!getcwd(m->cwd, sizeof m->cwd))
        m->cwd[0] = 0;
    m->price_per_kwh = c->o.price;
    m->carbon_g_per_kwh = c->o.carbon;
    m->interval_s = c->o.interval_s;
    c->me.pid = (long)getpid();
    gw_strlcpy(c->me.user, m->user, sizeof c->me.user);
    gw_strlcpy(c->me.job, m->id, sizeof c->me.job);
    gw_strlcpy(c->me.name, m->name, sizeof c->me.name);
    c->me.since_s = (int64_t)time(NULL);
    gw_strlcpy(c->me.command, m->command, sizeof c->me.command);
}

static void job_row(const run_ctx *c, const run_summary *s, history_job *j)
{
    memset(j, 0, sizeof *j);
    gw_strlcpy(j->id, c->meta.id, sizeof j->id);
    gw_strlcpy(j->name, c->meta.name, sizeof j->name);
    gw_strlcpy(j->command, c->meta.command, sizeof j->command);
    gw_strlcpy(j->user, c->meta.user, sizeof j->user);
    gw_strlcpy(j->host, c->meta.host, sizeof j->host);
    j->t_start_us = c->meta.t_start_us;
    j->t_end_us = c->meta.t_end_us; /* 0 while the job runs */
    j->exit_status = c->meta.t_end_us ? c->meta.exit_status : -1;
    j->simulated = c->s.versions.simulated;
    j->energy_j = s ? s->energy_j : NAN;
    size_t g = 0, u = 0;
    for (int k = 0; k < c->placed.n; k++) {
        int idx = c->placed.gpus[k];
        g += (size_t)snprintf(j->gpus + g, sizeof j->gpus - g, "%s%d", k ? "," : "", idx);
        u += (size_t)snprintf(j->uuids + u, sizeof j->uuids - u, "%s%s", k ? "," : "", c->s.gpus[idx].info.str[M_UUID]);
        if (g >= sizeof j->gpus || u >= sizeof j->uuids)
            break;
    }
}

static void save_job(run_ctx *c, const run_summary *s, char *text, char *json)
{
    if (c->o.no_history)
        return;
    history_job j;
    job_row(c, s, &j);
    j.summary_text = text;
    j.summary_json = json;
    char err[512];
    if (history_job_save(c->db, &j, err, sizeof err) != 0)
        fprintf(stderr, "gpuwatch run: the job is not recorded: %s\n", err);
}

/* The job's exit status as a shell gives it. */
static int exit_code(int status, int *sig)
{
    *sig = 0;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) {
        *sig = WTERMSIG(status);
        return 128 + *sig;
    }
    return 1;
}

/* The job's output lines (on the thread that relays them): the allocator's messages for the diagnosis. */
static void job_output_line(void *arg, int64_t t_us, const char *line)
{
    run_data_add_output(arg, t_us, line);
}

static int report(run_ctx *c, run_data *d, step_parser *sp)
{
    run_summary *s = malloc(sizeof *s);
    if (!s || summary_compute(s, &c->meta, d, sp) != 0) {
        fprintf(stderr, "gpuwatch run: out of memory for the summary\n");
        if (s)
            summary_free(s);
        free(s);
        return -1;
    }
    gw_buf text;
    buf_init(&text);
    summary_text(s, d, &text);
    char *json = summary_json(s, d, sp, 1);
    char *summary_only = summary_json(s, d, sp, 0);
    fflush(stdout);
    if (text.data)
        fputs(text.data, stderr);
    char err[512];
    int rc = 0;
    if (c->o.json) {
        char why[256] = "out of memory";
        gw_buf out;
        buf_init(&out);
        if (json) {
            buf_puts(&out, json);
            buf_putc(&out, '\n');
        }
        if (!json || out.oom || gw_write_file(c->o.json, out.data, out.len, why, sizeof why) != 0) {
            fprintf(stderr, "gpuwatch run: --json %s: %s\n", c->o.json, why);
            rc = -1;
        } else {
            fprintf(stderr, "  json      %s\n", c->o.json);
        }
        buf_release(&out);
    }
    if (c->o.report) {
        const char *cj = getenv("GPUWATCH_CHARTJS");
        if (summary_html(s, d, sp, c->o.report, cj && *cj ? cj : CHARTJS_DEFAULT, err, sizeof err) != 0) {
            fprintf(stderr, "gpuwatch run: --report %s: %s\n", c->o.report, err);
            rc = -1;
        } else {
            fprintf(stderr, "  report    %s\n", c->o.report);
        }
    }
    save_job(c, s, text.data, summary_only);
    free(json);
    free(summary_only);
    buf_release(&text);
    summary_free(s);
    free(s);
    return rc;
}

static int start_line(run_ctx *c, const run_binding *b)
{
    fprintf(stderr, "gpuwatch run: job %s on GPU ", c->meta.id);
    for (int k = 0; k < c->placed.n; k++) {
        int g = c->placed.gpus[k];
        fprintf(stderr, "%s%d", k ? ", " : "", g);
    }
    fprintf(stderr, " · %s · %s\n", b->note, c->agent ? agent_client_base(c->agent) : "sampled here");
    return 0;
}

static int run_job(run_ctx *c)
{
    run_binding bind;
    gpu_topology topo[RUN_MAX_GPUS];
    char bus[RUN_MAX_GPUS][96];
    for (int k = 0; k < c->placed.n; k++) {
        int g = c->placed.gpus[k];
        topo[k] = c->topo[g];
        gw_strlcpy(bus[k], c->s.gpus[g].info.str[M_PCI_BUS_ID], sizeof bus[k]);
    }
    if (host_plan_binding(topo, bus, c->placed.n, c->o.cpu_numa, c->o.mem_numa, &bind) != 0) {
        memset(&bind, 0, sizeof bind);
        snprintf(bind.note, sizeof bind.note, "not bound: hwloc cannot read this machine's topology");
    }
    gw_strlcpy(c->meta.binding, bind.note, sizeof c->meta.binding);
    if (set_job_env(c) != 0) {
        fprintf(stderr, "gpuwatch run: out of memory for the job's environment\n");
        return 1;
    }
    start_line(c, &bind);

    char err[512];
    step_parser *sp = c->sp;
    run_data *d = malloc(sizeof *d);
    if (!d || run_data_init(d) != 0) {
        fprintf(stderr, "gpuwatch run: out of memory\n");
        free(d);
        return 1;
    }
    d->simulated = c->s.versions.simulated;
    steps_on_line(sp, job_output_line, d);
    if (c->agent)
        snprintf(d->source, sizeof d->source, "from the agent %s", agent_client_base(c->agent));
    else
        snprintf(d->source, sizeof d->source, "here (NVML%s)", d->simulated ? ": gpusim" : "");
    for (int k = 0; k < c->placed.n; k++) {
        int g = c->placed.gpus[k];
        run_data_gpu(d, g, c->s.gpus[g].have_info ? &c->s.gpus[g].info : NULL);
    }

    /* Signals: the ones passed to the job and SIGCHLD are read from a signalfd. Blocked before any
     * thread starts (the history's writer, the sampling thread), so that no thread takes them. */
    sigset_t pass, old;
    sigemptyset(&pass);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCHLD, SIGWINCH, SIGALRM, SIGTSTP, SIGCONT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&pass, sigs[i]);
    pthread_sigmask(SIG_BLOCK, &pass, &old);
    signal(SIGPIPE, SIG_IGN);
    int sigfd = signalfd(-1, &pass, SFD_NONBLOCK | SFD_CLOEXEC);

    history *h = NULL;
    if (!c->o.no_history && !c->agent) {
        history_config hc;
        history_config_defaults(&hc);
        hc.path = c->db;
        h = history_open(&hc, err, sizeof err);
        if (!h)
            fprintf(stderr, "gpuwatch run: the job's readings are not recorded: %s\n", err);
    }

    c->meta.t_start_us = (int64_t)gw_now_us();
    save_job(c, NULL, NULL, NULL);
    run_child ch;
    int keep[RUN_MAX_GPUS];
    for (int k = 0; k < c->placed.n; k++)
        keep[k] = c->holds[k].lock_fd;
    int rc = sigfd < 0 ? 1 : child_start(&ch, c->o.argv, &bind, &old, keep, c->placed.n, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "gpuwatch run: %s\n", sigfd < 0 ? strerror(errno) : err);
        c->meta.t_end_us = (int64_t)gw_now_us();
        c->meta.exit_status = rc;
        history_close(h);
        save_job(c, NULL, NULL, NULL); /* recorded as ended: it never ran */
        goto out;
    }
    c->job_group = ch.pid;
    run_watch w = {.s = c->agent ? NULL : &c->s,
                   .agent = c->agent,
                   .ngpus = c->placed.n,
                   .root = ch.pid,
                   .hist = h,
                   .interval_s = c->o.interval_s,
                   .data = d};
    memcpy(w.gpus, c->placed.gpus, sizeof w.gpus);
    if (watch_start(&w) != 0)
        fprintf(stderr, "gpuwatch run: cannot start the sampling thread: the job runs unwatched\n");
    int status = child_relay(&ch, sigfd, sp);
    c->meta.t_end_us = (int64_t)gw_now_us();
    watch_stop(&w);
    run_data_add_notes(d);
    history_close(h);
    rc = exit_code(status, &c->meta.signal);
    c->meta.exit_status = rc;
    report(c, d, sp);
    if (kill(-c->job_group, 0) == 0)
        fprintf(stderr,
                "gpuwatch run: processes the job left behind (process group %d) still run: its GPUs stay reserved "
                "until the last of them ends\n",
                (int)c->job_group);
out:
    steps_on_line(sp, NULL, NULL); /* d goes */
    if (sigfd >= 0)
        close(sigfd);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    run_data_free(d);
    free(d);
    return rc;
}

/* Gives the job's GPUs back. Its processes that outlive it still hold the locks they inherited: their
 * records keep naming the job. */
static void release_gpus(run_ctx *c)
{
    int lingering = c->job_group > 0 && kill(-c->job_group, 0) == 0;
    for (int k = 0; k < c->placed.n; k++)
        reserve_release(&c->holds[k], lingering);
}

/* What the job's end needs, checked before any GPU is taken: the report files can be written, the
 * step regex compiles. 0, or an exit status (message printed). */
static int check_before_start(run_ctx *c)
{
    const char *outs[2][2] = {{"--json", c->o.json}, {"--report", c->o.report}};
    for (int i = 0; i < 2; i++) {
        char why[512];
        if (outs[i][1] && gw_check_writable_path(outs[i][1], why, sizeof why) != 0) {
            fprintf(stderr, "gpuwatch run: %s %s: %s\n", outs[i][0], outs[i][1], why);
            return GW_EXIT_USAGE;
        }
    }
    char err[512];
    c->sp = steps_new(c->o.step_regex, err, sizeof err);
    if (!c->sp) {
        fprintf(stderr, "gpuwatch run: %s\n", err);
        return GW_EXIT_USAGE;
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    run_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "gpuwatch run: out of memory\n");
        return 1;
    }
    int rc = run_opts_parse(argc, argv, &c->o);
    if (rc != RUN_OPTS_RUN) {
        free(c);
        return rc == RUN_OPTS_HELP ? 0 : GW_EXIT_USAGE;
    }
    if (c->o.list) {
        free(c);
        return list_reservations();
    }
    rc = check_before_start(c);
    if (rc != 0) {
        free(c);
        return rc;
    }
    char err[512];
    if (reserve_dir(c->lockdir, sizeof c->lockdir, err, sizeof err) != 0) {
        fprintf(stderr, "gpuwatch run: %s\n", err);
        steps_free(c->sp);
        free(c);
        return 1;
    }
    if (!c->o.no_history)
        hcli_db_path(c->o.db, c->db, sizeof c->db);
    rc = session_open(&c->s, "run", 1);
    if (rc != 0) {
        steps_free(c->sp);
        free(c);
        return rc;
    }
    c->sampler_open = 1;
    c->ngpus = c->s.count < RUN_MAX_GPUS ? c->s.count : RUN_MAX_GPUS;
    for (int i = 0; i < RUN_MAX_GPUS; i++)
        c->holds[i] = (reserve_hold){-1, -1};
    if (c->o.ngpus > c->ngpus) {
        fprintf(stderr, "gpuwatch run: --gpus %d: this machine has %d GPU%s\n", c->o.ngpus, c->ngpus,
                c->ngpus == 1 ? "" : "s");
        rc = RUN_EXIT_NO_GPUS;
        goto out;
    }
    rc = resolve_lists(c);
    if (rc != 0)
        goto out;
    read_topology(c);
    find_agent(c);
    fill_meta(c);
    rc = place(c);
    if (rc != 0)
        goto out;
    rc = run_job(c);
out:
    release_gpus(c);
    agent_client_close(c->agent);
    if (c->sampler_open)
        sampler_close(&c->s);
    steps_free(c->sp);
    free(c);
    return rc;
}
