/* history.c - a history handle's life: configuration, the default path, open/close and the writer thread. */
#include "hist_internal.h"
#include "files.h"
#include "util.h"
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void history_config_defaults(history_config *c)
{
    memset(c, 0, sizeof *c);
    c->flush_interval_s = 10;
    c->raw_retention_s = 7 * 86400.0;
    c->rollup_retention_s = 90 * 86400.0;
    c->max_buffer = 64u << 20;
    c->chunk_span_s = 600;
}

/* The scenario's name, safe as a file name: "demo-8gpu" for .../demo-8gpu.yaml. */
static void scenario_stem(const char *scenario, char *out, size_t n)
{
    const char *base = strrchr(scenario, '/');
    base = base ? base + 1 : scenario;
    size_t len = strlen(base), k = 0;
    if (len > 5 && strcmp(base + len - 5, ".yaml") == 0)
        len -= 5;
    for (size_t i = 0; i < len && k + 1 < n; i++) {
        unsigned char c = (unsigned char)base[i];
        out[k++] = isalnum(c) || c == '-' || c == '_' || c == '.' ? (char)c : '_';
    }
    out[k] = 0;
    if (!k || out[0] == '.')
        snprintf(out, n, "scenario");
}

void history_default_path(char *out, size_t n)
{
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    char dir[4096];
    if (geteuid() == 0)
        snprintf(dir, sizeof dir, "/var/lib/gpuwatch");
    else if (xdg && *xdg)
        snprintf(dir, sizeof dir, "%.4000s/gpuwatch", xdg);
    else
        snprintf(dir, sizeof dir, "%.4000s/.local/state/gpuwatch", home && *home ? home : ".");
    /* on gpusim (--sim sets GPUSIM_SCENARIO for the library): a file of the scenario's own, so that
     * simulated readings never go into the machine's real history */
    const char *scenario = getenv("GPUSIM_SCENARIO");
    if (scenario && *scenario) {
        char stem[200];
        scenario_stem(scenario, stem, sizeof stem);
        snprintf(out, n, "%s/simulated/%s.db", dir, stem);
    } else {
        snprintf(out, n, "%s/history.db", dir);
    }
}

const char *history_path(const history *h)
{
    return h->path;
}

void history_round_end(history *h)
{
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    if (h->sealed && h->thread_on)
        pthread_cond_signal(&h->wake);
    h->sealed = 0;
    pthread_mutex_unlock(&h->mu);
}

static void *writer_main(void *arg)
{
    history *h = arg;
    pthread_mutex_lock(&h->mu);
    while (!h->stopping) {
        struct timespec ts; /* on the monotonic clock (h->wake's): a wall-clock step delays no flush */
        clock_gettime(CLOCK_MONOTONIC, &ts);
        double secs = h->cfg.flush_interval_s;
        ts.tv_sec += (time_t)secs;
        ts.tv_nsec += (long)((secs - (double)(time_t)secs) * 1e9);
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&h->wake, &h->mu, &ts);
        if (h->stopping)
            break;
        pthread_mutex_unlock(&h->mu);
        history_flush(h);
        pthread_mutex_lock(&h->mu);
    }
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

history *history_open(const history_config *cfg, char *err, size_t n)
{
    history_config c;
    if (cfg)
        c = *cfg;
    else
        history_config_defaults(&c);
    if (c.flush_interval_s <= 0 || c.raw_retention_s <= 0 || c.rollup_retention_s <= 0 || c.chunk_span_s <= 0) {
        snprintf(err, n, "history: flush_interval, retentions and chunk span must be positive");
        return NULL;
    }
    if (c.max_buffer == 0)
        c.max_buffer = 64u << 20;
    history *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, n, "history: out of memory");
        return NULL;
    }
    h->cfg = c;
    if (c.path && *c.path)
        gw_strlcpy(h->path, c.path, sizeof h->path);
    else
        history_default_path(h->path, sizeof h->path);
    h->cfg.path = h->path;
    pthread_mutex_init(&h->mu, NULL);
    pthread_mutex_init(&h->flush_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&h->wake, &ca);
    pthread_condattr_destroy(&ca);
    /* A write past RLIMIT_FSIZE must fail with EFBIG (logged, retried), not kill the agent. */
    struct sigaction sa;
    if (sigaction(SIGXFSZ, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL)
        signal(SIGXFSZ, SIG_IGN);
    gw_make_parent_dirs(h->path);
    history_flush(h); /* opens the file now when it can (logged when not) */
    if (!c.no_thread) {
        if (pthread_create(&h->thread, NULL, writer_main, h) != 0) {
            snprintf(err, n, "history: cannot start the writer thread");
            history_close(h);
            return NULL;
        }
        h->thread_on = 1;
    }
    return h;
}

void history_close(history *h)
{
    if (!h)
        return;
    if (h->thread_on) {
        pthread_mutex_lock(&h->mu);
        h->stopping = 1;
        pthread_cond_signal(&h->wake);
        pthread_mutex_unlock(&h->mu);
        pthread_join(h->thread, NULL);
    }
    pthread_mutex_lock(&h->mu);
    for (int g = 0; g < HIST_MAX_GPUS; g++)
        if (h->gpus[g] && h->gpus[g]->g.n)
            hist_seal_gpu(h, g);
    for (int i = 0; i < HIST_MAX_PROCS; i++)
        if (h->procs[i] && h->procs[i]->n)
            hist_seal_proc(h, h->procs[i]);
    pthread_mutex_unlock(&h->mu);
    if (history_flush(h) != 0)
        gw_log(GW_LOG_WARN, "history: closing with unwritten data", "path=%s buffered_bytes=%zu", h->path,
               h->pending_bytes);
    if (h->st) {
        /* pages the open chunks' checkpoint pieces used are free now: the file gives them back */
        store_exec(h->st, "PRAGMA incremental_vacuum");
        store_exec(h->st, "PRAGMA wal_checkpoint(TRUNCATE)");
        store_close(h->st);
    }
    hist_free_memory(h);
    hist_alert_states_free(h->alert_states);
    pthread_cond_destroy(&h->wake);
    pthread_mutex_destroy(&h->flush_mu);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

void history_get_stats(history *h, history_stats *out)
{
    pthread_mutex_lock(&h->mu);
    *out = h->stats;
    out->buffered = h->pending_bytes;
    pthread_mutex_unlock(&h->mu);
}

size_t history_open_slots(history *h)
{
    size_t n = 0;
    pthread_mutex_lock(&h->mu);
    for (int g = 0; g < HIST_MAX_GPUS; g++)
        if (h->gpus[g])
            n += h->gpus[g]->g.n - h->gpus[g]->g.base;
    for (int i = 0; i < HIST_MAX_PROCS; i++)
        if (h->procs[i])
            n += h->procs[i]->n - h->procs[i]->base;
    pthread_mutex_unlock(&h->mu);
    return n;
}

void history_set_limits(history *h, const history_config *cfg)
{
    if (cfg->flush_interval_s <= 0 || cfg->raw_retention_s <= 0 || cfg->rollup_retention_s <= 0)
        return;
    pthread_mutex_lock(&h->flush_mu);
    pthread_mutex_lock(&h->mu);
    h->cfg.flush_interval_s = cfg->flush_interval_s;
    h->cfg.raw_retention_s = cfg->raw_retention_s;
    h->cfg.rollup_retention_s = cfg->rollup_retention_s;
    h->cfg.max_size = cfg->max_size;
    pthread_cond_signal(&h->wake); /* the writer waits with the new interval from now on */
    pthread_mutex_unlock(&h->mu);
    pthread_mutex_unlock(&h->flush_mu);
}
