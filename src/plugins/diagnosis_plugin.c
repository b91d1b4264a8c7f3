/* diagnosis_plugin.c - the diagnosis as a plugin of the pipeline (the agent's and top's): keeps a
 * sliding window of what the host reads (diagnosis.window, 30 minutes by default; a GPU's reading and
 * process list at most every DIAG_STEP_US) and the events of its samples, runs the detectors over
 * it every diagnosis.interval on the pipeline's thread, and shows the findings: a "diagnosis" event
 * with the whole report after each run (top's panel), a "finding" event when a finding appears,
 * changes severity or clears (the history records it; the alert engine's finding.<detector>
 * reads it), and in the agent /api/v1/findings (the report as `gpuwatch diagnose --format json`
 * writes it) and gpuwatch_finding{detector,gpu,severity} on /metrics. */
#include "diag.h"
#include "diag_settings.h"
#include "plugin.h"
#include "util.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A GPU's readings and process lists go into the window at most this often: the detectors look
 * at seconds and minutes, and a host reading ten times a second (top -d 0.1) would fill the window
 * ten times over. At the agent's default 1 s interval, every reading. */
#define DIAG_STEP_US 450000u

/* A finding as the events and /metrics name it: one detector on one GPU. */
typedef struct finding_key {
    const char *detector;
    int gpu;
    diag_severity severity;
} finding_key;

typedef struct diag_state {
    const pipeline_view *view;
    diag_window *w;       /* sampler thread only */
    uint64_t next_run_us; /* sampler thread only */
    pthread_mutex_t mu;   /* everything below */
    diag_settings set;    /* replaced on reload */
    diag_report report;   /* the latest run */
    char *json;           /* its JSON, for /api/v1/findings */
    finding_key *active;  /* the findings of the latest run, one per detector and GPU */
    int nactive;
    uint64_t runs;
    double last_run_s;             /* CPU time of the latest run */
    atomic_uint_least64_t version; /* +1 after each run */
} diag_state;

static int same_key(const finding_key *a, const finding_key *b)
{
    return a->gpu == b->gpu && strcmp(a->detector, b->detector) == 0;
}

/* The findings of a report, one key per detector and GPU (malloc'ed; *n set). */
static finding_key *keys_of(const diag_report *r, int *n)
{
    int total = 0;
    for (int i = 0; i < r->n; i++)
        total += r->f[i].n_gpus ? r->f[i].n_gpus : 1;
    finding_key *k = calloc((size_t)total + 1, sizeof *k);
    *n = 0;
    for (int i = 0; k && i < r->n; i++) {
        const diag_finding *f = &r->f[i];
        for (int g = 0; g < (f->n_gpus ? f->n_gpus : 1); g++) {
            finding_key key = {f->detector, f->n_gpus ? f->gpus[g] : -1, f->severity};
            int seen = 0;
            for (int j = 0; j < *n && !seen; j++)
                seen = same_key(&k[j], &key);
            if (!seen)
                k[(*n)++] = key;
        }
    }
    return k;
}

static const diag_finding *finding_for(const diag_report *r, const finding_key *key)
{
    for (int i = 0; i < r->n; i++)
        for (int g = 0; g < r->f[i].n_gpus; g++)
            if (r->f[i].gpus[g] == key->gpu && strcmp(r->f[i].detector, key->detector) == 0)
                return &r->f[i];
    return NULL;
}

static void post(diag_state *p, uint64_t t_us, const finding_key *k, int active, const diag_finding *f)
{
    gw_event ev = {.kind = EV_FINDING,
                   .t_us = t_us,
                   .gpu = k->gpu,
                   .finding = {k->detector, f ? f->summary : "", k->severity, active}};
    p->view->post_event(p->view, &ev);
}

/* The run's whole report (NULL: the run failed), for a host that shows it (top's panel). */
static void post_report(diag_state *p, uint64_t t_us, const diag_report *r, const diag_settings *set)
{
    gw_event ev = {
        .kind = EV_DIAGNOSIS, .t_us = t_us, .gpu = -1, .diagnosis = {r, t_us + (uint64_t)(set->interval_s * 1e6)}};
    p->view->post_event(p->view, &ev);
}

