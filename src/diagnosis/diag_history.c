/* diag_history.c - the window of `gpuwatch diagnose --db`: a range of the history file read back as
 * samples, process lists and events (history_read.h). */
#include "diag_sources.h"
#include "cli_common.h"
#include "history_read.h"
#include "sampler.h"
#include "timeparse.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int diag_history_path(const char *db, char *out, size_t n)
{
    hcli_db_path(db, out, n);
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

int diag_from_history(diag_window *w, const char *path, const char *since, const char *from, const char *to)
{
    int64_t now = (int64_t)gw_now_us(), t0, t1 = now;
    if (tp_parse_time(from ? from : since ? since : "30m", now, &t0) != 0) {
        fprintf(stderr, "gpuwatch diagnose: %s '%s': a time (RFC 3339, Unix seconds) or a duration back (30m)\n",
                from ? "--from" : "--since", from ? from : since);
        return GW_EXIT_USAGE;
    }
    if (to && tp_parse_time(to, now, &t1) != 0) {
        fprintf(stderr, "gpuwatch diagnose: --to '%s': a time (RFC 3339, Unix seconds) or a duration back\n", to);
        return GW_EXIT_USAGE;
    }
    if (t1 < t0) {
        fprintf(stderr, "gpuwatch diagnose: --to is before --from\n");
        return GW_EXIT_USAGE;
    }
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
