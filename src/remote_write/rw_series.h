/* rw_series.h - the series remote write sends, and the converter that makes their samples.
 *
 * The table gives every series (its name and labels, as /metrics shows them, plus the external
 * labels) a small id, its labels sorted and without empty values as the protocol wants them, its
 * type and help, and which endpoints keep it (their keep/drop rules, decided once). A series not
 * seen for an hour is forgotten and its id reused (with a new generation, which entries carry).
 *
 * A converter turns one GPU's sample and processes into entries: it walks them through the
 * exporter's own series (exposition.h, so the series are exactly /metrics' ones) and adds a stale
 * marker for each series of that GPU that the previous sample had and this one has not (a
 * process that ended, a GPU that was lost). The live stream has one converter; a resend from the
 * history has its own, so that each stream's stale markers follow its own samples. */
#ifndef GPUWATCH_RW_SERIES_H
#define GPUWATCH_RW_SERIES_H

#include <stddef.h>
#include <stdint.h>
#include "exposition.h"
#include "rw_ring.h"
#include "rw_settings.h"

/* The stale marker: the NaN 0x7ff0000000000002 (and no other value uses it). */
double rw_stale_nan(void);
int rw_is_stale(double v);

typedef struct rw_label {
    const char *name, *value;
} rw_label;

typedef struct rw_series {
    const char *name;       /* __name__ */
    const char *help;       /* the catalog's text (static) */
    const rw_label *labels; /* sorted by name (bytes), __name__ among them, no empty value */
    int nlabels;
    int counter;   /* 1 counter, 0 gauge */
    int gpu;       /* the GPU whose samples give it */
    uint32_t keep; /* bit i: endpoint i sends it */
    uint16_t gen;  /* generation of its id (entries carry it) */
} rw_series;

typedef struct rw_table rw_table;

/* The table for these settings (external labels, endpoints' rules; s must outlive it). Series also
 * get instance="<hostname>" and job="gpuwatch", as a scrape would label them, unless the external
 * labels name those. NULL when out of memory. */
rw_table *rw_table_new(const rw_settings *s, const char *hostname);
void rw_table_free(rw_table *t);
/* Reading series (rw_table_get) and converting hold the table's lock. */
void rw_table_lock(rw_table *t);
void rw_table_unlock(rw_table *t);
/* The series of an entry (id and generation), or NULL when it has been forgotten. Lock held. */
const rw_series *rw_table_get(rw_table *t, const rw_entry *e);
/* Series held, and the memory they take (bytes). */
void rw_table_stats(rw_table *t, size_t *count, size_t *bytes);
/* Forgets series not given a sample for an hour whose newest sample is older than before_us (what
 * the ring and the endpoints no longer hold). Takes the lock. Returns how many. */
size_t rw_table_evict(rw_table *t, int64_t before_us, uint64_t now_mono_us);

typedef struct rw_converter rw_converter;

/* What a walk needs besides the sample. */
typedef struct rw_walk_context {
    const expo_options *expo; /* the exporter's options (series, metrics, process limit, hostname) */
    int simulated;            /* the GPUs are gpusim's (gpuwatch_gpu_info's label) */
} rw_walk_context;

rw_converter *rw_converter_new(rw_table *t);
void rw_converter_free(rw_converter *c);
/* Converts one sample of GPU gpu (info: its identity; procs: its processes at that time) into
 * entries appended to out (a growable array of rw_entry, *n of *cap). Takes the table's lock.
 * Returns 0, or -1 when memory ran out (what was converted is kept). */
int rw_convert(rw_converter *c, const rw_walk_context *ctx, int gpu, const gpu_info *info, const gpu_sample *s,
               const gpu_proc *procs, int nprocs, rw_entry **out, size_t *n, size_t *cap);

#endif