/* Runs the detectors over the window and publishes what they found (sampler thread). */
static void run(diag_state *p, const diag_settings *set, uint64_t now_us)
{
    double t0 = (double)gw_mono_us();
    diag_window_trim(p->w, now_us - (uint64_t)(set->window_s * 1e6));
    diag_report r;
    diag_report_init(&r);
    /* p->report is written only here, on this thread: read without the lock. The previous run's
     * severities stay while a measure hovers at a threshold (no flapping between runs). */
    if (diag_run_from(p->w, &set->cfg, &p->report, &r) < 0) {
        gw_log(GW_LOG_WARN, "diagnosis: out of memory, run skipped", NULL);
        diag_report_free(&r);
        post_report(p, now_us, NULL, set);
        return;
    }
    char *json = diag_report_json(&r, 0);
    int n = 0;
    finding_key *keys = keys_of(&r, &n);
    pthread_mutex_lock(&p->mu);
    for (int i = 0; keys && i < n; i++) { /* appeared, or its severity changed */
        int j = 0;
        while (j < p->nactive && !same_key(&p->active[j], &keys[i]))
            j++;
        if (j == p->nactive || p->active[j].severity != keys[i].severity)
            post(p, now_us, &keys[i], 1, finding_for(&r, &keys[i]));
    }
    for (int j = 0; keys && j < p->nactive; j++) { /* cleared */
        int still = 0;
        for (int i = 0; i < n && !still; i++)
            still = same_key(&p->active[j], &keys[i]);
        if (!still)
            post(p, now_us, &p->active[j], 0, NULL);
    }
    if (keys) {
        free(p->active);
        p->active = keys;
        p->nactive = n;
    }
    post_report(p, now_us, &r, set);
    diag_report_free(&p->report);
    p->report = r;
    if (json) {
        free(p->json);
        p->json = json;
    }
    p->runs++;
    p->last_run_s = ((double)gw_mono_us() - t0) / 1e6;
    pthread_mutex_unlock(&p->mu);
    atomic_fetch_add(&p->version, 1);
}

/* The window's GPU, when it had a reading (or process list: lists) less than DIAG_STEP_US before t. */
static int too_soon(const diag_window *w, int gpu, uint64_t t, int lists)
{
    if (gpu < 0 || gpu >= w->n_gpus)
        return 0;
    const diag_gpu *g = &w->gpus[gpu];
    uint64_t last = lists ? g->last_obs_us : g->n_samples ? g->last_us : 0;
    return last && t >= last && t - last < DIAG_STEP_US;
}

static void on_sample(void *ctx, int gpu, const gpu_info *info, const gpu_sample *s)
{
    diag_window *w = ((diag_state *)ctx)->w;
    if (!too_soon(w, gpu, s->t_us, 0))
        diag_window_add_sample(w, gpu, info, s);
}

static void on_processes(void *ctx, int gpu, uint64_t t_us, const gpu_proc *procs, int n)
{
    diag_window *w = ((diag_state *)ctx)->w;
    if (!too_soon(w, gpu, t_us, 1))
        diag_window_add_processes(w, gpu, t_us, procs, n);
}

/* The events of the samples (XIDs, lost and back, ECC), derived once by the pipeline. */
static void on_event(void *ctx, const gw_event *ev)
{
    diag_window_note_event(((diag_state *)ctx)->w, ev);
}

static void on_tick(void *ctx, uint64_t now_us)
{
    diag_state *p = ctx;
    if (p->next_run_us && now_us < p->next_run_us)
        return;
    pthread_mutex_lock(&p->mu);
    diag_settings set = p->set;
    pthread_mutex_unlock(&p->mu);
    int first = !p->next_run_us;
    p->next_run_us = now_us + (uint64_t)(set.interval_s * 1e6);
    if (!first)
        run(p, &set, now_us);
}

