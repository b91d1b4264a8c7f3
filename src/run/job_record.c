/* job_record.c - `gpuwatch jobs start` and `gpuwatch jobs finish`: the record of a job that gpuwatch
 * run did not start, such as a Slurm job (deploy/slurm/ calls them from the prolog and epilog). The
 * start writes the job's row (running); the finish reads the history's samples of the job's GPUs
 * over its time (the agent records them), computes the summary as gpuwatch run does, writes it into
 * the row and, when asked, the HTML report and the JSON. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "files.h"
#include "history_locate.h"
#include "history_read.h"
#include "job_record.h"
#include "jobs.h"
#include "run.h"
#include "run_data.h"
#include "sampler.h"
#include "summary.h"
#include "util.h"
#include "workload.h"

#define CHARTJS_DEFAULT "/usr/share/javascript/chart.js/chart.min.js"

int job_record_id_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > JOB_RECORD_ID_MAX)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
            return 0;
    return 1;
}

int job_record_start(const job_record_opts *opts)
{
    const job_record_opts o = *opts;
    char path[4096], err[512], host[128] = "";
    history_locate(o.db, path, sizeof path);
    gethostname(host, sizeof host - 1);
    history_job j;
    memset(&j, 0, sizeof j);
    gw_strlcpy(j.id, o.id, sizeof j.id);
    gw_strlcpy(j.name, o.name ? o.name : "", sizeof j.name);
    gw_strlcpy(j.command, o.command ? o.command : "", sizeof j.command);
    gw_strlcpy(j.user, o.user ? o.user : "", sizeof j.user);
    gw_strlcpy(j.host, host, sizeof j.host);
    gw_strlcpy(j.gpus, o.gpus ? o.gpus : "", sizeof j.gpus);
    j.t_start_us = (int64_t)gw_now_us();
    j.exit_status = -1;
    j.energy_j = NAN;
    if (history_job_save(path, &j, err, sizeof err) != 0) {
        fprintf(stderr, "gpuwatch jobs start: %s\n", err);
        return 1;
    }
    return 0;
}

/* ---- the finish: the history's samples into run_data ---- */

typedef struct reading {
    run_data *d;
    const char *slurm_job; /* the processes of this Slurm job are the job's; NULL: all are */
    int64_t first_us, last_us;
    long samples;
} reading;

static void on_sample(void *ctx, int gpu, const gpu_info *info, const gpu_sample *s)
{
    reading *r = ctx;
    run_gpu *g = run_data_gpu(r->d, gpu, info);
    if (!g)
        return;
    run_data_add_sample(r->d, g, info, s, -1);
    r->samples++;
    if (!r->first_us || (int64_t)s->t_us < r->first_us)
        r->first_us = (int64_t)s->t_us;
    if ((int64_t)s->t_us > r->last_us)
        r->last_us = (int64_t)s->t_us;
}

static void on_processes(void *ctx, int gpu, uint64_t t_us, const gpu_proc *procs, int n)
{
    reading *r = ctx;
    int *in_job = calloc((size_t)(n ? n : 1), sizeof *in_job);
    if (!in_job)
        return;
    for (int i = 0; i < n; i++) {
        workload w;
        in_job[i] = !r->slurm_job ||
                    (workload_parse(procs[i].container, &w) == WL_SLURM && strcmp(w.slurm_job, r->slurm_job) == 0);
    }
    run_data_add_procs(r->d, gpu, (int64_t)t_us, procs, n, in_job);
    free(in_job);
}

static void meta_of(const history_job *j, const job_record_opts *o, const reading *r, run_meta *m)
{
    memset(m, 0, sizeof *m);
    gw_strlcpy(m->id, j->id, sizeof m->id);
    gw_strlcpy(m->name, j->name, sizeof m->name);
    gw_strlcpy(m->command, j->command, sizeof m->command);
    gw_strlcpy(m->user, j->user, sizeof m->user);
    gw_strlcpy(m->host, j->host, sizeof m->host);
    m->t_start_us = j->t_start_us;
    m->t_end_us = j->t_end_us;
    m->exit_status = o->exit_status < 0 ? 0 : (int)o->exit_status;
    m->price_per_kwh = m->carbon_g_per_kwh = NAN;
    long per_gpu = r->d->ngpus ? r->samples / r->d->ngpus : 0;
    m->interval_s = per_gpu > 1 ? (double)(r->last_us - r->first_us) / 1e6 / (double)(per_gpu - 1) : 1;
    snprintf(m->binding, sizeof m->binding, "as its scheduler placed it");
}

