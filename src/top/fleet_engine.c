/* fleet_engine.c - one read of an engine for `top --prometheus`: an instant query per metric of the
 * fleet's lines, by gpuwatch's native name (or dcgm-exporter's when the native one has no series;
 * the name that answered is tried first the next time), narrowed by --match; then
 * gpuwatch_gpu_job_info for who the GPUs work for. The series become hosts and GPUs (fleet_prom.c)
 * and go into the model at once; a host the model knows that has no series left in the engine
 * (Prometheus marks a stopped target's series stale at its next scrape) is not reporting since its
 * last read. An engine that cannot be read is said once, and the hosts keep their last read. */
#include "top_fleet.h"
#include "prom_client.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOB_INFO "gpuwatch_gpu_job_info"
#define SILENT_WHY "no series in the engine (stale or gone)"
#define RECENT "15m" /* the hosts that reported within it are listed from the start */

struct fleet_engine {
    prom_client *pc;
    char match[FLEET_MATCH_MAX];
    unsigned char dcgm[32]; /* per fleet metric: dcgm-exporter's name answered last */
    int recent_done;        /* the hosts that reported lately have been asked for */
};

int fleet_match_check(const gw_opt *opt, const char *value, void *out, char *why, size_t n)
{
    size_t len = value ? strlen(value) : 0;
    int printable = 1;
    for (size_t i = 0; i < len; i++)
        printable &= (unsigned char)value[i] >= 0x20 && (unsigned char)value[i] < 0x7f;
    if (len < 2 || value[0] != '{' || value[len - 1] != '}' || !printable || len >= FLEET_MATCH_MAX) {
        snprintf(why, n,
                 "expected a selector in braces of printable ASCII, at most %d bytes ({job=\"gpu\"}), got '%.*s'",
                 FLEET_MATCH_MAX - 1, 200, value ? value : "");
        return -1;
    }
    *(const char **)gw_opt_dst(opt, out) = value;
    return 0;
}

fleet_engine *fleet_engine_open(const char *url, const char *match, const top_remote_opts *o, double timeout_s,
                                char *err, size_t n)
{
    fleet_engine *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    http_client_opts ho = {.cacert = o->cacert,
                           .insecure = o->insecure,
                           .user = o->user,
                           .password_file = o->password_file,
                           .user_agent = "gpuwatch-top",
                           .timeout_ms = (long)(timeout_s * 1000)};
    gw_strlcpy(e->match, match ? match : "", sizeof e->match);
    if (!(e->pc = prom_client_open(url, &ho, err, n))) {
        free(e);
        return NULL;
    }
    return e;
}

void fleet_engine_close(fleet_engine *e)
{
    if (!e)
        return;
    prom_client_close(e->pc);
    free(e);
}

/* The series of metric k into f, by the name that has them; 0 (with *missing set when neither name
 * has any), or -1 with err filled when the engine cannot be read. */
static int read_metric(fleet_engine *e, int k, prom_fleet *f, uint64_t now, int *missing, char *err, size_t n)
{
    const metric_def *d = catalog_get(fleet_metrics[k]);
    const char *names[2] = {d->prom, d->dcgm};
    double scale[2] = {d->prom_scale ? 1 / d->prom_scale : 1, d->dcgm_scale ? 1 / d->dcgm_scale : 1};
    char query[FLEET_MATCH_MAX + 128];
    *missing = 1;
    for (int attempt = 0; attempt < 2; attempt++) {
        int which = (e->dcgm[k] + attempt) % 2;
        if (!names[which])
            continue;
        snprintf(query, sizeof query, "%s%s", names[which], e->match);
        prom_result r;
        if (prom_client_query(e->pc, query, now, &r, err, n) != 0)
            return -1;
        int found = r.n > 0;
        int rc = found ? prom_fleet_add(f, fleet_metrics[k], scale[which], &r) : 0;
        prom_result_free(&r);
        if (rc != 0) {
            snprintf(err, n, "out of memory");
            return -1;
        }
        if (found) {
            e->dcgm[k] = (unsigned char)which;
            *missing = 0;
            return 0;
        }
    }
    return 0;
}

