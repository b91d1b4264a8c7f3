/* jobs.c - the `jobs` table of the history file: one row per `gpuwatch run` job (see jobs.h). */
#include "jobs.h"
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "files.h"
#include "store.h"
#include "util.h"

static const char *schema = "CREATE TABLE IF NOT EXISTS jobs(id TEXT PRIMARY KEY, name TEXT, command TEXT, user TEXT,"
                            " host TEXT, t_start INTEGER NOT NULL, t_end INTEGER, gpus TEXT, uuids TEXT,"
                            " exit_status INTEGER, simulated INTEGER, energy_j REAL, summary_text TEXT,"
                            " summary_json TEXT);"
                            "CREATE INDEX IF NOT EXISTS jobs_t ON jobs(t_start);";

/* Opens the file; writable creates it and the table. NULL with err filled. */
static sqlite3 *open_db(const char *path, int writable, char *err, size_t n)
{
    sqlite3 *db = NULL;
    if (store_check_files(path, err, n) != 0)
        return NULL;
    if (writable)
        gw_make_parent_dirs(path);
    int flags = writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
    int rc = sqlite3_open_v2(path, &db, flags, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, 5000);
        if (writable)
            rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL;", NULL, NULL, NULL);
        if (rc == SQLITE_OK && writable)
            rc = sqlite3_exec(db, schema, NULL, NULL, NULL);
    }
    if (rc != SQLITE_OK) {
        snprintf(err, n, "%s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

int history_job_save(const char *path, const history_job *j, char *err, size_t n)
{
    sqlite3 *db = open_db(path, 1, err, n);
    if (!db)
        return -1;
    sqlite3_stmt *st = NULL;
    int rc =
        sqlite3_prepare_v2(db,
                           "INSERT OR REPLACE INTO jobs(id, name, command, user, host, t_start, t_end, gpus, uuids,"
                           " exit_status, simulated, energy_j, summary_text, summary_json)"
                           " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                           -1, &st, NULL);
    if (rc == SQLITE_OK) {
        bind_text(st, 1, j->id);
        bind_text(st, 2, j->name);
        bind_text(st, 3, j->command);
        bind_text(st, 4, j->user);
        bind_text(st, 5, j->host);
        sqlite3_bind_int64(st, 6, j->t_start_us);
        if (j->t_end_us)
            sqlite3_bind_int64(st, 7, j->t_end_us);
        bind_text(st, 8, j->gpus);
        bind_text(st, 9, j->uuids);
        if (j->exit_status >= 0)
            sqlite3_bind_int(st, 10, j->exit_status);
        sqlite3_bind_int(st, 11, j->simulated);
        if (isfinite(j->energy_j))
            sqlite3_bind_double(st, 12, j->energy_j);
        bind_text(st, 13, j->summary_text);
        bind_text(st, 14, j->summary_json);
        rc = sqlite3_step(st);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    if (rc != SQLITE_OK)
        snprintf(err, n, "%s: %s", path, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -1;
}

static void col_text(sqlite3_stmt *st, int i, char *out, size_t n)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    gw_strlcpy(out, s ? (const char *)s : "", n);
}

static char *col_dup(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? strdup((const char *)s) : NULL;
}

#define JOB_COLUMNS "id, name, command, user, host, t_start, t_end, gpus, uuids, exit_status, simulated, energy_j"

static void read_row(sqlite3_stmt *st, history_job *j)
{
    memset(j, 0, sizeof *j);
    col_text(st, 0, j->id, sizeof j->id);
    col_text(st, 1, j->name, sizeof j->name);
    col_text(st, 2, j->command, sizeof j->command);
    col_text(st, 3, j->user, sizeof j->user);
    col_text(st, 4, j->host, sizeof j->host);
    j->t_start_us = sqlite3_column_int64(st, 5);
    j->t_end_us = sqlite3_column_type(st, 6) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 6);
    col_text(st, 7, j->gpus, sizeof j->gpus);
    col_text(st, 8, j->uuids, sizeof j->uuids);
    j->exit_status = sqlite3_column_type(st, 9) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 9);
    j->simulated = sqlite3_column_int(st, 10);
    j->energy_j = sqlite3_column_type(st, 11) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 11);
}

/* A file that does not exist, or has no jobs table, has no jobs: 1; else 0. */
static int no_jobs_table(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int none = 1;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name='jobs'", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        none = 0;
    sqlite3_finalize(st);
    return none;
}

int history_jobs_list(const char *path, int max, void (*cb)(void *ctx, const history_job *j), void *ctx, char *err,
                      size_t n)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return 0;
    sqlite3 *db = open_db(path, 0, err, n);
    if (!db)
        return -1;
    if (no_jobs_table(db)) {
        sqlite3_close(db);
        return 0;
    }
    sqlite3_stmt *st = NULL;
    int count = 0;
    if (sqlite3_prepare_v2(db, "SELECT " JOB_COLUMNS " FROM jobs ORDER BY t_start DESC LIMIT ?", -1, &st, NULL) !=
        SQLITE_OK) {
        snprintf(err, n, "%s: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    sqlite3_bind_int(st, 1, max);
    while (sqlite3_step(st) == SQLITE_ROW) {
        history_job j;
        read_row(st, &j);
        cb(ctx, &j);
        count++;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return count;
}

int history_job_get(const char *path, const char *id, history_job *out, char *err, size_t n)
{
    struct stat sb;
    memset(out, 0, sizeof *out);
    if (stat(path, &sb) != 0)
        return 0;
    sqlite3 *db = open_db(path, 0, err, n);
    if (!db)
        return -1;
    if (no_jobs_table(db)) {
        sqlite3_close(db);
        return 0;
    }
    sqlite3_stmt *st = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT " JOB_COLUMNS ", summary_text, summary_json FROM jobs WHERE id = ?1 OR"
                           " substr(id, 1, length(?1)) = ?1 ORDER BY id = ?1 DESC LIMIT 2",
                           -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, n, "%s: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (found == 1) {
            /* a second row: an exact id comes first, so this is a prefix of two ids */
            if (strcmp(out->id, id) == 0)
                break;
            snprintf(err, n, "'%s' names more than one job: give more of the id", id);
            history_job_free(out);
            found = -1;
            break;
        }
        read_row(st, out);
        out->summary_text = col_dup(st, 12);
        out->summary_json = col_dup(st, 13);
        found = 1;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return found;
}

void history_job_free(history_job *j)
{
    if (!j)
        return;
    free(j->summary_text);
    free(j->summary_json);
    j->summary_text = j->summary_json = NULL;
}