/* The summary of j's time from the history at path, into the row (and the report and JSON). */
static int summarize(const char *path, history_job *j, const job_record_opts *o)
{
    run_data *d = malloc(sizeof *d);
    run_summary *s = malloc(sizeof *s);
    int rc = 1;
    if (!d || !s || run_data_init(d) != 0) {
        fprintf(stderr, "gpuwatch jobs finish: out of memory\n");
        free(d);
        free(s);
        return 1;
    }
    snprintf(d->source, sizeof d->source, "the agent's history (%.*s)", (int)(sizeof d->source - 24), path);
    unsigned char sel[64] = {0};
    int any = j->gpus[0] && gw_parse_index_list(j->gpus, sel, (int)sizeof sel) == 0;
    reading r = {.d = d, .slurm_job = o->slurm_job};
    history_reader hr = {.ctx = &r, .on_sample = on_sample, .on_processes = on_processes};
    char err[512];
    gw_buf text;
    buf_init(&text);
    char *json = NULL, *summary_only = NULL;
    if (any && history_read_range(path, j->t_start_us, j->t_end_us, sel, &hr, err, sizeof err) < 0) {
        fprintf(stderr, "gpuwatch jobs finish: %s (the job is recorded without its summary)\n", err);
    } else {
        run_meta m;
        meta_of(j, o, &r, &m);
        if (summary_compute(s, &m, d, NULL) != 0) {
            fprintf(stderr, "gpuwatch jobs finish: out of memory for the summary\n");
            goto out;
        }
        summary_text(s, d, &text);
        json = summary_json(s, d, NULL, 1);
        summary_only = summary_json(s, d, NULL, 0);
        j->energy_j = s->energy_j;
        j->summary_text = text.data;
        j->summary_json = summary_only;
        rc = 0;
        if (o->json && (!json || gw_write_file(o->json, json, strlen(json), err, sizeof err) != 0)) {
            fprintf(stderr, "gpuwatch jobs finish: --json %s: %s\n", o->json, json ? err : "out of memory");
            rc = 1;
        }
        const char *cj = getenv("GPUWATCH_CHARTJS");
        if (o->report && summary_html(s, d, NULL, o->report, cj && *cj ? cj : CHARTJS_DEFAULT, err, sizeof err) != 0) {
            fprintf(stderr, "gpuwatch jobs finish: --report %s: %s\n", o->report, err);
            rc = 1;
        }
        summary_free(s);
    }
    if (history_job_save(path, j, err, sizeof err) != 0) {
        fprintf(stderr, "gpuwatch jobs finish: %s\n", err);
        rc = 1;
    }
    if (rc == 0 && text.data)
        fputs(text.data, stdout);
out:
    j->summary_text = NULL;
    j->summary_json = NULL;
    free(json);
    free(summary_only);
    buf_release(&text);
    run_data_free(d);
    free(d);
    free(s);
    return rc;
}

int job_record_finish(const job_record_opts *opts)
{
    const job_record_opts o = *opts;
    int rc;
    char path[4096], err[512];
    history_locate(o.db, path, sizeof path);
    history_job j;
    int found = history_job_get(path, o.id, &j, err, sizeof err);
    if (found <= 0) {
        fprintf(stderr, "gpuwatch jobs finish: %s\n", found < 0 ? err : "no such job (was gpuwatch jobs start run?)");
        return 1;
    }
    if (strcmp(j.id, o.id) != 0) { /* history_job_get takes a prefix: the finish needs the job itself */
        fprintf(stderr, "gpuwatch jobs finish: no job '%s' (did you mean %s?)\n", o.id, j.id);
        history_job_free(&j);
        return 1;
    }
    free(j.summary_text);
    free(j.summary_json);
    j.summary_text = j.summary_json = NULL;
    j.t_end_us = (int64_t)gw_now_us();
    j.exit_status = o.exit_status < 0 ? 0 : (int)o.exit_status;
    rc = summarize(path, &j, &o);
    history_job_free(&j);
    return rc;
}