/* What the answers lacked or left out, in a few words ("" when nothing). */
static void answer_note(const prom_fleet *f, const char *missing, char *out, size_t n)
{
    snprintf(out, n, "%s%s", missing[0] ? "no series of " : "", missing);
    int left = f->no_host + f->no_gpu + f->duplicate + f->bad_value + f->hosts_left_out + f->gpus_left_out;
    if (left)
        snprintf(out + strlen(out), n - strlen(out),
                 "%s%d series left out (%d without instance/Hostname, %d without gpu/UUID, %d repeated, %d out "
                 "of range, %d past the caps)",
                 missing[0] ? "; " : "", left, f->no_host, f->no_gpu, f->duplicate, f->bad_value,
                 f->hosts_left_out + f->gpus_left_out);
}

/* Once, after the first good read: the hosts whose utilization series reported within RECENT but
 * not now, with the time of their last sample (the step of a subquery of timestamp()), listed as not
 * reporting since then. Nothing when the engine cannot say. */
static void read_recent(fleet_engine *e, fleet_model *m, uint64_t now)
{
    const metric_def *d = catalog_get(fleet_metrics[0]);
    const char *name = e->dcgm[0] && d->dcgm ? d->dcgm : d->prom;
    char query[FLEET_MATCH_MAX + 256], err[600], key[FLEET_ADDR_LEN];
    snprintf(query, sizeof query, "max by (instance, Hostname) (last_over_time(timestamp(%s%s)[" RECENT ":1s]))", name,
             e->match);
    prom_result r;
    e->recent_done = 1;
    if (prom_client_query(e->pc, query, now, &r, err, sizeof err) != 0)
        return;
    pthread_mutex_lock(&m->lock);
    for (int i = 0; i < r.n; i++) {
        const prom_series *s = &r.s[i];
        if (s->n < 1 || prom_host_key(s, key, sizeof key) != 0 || s->v[s->n - 1] <= 0)
            continue;
        int known = 0;
        for (int h = 0; h < m->nhosts && !known; h++)
            known = strcmp(m->hosts[h].addr, key) == 0;
        int h = known ? -1 : fleet_model_host(m, key);
        if (h >= 0)
            fleet_host_silent(m, h, SILENT_WHY, (uint64_t)(s->v[s->n - 1] * 1e6));
    }
    pthread_mutex_unlock(&m->lock);
    prom_result_free(&r);
}

void fleet_engine_read(fleet_engine *e, fleet_model *m)
{
    char err[600], why[300], missing[200] = "", note[256];
    prom_fleet f;
    uint64_t now = gw_now_us();
    if (prom_fleet_init(&f) != 0) {
        pthread_mutex_lock(&m->lock);
        fleet_engine_state(m, "out of memory", NULL, now);
        pthread_mutex_unlock(&m->lock);
        return;
    }
    int rc = 0, none = 0;
    for (int k = 0; k < fleet_nmetrics && rc == 0; k++) {
        rc = read_metric(e, k, &f, now, &none, err, sizeof err);
        if (rc == 0 && none)
            snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s", missing[0] ? ", " : "",
                     catalog_get(fleet_metrics[k])->prom);
    }
    if (rc == 0) {
        char query[FLEET_MATCH_MAX + 64];
        prom_result r;
        snprintf(query, sizeof query, JOB_INFO "%s", e->match);
        rc = prom_client_query(e->pc, query, now, &r, err, sizeof err);
        if (rc == 0 && prom_fleet_add_jobs(&f, &r) != 0)
            rc = -1, snprintf(err, sizeof err, "out of memory");
        if (rc == 0)
            prom_result_free(&r);
    }
    prom_fleet_sort(&f);
    uint64_t wall = gw_now_us();
    pthread_mutex_lock(&m->lock);
    if (rc != 0) {
        fleet_reason(err, why, sizeof why);
        fleet_engine_state(m, why, NULL, wall);
    } else {
        answer_note(&f, missing, note, sizeof note);
        fleet_engine_state(m, NULL, note, wall);
        unsigned char seen[FLEET_MAX_HOSTS] = {0};
        for (int i = 0; i < f.n; i++) {
            int h = fleet_model_host(m, f.h[i].addr);
            if (h < 0)
                continue;
            seen[h] = 1;
            fleet_host_read_engine(m, h, &f.h[i].gpus, &f.h[i].who, wall);
        }
        for (int h = 0; h < m->nhosts; h++)
            if (!seen[h] && m->hosts[h].reach == HOST_UP)
                fleet_host_silent(m, h, SILENT_WHY, 0);
    }
    pthread_mutex_unlock(&m->lock);
    prom_fleet_free(&f);
    if (rc == 0 && !e->recent_done)
        read_recent(e, m, now);
}
