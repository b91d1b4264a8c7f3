/* alert_states.c - the alert engine's latest state in the history file (tables alert_states and
 * alert_findings): kept when the alerts plugin hands it over, written whole by the next flush (the
 * writer is woken at once), read back when an agent starts again (docs/alerts.md). */
#include "hist_internal.h"
#include "util.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void hist_alert_states_free(alert_records *r)
{
    if (!r)
        return;
    alert_records_free(r);
    free(r);
}

void history_set_alert_states(history *h, const alert_records *states)
{
    if (!h)
        return;
    alert_records *copy = malloc(sizeof *copy);
    if (!copy || alert_records_copy(copy, states) != 0) {
        free(copy);
        gw_log(GW_LOG_WARN, "history: out of memory, the alert states are not recorded", NULL);
        return;
    }
    pthread_mutex_lock(&h->mu);
    alert_records *old = h->alert_states;
    h->alert_states = copy;
    if (h->thread_on)
        pthread_cond_signal(&h->wake);
    pthread_mutex_unlock(&h->mu);
    hist_alert_states_free(old);
}

/* Steps a bound statement to its end and resets it: SQLITE_OK or the error. */
static int step_reset(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int put_alert(sqlite3_stmt *st, const alert_record *a)
{
    sqlite3_bind_text(st, 1, a->rule, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, a->labels, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, a->annotations, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, a->firing != 0);
    const int64_t times[] = {a->active_at_us, a->fired_at_us, a->last_sent_at_us, a->valid_until_us,
                             a->keep_firing_since_us};
    for (int i = 0; i < 5; i++)
        sqlite3_bind_int64(st, 5 + i, times[i]);
    sqlite3_bind_double(st, 10, a->value);
    return step_reset(st);
}

int hist_write_alert_states(store *s, const alert_records *r)
{
    sqlite3 *db = store_db(s);
    sqlite3_stmt *a = NULL, *f = NULL;
    int rc = store_exec(s, "DELETE FROM alert_states; DELETE FROM alert_findings;");
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "INSERT INTO alert_states VALUES(?,?,?,?,?,?,?,?,?,?)", -1, &a, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "INSERT INTO alert_findings VALUES(?,?,?)", -1, &f, NULL);
    for (int i = 0; rc == SQLITE_OK && i < r->nalerts; i++)
        rc = put_alert(a, &r->alerts[i]);
    for (int i = 0; rc == SQLITE_OK && i < r->nfindings; i++) {
        sqlite3_bind_int(f, 1, r->findings[i].gpu);
        sqlite3_bind_text(f, 2, r->findings[i].detector, -1, SQLITE_STATIC);
        sqlite3_bind_int(f, 3, r->findings[i].level);
        rc = step_reset(f);
    }
    sqlite3_finalize(a);
    sqlite3_finalize(f);
    return rc;
}

/* ---- reading them back ---- */

/* The newest time of one query's single value (0 for none). */
static int has_table(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        found = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return found;
}

/* Column i as a copy, NULL when absent, too long or out of memory (*oom set for the last). */
static char *text_at(sqlite3_stmt *st, int i, int *oom)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    if (!t || sqlite3_column_bytes(st, i) > HISTORY_ALERT_TEXT_MAX)
        return NULL;
    char *s = strdup((const char *)t);
    *oom |= !s;
    return s;
}

/* One alert_states row into a (a NULL rule or labels: a row to skip). Returns -1 when out of memory. */
static int read_alert(sqlite3_stmt *st, alert_record *a)
{
    int oom = 0;
    memset(a, 0, sizeof *a);
    a->rule = text_at(st, 0, &oom);
    a->labels = text_at(st, 1, &oom);
    a->annotations = text_at(st, 2, &oom);
    int firing = sqlite3_column_int(st, 3);
    int64_t *times[] = {&a->active_at_us, &a->fired_at_us, &a->last_sent_at_us, &a->valid_until_us,
                        &a->keep_firing_since_us};
    for (int i = 0; i < 5; i++)
        *times[i] = sqlite3_column_int64(st, 4 + i);
    a->value = sqlite3_column_double(st, 9);
    a->firing = firing == 1;
    a->gpu = -1; /* the display fields are not kept in the file */
    if (!a->annotations && !oom)
        a->annotations = strdup("{}");
    int bad = (firing != 0 && firing != 1) || a->active_at_us <= 0 || (a->firing && a->fired_at_us < a->active_at_us);
    if (oom || bad || !a->rule || !a->labels || !a->annotations) {
        free(a->rule);
        free(a->labels);
        free(a->annotations);
        memset(a, 0, sizeof *a);
    }
    return oom ? -1 : 0;
}

