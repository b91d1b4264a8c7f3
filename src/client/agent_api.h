/* agent_api.h - the one decoder of each answer of a gpuwatch agent's /api/v1 (encoded by
 * src/agent/api_json.c and the alerts and diagnosis plugins), for every client: top --host, run,
 * diagnose --host and the fleet commands.
 *
 * Nothing an agent sends is trusted. An answer is bounded before it is parsed (bytes, JSON values,
 * nesting), and every value is validated before it is kept: counts are capped, GPU indexes must be
 * in range, times within a window around our clock, numbers finite and within their field's range,
 * strings are cut to their field and cleaned of control characters and bad UTF-8 (gw_clean_text).
 * A value that fails is left out (absent, as an unsupported metric is), never guessed; an item
 * whose key fails (a GPU index, a process's pid) is left out and counted. An answer that is not of
 * its kind is refused with the reason. The caps are documented in docs/reliability.md. */
#ifndef GPUWATCH_AGENT_API_H
#define GPUWATCH_AGENT_API_H

#include <stddef.h>
#include <stdint.h>
#include "diag_report.h"
#include "sample.h"

#define API_MAX_BODY (16u << 20) /* bytes of one answer */
#define API_MAX_VALUES 1000000   /* JSON values (numbers, strings, arrays, objects...) in one answer */
#define API_MAX_DEPTH 16         /* nesting of arrays and objects (the answers use 5) */
#define API_MAX_GPUS 64
#define API_MAX_PROCS 4096
#define API_MAX_ALERTS 256
#define API_MAX_FINDINGS 1024
#define API_MAX_POINTS 36000              /* points kept of one GPU's series */
#define API_TIME_PAST_S (366.0 * 86400.0) /* times accepted from a year before our clock... */
#define API_TIME_FUTURE_S 3600.0          /* ...to an hour after it (another host's clock) */
#define API_MAX_NUMBER 1e18               /* |a value| above this is no reading */

/* What a decoder checks against. */
typedef struct api_context {
    uint64_t now_us;                   /* our CLOCK_REALTIME; 0: read it */
    int ngpus;                         /* GPU indexes accepted: [0, ngpus); 0: [0, API_MAX_GPUS) */
    const char *(*detector_id)(int i); /* findings: the detector ids this gpuwatch knows, i in... */
    int ndetectors;                    /* ...[0, ndetectors) (diag.h); findings of others are left out */
} api_context;

/* ---- /api/v1/gpus ---- */

typedef struct api_gpu {
    gpu_info info; /* index: unique, in [0, the number of GPUs listed) */
    gpu_sample s;  /* status GPU_LOST when lost; t_us 0 when the agent gave no valid time */
    int lost, stale, hung;
} api_gpu;

typedef struct api_gpus {
    int n;              /* GPUs kept, in the answer's order */
    int left_out;       /* listed past API_MAX_GPUS, or with an index out of range or seen before */
    api_gpu *gpus;      /* n of them; api_gpus_free */
    int backend_up;     /* 1 unless the agent says its backend is down */
    int simulated;      /* the agent (or one of its GPUs) runs on gpusim */
    double interval_s;  /* the agent's sampling interval; NAN when not given or out of range */
    char hostname[128]; /* "" when not given */
    char driver_version[64];
} api_gpus;

/* 0, or -1 with err filled (out is then empty). */
int api_decode_gpus(const char *body, size_t len, const api_context *ctx, api_gpus *out, char *err, size_t n);
void api_gpus_free(api_gpus *g);

/* ---- /api/v1/processes ---- */

typedef struct api_procs {
    int n, left_out; /* left out: past API_MAX_PROCS, or a GPU index or pid out of range */
    gpu_proc *p;
} api_procs;

int api_decode_processes(const char *body, size_t len, const api_context *ctx, api_procs *out, char *err, size_t n);
void api_procs_free(api_procs *p);

/* ---- /api/v1/samples ---- */

typedef struct api_point {
    uint64_t t_us;
    double v; /* NAN: the agent had no value then */
} api_point;

typedef struct api_series {
    int gpu;
    int n; /* the newest max_points points, oldest first */
    api_point *p;
} api_series;

typedef struct api_samples {
    int n;        /* series kept: one per GPU at most */
    int left_out; /* series with a bad or repeated GPU index, points with a bad time */
    api_series *s;
} api_samples;

/* max_points: the newest points kept of each series (at most API_MAX_POINTS). Points are kept in
 * time order: one that goes back in time is left out. */
int api_decode_samples(const char *body, size_t len, const api_context *ctx, int max_points, api_samples *out,
                       char *err, size_t n);
void api_samples_free(api_samples *s);

/* ---- /api/v1/alerts ---- */

typedef struct api_alert {
    char name[64];        /* the alertname label */
    char severity[16];    /* "" when not labelled */
    int firing;           /* 0: pending */
    int64_t active_at_us; /* 0 unknown */
    char summary[200];    /* the summary annotation, "" when none */
} api_alert;

typedef struct api_alerts {
    int n, left_out; /* pending and firing alerts only; left out: past API_MAX_ALERTS, no name */
    api_alert *a;
} api_alerts;

int api_decode_alerts(const char *body, size_t len, const api_context *ctx, api_alerts *out, char *err, size_t n);
void api_alerts_free(api_alerts *a);

/* ---- /api/v1/findings ---- */

/* Into out (cleared first; findings of detectors the context does not know are left out, and so are
 * GPUs, pids, evidence and chart points that fail their checks). 0, or -1 with err filled. */
int api_decode_findings(const char *body, size_t len, const api_context *ctx, diag_report *out, char *err, size_t n);

#endif
