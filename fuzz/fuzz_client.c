/* fuzz_client.c - the client layer's decoders of an agent's /api/v1 answers (agent_api.h), as top
 * --host, run and diagnose --host use them, then what those do with the result: top's chart history
 * and its findings lines, diagnose's text report. The harness asserts the decoders' promises: every
 * string clean, GPU indexes in range, times in the window (or 0), numbers finite, counts capped.
 * Input: a selector byte (gpus, processes, samples, alerts, findings), a byte of GPU count, then the
 * answer's body. */
#include "agent_api.h"
#include "common.h"
#include "diag.h"
#include "text.h"
#include "top_model.h"
#include "top_ui.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOW_US 1796400000000000ull /* a fixed clock: an input means the same every time */

static void must(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_client: broken promise: %s\n", what);
        abort();
    }
}

static void time_ok(uint64_t t)
{
    must(t == 0 || ((double)t >= NOW_US - API_TIME_PAST_S * 1e6 && (double)t <= NOW_US + API_TIME_FUTURE_S * 1e6),
         "a time in the window");
}

static void gpus(const char *body, size_t len, const api_context *ctx)
{
    api_gpus g;
    char err[256];
    if (api_decode_gpus(body, len, ctx, &g, err, sizeof err) != 0)
        return;
    must(g.n <= API_MAX_GPUS && gw_text_is_clean(g.hostname) && gw_text_is_clean(g.driver_version), "gpus");
    top_history *h = history_new(g.n, 16);
    for (int i = 0; i < g.n; i++) {
        const api_gpu *a = &g.gpus[i];
        must(a->info.index >= 0 && a->info.index < API_MAX_GPUS, "a GPU index in range");
        for (int id = 0; id < M_STR_END; id++)
            must(gw_text_is_clean(a->info.str[id]), "a clean GPU string");
        for (int id = M_STR_END; id < M_COUNT; id++)
            must(!sample_has(&a->s, (metric_id)id) || isfinite(a->s.v[id]), "a finite metric");
        time_ok(a->s.t_us);
        history_push(h, a->info.index, &a->s);
    }
    double out[32];
    for (int i = 0; i < g.n; i++)
        for (int k = 0; k < SER_COUNT; k++)
            series_fill(h, g.gpus[i].info.index, (series_kind)k, NOW_US, 0.5, 32, out);
    history_free(h);
    api_gpus_free(&g);
}

static void processes(const char *body, size_t len, const api_context *ctx)
{
    api_procs p;
    char err[256];
    if (api_decode_processes(body, len, ctx, &p, err, sizeof err) != 0)
        return;
    must(p.n <= API_MAX_PROCS, "a capped count");
    for (int i = 0; i < p.n; i++) {
        const gpu_proc *q = &p.p[i];
        must(q->gpu >= 0 && q->gpu < (ctx->ngpus ? ctx->ngpus : API_MAX_GPUS) && q->pid > 0, "a process key");
        must(gw_text_is_clean(q->name) && gw_text_is_clean(q->cmdline) && gw_text_is_clean(q->user) &&
                 gw_text_is_clean(q->container),
             "clean process strings");
        must((!q->has_mem || isfinite(q->mem_mib)) && (!q->has_cpu || isfinite(q->cpu_percent)), "finite numbers");
    }
    api_procs_free(&p);
}

static void samples(const char *body, size_t len, const api_context *ctx)
{
    api_samples s;
    char err[256];
    if (api_decode_samples(body, len, ctx, 600, &s, err, sizeof err) != 0)
        return;
    top_history *h = history_new(API_MAX_GPUS, 64);
    for (int k = 0; k < s.n; k++) {
        must(s.s[k].gpu >= 0 && s.s[k].gpu < API_MAX_GPUS && s.s[k].n <= 600, "a series");
        for (int i = 0; i < s.s[k].n; i++) {
            time_ok(s.s[k].p[i].t_us);
            must(i == 0 || s.s[k].p[i].t_us >= s.s[k].p[i - 1].t_us, "points in time order");
            gpu_sample g = {.t_us = s.s[k].p[i].t_us};
            if (!isnan(s.s[k].p[i].v))
                sample_set(&g, M_UTIL_GPU, s.s[k].p[i].v);
            history_push(h, s.s[k].gpu, &g);
        }
        double out[40];
        series_fill(h, s.s[k].gpu, SER_UTIL, NOW_US, 1, 40, out);
    }
    history_free(h);
    api_samples_free(&s);
}

static void alerts(const char *body, size_t len, const api_context *ctx)
{
    api_alerts a;
    char err[256];
    if (api_decode_alerts(body, len, ctx, &a, err, sizeof err) != 0)
        return;
    must(a.n <= API_MAX_ALERTS, "a capped count");
    for (int i = 0; i < a.n; i++) {
        must(a.a[i].name[0] && gw_text_is_clean(a.a[i].name) && gw_text_is_clean(a.a[i].summary) &&
                 gw_text_is_clean(a.a[i].severity),
             "clean alert strings");
        time_ok((uint64_t)a.a[i].active_at_us);
    }
    api_alerts_free(&a);
}

static void findings(const char *body, size_t len, const api_context *ctx)
{
    diag_report r;
    char err[256];
    diag_report_init(&r);
    if (api_decode_findings(body, len, ctx, &r, err, sizeof err) == 0) {
        must(r.n <= API_MAX_FINDINGS, "a capped count");
        time_ok(r.from_us);
        time_ok(r.to_us);
        for (int i = 0; i < r.n; i++) {
            const diag_finding *f = &r.f[i];
            time_ok(f->from_us);
            time_ok(f->to_us);
            must(f->from_us <= f->to_us && gw_text_is_clean(f->summary), "a finding");
            for (int k = 0; k < f->n_gpus; k++)
                must(f->gpus[k] >= 0 && f->gpus[k] < (ctx->ngpus ? ctx->ngpus : API_MAX_GPUS), "a finding's GPU");
            for (int k = 0; k < f->n_evidence; k++)
                must(gw_text_is_clean(f->evidence[k].key) && gw_text_is_clean(f->evidence[k].str) &&
                         (f->evidence[k].is_str || isfinite(f->evidence[k].num)),
                     "evidence");
            char line[400];
            finding_line(f, NOW_US, line, sizeof line);
        }
        gw_buf text;
        buf_init(&text);
        diag_report_text(&r, &text, 0);
        buf_release(&text);
    }
    diag_report_free(&r);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    api_context ctx = {.now_us = NOW_US, .ngpus = data[1] % (API_MAX_GPUS + 1)};
    ctx.detector_id = diag_detector_id;
    ctx.ndetectors = diag_detector_count();
    const char *body = (const char *)data + 2;
    size_t len = size - 2;
    switch (data[0] % 5) {
    case 0: gpus(body, len, &ctx); break;
    case 1: processes(body, len, &ctx); break;
    case 2: samples(body, len, &ctx); break;
    case 3: alerts(body, len, &ctx); break;
    default: findings(body, len, &ctx); break;
    }
    return 0;
}