static int write_metrics(void *ctx, gw_buf *out)
{
    diag_state *p = ctx;
    pthread_mutex_lock(&p->mu);
    buf_puts(out, "# HELP gpuwatch_finding A diagnosis finding now active on a GPU (docs/diagnosis.md).\n"
                  "# TYPE gpuwatch_finding gauge\n");
    for (int i = 0; i < p->nactive; i++)
        buf_printf(out, "gpuwatch_finding{detector=\"%s\",gpu=\"%d\",severity=\"%s\"} 1\n", p->active[i].detector,
                   p->active[i].gpu, diag_severity_name(p->active[i].severity));
    buf_printf(out,
               "# HELP gpuwatch_diagnosis_runs_total Diagnosis runs over the recent window.\n"
               "# TYPE gpuwatch_diagnosis_runs_total counter\ngpuwatch_diagnosis_runs_total %llu\n"
               "# HELP gpuwatch_diagnosis_duration_seconds Time the latest diagnosis run took.\n"
               "# TYPE gpuwatch_diagnosis_duration_seconds gauge\ngpuwatch_diagnosis_duration_seconds %.6f\n",
               (unsigned long long)p->runs, p->last_run_s);
    pthread_mutex_unlock(&p->mu);
    return 0;
}

static uint64_t metrics_version(void *ctx)
{
    return atomic_load(&((diag_state *)ctx)->version);
}

static int handle_http(void *ctx, const agent_request *req, agent_response *resp)
{
    diag_state *p = ctx;
    if (strcmp(req->path, "/api/v1/findings") != 0)
        return 0;
    pthread_mutex_lock(&p->mu);
    buf_puts(&resp->body, p->json ? p->json : "{\"findings\":[]}");
    pthread_mutex_unlock(&p->mu);
    return 1;
}

static int read_settings(gw_doc *cfg, diag_settings *s)
{
    return diag_settings_read(cfg, doc_path(cfg, "diagnosis"), s);
}

static void check(gw_doc *cfg)
{
    diag_settings s;
    read_settings(cfg, &s);
}

static void on_reload(void *ctx, gw_doc *cfg)
{
    diag_state *p = ctx;
    diag_settings s;
    if (read_settings(cfg, &s) != 0) {
        gw_log(GW_LOG_ERROR, "diagnosis: reload failed, keeping the previous settings", NULL);
        return;
    }
    if (!s.enabled)
        gw_log(GW_LOG_WARN, "diagnosis: enabled takes effect at the next start", NULL);
    pthread_mutex_lock(&p->mu);
    p->set = s;
    pthread_mutex_unlock(&p->mu);
}

static void release(void *ctx)
{
    diag_state *p = ctx;
    diag_window_free(p->w);
    diag_report_free(&p->report);
    free(p->json);
    free(p->active);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

static int start(const pipeline_view *view, gw_doc *cfg, void **ctx)
{
    diag_settings s;
    if (read_settings(cfg, &s) != 0)
        return -1;
    if (!s.enabled) {
        gw_log(GW_LOG_INFO, "diagnosis off (diagnosis.enabled: false)", NULL);
        return 0;
    }
    diag_state *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    p->w = diag_window_new();
    if (!p->w) {
        free(p);
        return -1;
    }
    diag_window_given_events(p->w);
    p->view = view;
    p->set = s;
    diag_report_init(&p->report);
    pthread_mutex_init(&p->mu, NULL);
    gw_log(GW_LOG_INFO, "diagnosis on", "window_s=%g interval_s=%g", s.window_s, s.interval_s);
    *ctx = p;
    return 0;
}

const pipeline_plugin diagnosis_plugin = {
    .name = "diagnosis",
    .check = check,
    .start = start,
    .on_sample = on_sample,
    .on_processes = on_processes,
    .on_tick = on_tick,
    .on_event = on_event,
    .on_reload = on_reload,
    .write_metrics = write_metrics,
    .metrics_version = metrics_version,
    .handle_http = handle_http,
    .free = release,
};
