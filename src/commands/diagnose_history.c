/* diagnose_history.c - the window of `gpuwatch diagnose --db`: a range of the history file read back as
 * samples, process lists and events (history_read.h). */
#include "diagnose_sources.h"
#include "history_locate.h"
#include "history_read.h"
#include "sampler.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int diagnose_history_path(const char *db, char *out, size_t n)
{
    history_locate(db, out, n);
    if (access(out, R_OK) != 0) {
        fprintf(stderr, "gpuwatch diagnose: no history file %s%s\n", out,
                db ? "" : " (give --db PATH, or diagnose --live 5m / --host HOST:PORT)");
        return 1;
    }
    return 0;
}

static void on_sample(void *ctx, int gpu, const gpu_info *info, const gpu_sample *s)
{
    diag_window_add_sample(ctx, gpu, info, s);
}

static void on_processes(void *ctx, int gpu, uint64_t t_us, const gpu_proc *procs, int n)
{
    diag_window_add_processes(ctx, gpu, t_us, procs, n);
}

/* XIDs and lost GPUs as the history recorded them. */
static void on_event(void *ctx, const gw_event *ev)
{
    diag_window_note_event(ctx, ev);
}

int diagnose_from_history(diag_window *w, const char *path, int64_t from_us, int64_t to_us)
{
    int64_t t0 = from_us, t1 = to_us;
    history_reader r = {w, on_sample, on_processes, on_event};
    char err[256];
    long n = history_read_range(path, t0, t1, NULL, &r, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "gpuwatch diagnose: %s: %s\n", path, err);
        return 1;
    }
    if (n == 0)
        fprintf(stderr, "gpuwatch diagnose: %s has no samples in that range\n", path);
    return 0;
}
