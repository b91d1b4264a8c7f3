/* diag_joblog.c - what a job's own output says about GPU memory that NVML cannot see: the PyTorch
 * caching allocator's out-of-memory message (what was asked, the GPU's capacity and free memory,
 * what PyTorch allocated and what it reserved but left unallocated) and the warning DeepSpeed and
 * SageMaker print when the allocator had to flush its cache to satisfy a step ("N pytorch allocator
 * cache flushes since last step"). A line is outside text: every number is bounded and checked. */
#include "diag_window_internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NOTE_MAX 4096    /* notes a window keeps; later ones are dropped */
#define SIZE_MAX_MIB 1e9 /* a petabyte: anything larger is not a GPU's memory */
#define FLUSHES_MAX 1000000

/* "12.50 GiB" (PyTorch's format_size: bytes, KiB, MiB, GiB) at s, in MiB; NAN when not a size. */
static double size_at(const char *s)
{
    while (*s == ' ')
        s++;
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v < 0)
        return NAN;
    while (*end == ' ')
        end++;
    static const struct {
        const char *unit;
        double mib;
    } units[] = {{"bytes", 1.0 / 1048576}, {"KiB", 1.0 / 1024}, {"MiB", 1}, {"GiB", 1024}, {"TiB", 1048576}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strncmp(end, units[i].unit, strlen(units[i].unit)) == 0) {
            double mib = v * units[i].mib;
            return mib <= SIZE_MAX_MIB ? mib : NAN;
        }
    return NAN;
}

/* The size right after the first occurrence of key in line; NAN when absent. */
static double size_after(const char *line, const char *key)
{
    const char *k = strstr(line, key);
    return k ? size_at(k + strlen(key)) : NAN;
}

/* The size right before " key" (the size ends where the key begins): "16.50 GiB is reserved by
 * PyTorch but unallocated". Walks back over the unit and the number. */
static double size_before(const char *line, const char *key)
{
    const char *k = strstr(line, key);
    if (!k || k == line)
        return NAN;
    const char *p = k;
    int words = 0;
    while (p > line && words < 2) { /* back over "GiB" and "16.50" */
        while (p > line && p[-1] == ' ')
            p--;
        while (p > line && p[-1] != ' ')
            p--;
        words++;
    }
    return size_at(p);
}

/* "GPU 3 has" / "(GPU 3;": the job's device number, -1 when not said. */
static int device_number(const char *line)
{
    const char *g = strstr(line, "GPU ");
    if (!g)
        return -1;
    char *end;
    long n = strtol(g + 4, &end, 10);
    return end != g + 4 && n >= 0 && n < 4096 ? (int)n : -1;
}

static int parse_oom(const char *line, diag_job_note *n)
{
    if (!strstr(line, "out of memory") || !strstr(line, "Tried to allocate"))
        return 0;
    n->kind = DIAG_NOTE_OOM;
    n->gpu = device_number(line);
    n->tried_mib = size_after(line, "Tried to allocate");
    if (strstr(line, "total capacity of") || strstr(line, "total capacty of")) {
        /* PyTorch 2.1 and later */
        n->capacity_mib = size_after(line, strstr(line, "capacity of") ? "capacity of" : "capacty of");
        n->free_mib = size_after(line, "of which");
        n->allocated_mib = size_after(line, "Of the allocated memory");
        n->unallocated_mib = size_before(line, " is reserved by PyTorch but unallocated");
        if (!isnan(n->allocated_mib) && !isnan(n->unallocated_mib))
            n->reserved_mib = n->allocated_mib + n->unallocated_mib;
    } else {
        /* earlier: "(GPU 0; 15.78 GiB total capacity; 14.56 GiB already allocated; 3.75 MiB free;
         * 14.72 GiB reserved in total by PyTorch)" */
        n->capacity_mib = size_before(line, " total capacity");
        n->allocated_mib = size_before(line, " already allocated");
        n->free_mib = size_before(line, " free;");
        n->reserved_mib = size_before(line, " reserved in total by PyTorch");
        if (!isnan(n->allocated_mib) && !isnan(n->reserved_mib) && n->reserved_mib >= n->allocated_mib)
            n->unallocated_mib = n->reserved_mib - n->allocated_mib;
    }
    return !isnan(n->tried_mib);
}

static int parse_flushes(const char *line, diag_job_note *n)
{
    const char *k = strstr(line, "pytorch allocator cache flushes since last step");
    if (!k)
        return 0;
    /* "3 pytorch allocator cache flushes since last step" (DeepSpeed, SageMaker), or the count after a
     * colon */
    const char *p = k;
    while (p > line && p[-1] == ' ')
        p--;
    while (p > line && p[-1] >= '0' && p[-1] <= '9')
        p--;
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p) {
        const char *c = strchr(k, ':');
        v = c ? strtol(c + 1, &end, 10) : 0;
    }
    n->kind = DIAG_NOTE_FLUSH;
    n->gpu = -1;
    n->flushes = v > 0 ? (int)(v < FLUSHES_MAX ? v : FLUSHES_MAX) : 1;
    return 1;
}

int diag_job_line(const char *line, diag_job_note *out)
{
    memset(out, 0, sizeof *out);
    out->tried_mib = out->capacity_mib = out->free_mib = NAN;
    out->allocated_mib = out->reserved_mib = out->unallocated_mib = NAN;
    if (!line)
        return 0;
    return parse_oom(line, out) || parse_flushes(line, out);
}

void diag_window_add_note(diag_window *w, int gpu, uint64_t t_us, const diag_job_note *n)
{
    if (!diag_window_gpu(w, gpu) || w->n_notes >= NOTE_MAX)
        return;
    if (w->n_notes == w->cap_notes) {
        int cap = w->cap_notes ? w->cap_notes * 2 : 8;
        diag_job_note *nn = realloc(w->notes, (size_t)cap * sizeof *nn);
        if (!nn) {
            w->oom = 1;
            return;
        }
        w->notes = nn;
        w->cap_notes = cap;
    }
    diag_job_note *d = &w->notes[w->n_notes++];
    *d = *n;
    d->gpu = gpu;
    d->t_us = t_us;
}