/* Room for one more of *n items of size sz in *v (capacity *cap). Returns 0, or -1 when out of memory. */
static int grow(void **v, int n, int *cap, size_t sz)
{
    if (n < *cap)
        return 0;
    int c = *cap ? *cap * 2 : 16;
    void *p = realloc(*v, (size_t)c * sz);
    if (!p)
        return -1;
    *v = p;
    *cap = c;
    return 0;
}

static int read_alerts(sqlite3 *db, alert_records *out, int *skipped)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT * FROM alert_states", -1, &st, NULL), step = SQLITE_DONE, cap = 0;
    while (rc == SQLITE_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->nalerts == HISTORY_MAX_ALERT_STATES) {
            ++*skipped;
            continue;
        }
        if (grow((void **)&out->alerts, out->nalerts, &cap, sizeof *out->alerts) != 0 ||
            read_alert(st, &out->alerts[out->nalerts]) != 0)
            rc = SQLITE_NOMEM;
        else if (out->alerts[out->nalerts].rule)
            out->nalerts++;
        else
            ++*skipped;
    }
    if (rc == SQLITE_OK && step != SQLITE_DONE)
        rc = step;
    sqlite3_finalize(st);
    return rc;
}

static int read_findings(sqlite3 *db, alert_records *out, int *skipped)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT gpu, detector, level FROM alert_findings", -1, &st, NULL);
    int step = SQLITE_DONE, cap = 0;
    while (rc == SQLITE_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *det = sqlite3_column_text(st, 1);
        int gpu = sqlite3_column_int(st, 0), level = sqlite3_column_int(st, 2);
        if (!det || strlen((const char *)det) >= ALERT_RECORD_FINDING_MAX || gpu < 0 || level < 1 || level > 3 ||
            out->nfindings == HISTORY_MAX_ALERT_STATES) {
            ++*skipped;
            continue;
        }
        if (grow((void **)&out->findings, out->nfindings, &cap, sizeof *out->findings) != 0) {
            rc = SQLITE_NOMEM;
            break;
        }
        finding_record *f = &out->findings[out->nfindings++];
        f->gpu = gpu;
        f->level = level;
        gw_strlcpy(f->detector, (const char *)det, sizeof f->detector);
    }
    if (rc == SQLITE_OK && step != SQLITE_DONE)
        rc = step;
    sqlite3_finalize(st);
    return rc;
}

int history_read_alert_states(const char *path, alert_records *out, int64_t *last_seen_us, int *skipped, char *err,
                              size_t n)
{
    memset(out, 0, sizeof *out);
    *last_seen_us = 0;
    *skipped = 0;
    struct stat sb;
    if (stat(path, &sb) != 0 && errno == ENOENT)
        return 0;
    store *st = store_open(path, 1, err, n);
    if (!st)
        return -1;
    sqlite3 *db = store_db(st);
    *last_seen_us = store_newest_sample_us(st);
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db, "SELECT max(t) FROM events", -1, &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int64(q, 0) > *last_seen_us)
        *last_seen_us = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    int rc = SQLITE_OK;
    if (has_table(db, "alert_states"))
        rc = read_alerts(db, out, skipped);
    if (rc == SQLITE_OK && has_table(db, "alert_findings"))
        rc = read_findings(db, out, skipped);
    if (rc != SQLITE_OK) {
        snprintf(err, n, "%s: %s", path, sqlite3_errstr(rc));
        alert_records_free(out);
    }
    store_close(st);
    return rc == SQLITE_OK ? 0 : -1;
}
