/* store.c - the history SQLite file: schema, upserts of chunks and metadata, roll-ups, retention. */
#include "store.h"
#include "files.h"
#include "codec.h"
#include "rollup.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct store {
    sqlite3 *db;
    int readonly;
    int dbid[M_COUNT]; /* catalog id -> metrics.id (0 = not looked up / unknown) */
    int looked[M_COUNT];
    sqlite3_stmt *put_chunk, *put_open, *put_proc_chunk, *get_pieces;
    sqlite3_stmt *queries[SQ_COUNT];
};

static const char *schema =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE IF NOT EXISTS metrics(id INTEGER PRIMARY KEY, field TEXT UNIQUE NOT NULL);"
    "CREATE TABLE IF NOT EXISTS gpus(idx INTEGER PRIMARY KEY, uuid TEXT, name TEXT, serial TEXT,"
    " pci_bus_id TEXT, first_seen INTEGER, last_seen INTEGER);"
    /* sealed chunks: append-only (rowid order = write order keeps pages full), found through chunks_key */
    "CREATE TABLE IF NOT EXISTS chunks(id INTEGER PRIMARY KEY, gpu INTEGER NOT NULL, metric INTEGER NOT NULL,"
    " t_start INTEGER NOT NULL, t_end INTEGER NOT NULL, n INTEGER NOT NULL, blob BLOB NOT NULL);"
    "CREATE UNIQUE INDEX IF NOT EXISTS chunks_key ON chunks(gpu, metric, t_start);"
    "CREATE INDEX IF NOT EXISTS chunks_groups ON chunks(t_start) WHERE metric = 0;"
    "CREATE INDEX IF NOT EXISTS chunks_bundles ON chunks(t_start) WHERE metric = -1;"
    /* checkpoints of the chunks still open in memory, rewritten at each flush */
    "CREATE TABLE IF NOT EXISTS open_chunks(gpu INTEGER NOT NULL, metric INTEGER NOT NULL, t_start INTEGER NOT NULL,"
    " t_end INTEGER NOT NULL, n INTEGER NOT NULL, blob BLOB NOT NULL, PRIMARY KEY(gpu, metric, t_start)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS rollups(gpu INTEGER NOT NULL, metric INTEGER NOT NULL, t_start INTEGER NOT NULL,"
    " t_end INTEGER NOT NULL, n INTEGER NOT NULL, blob BLOB NOT NULL, PRIMARY KEY(gpu, metric, t_start)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS procs(gpu INTEGER NOT NULL, pid INTEGER NOT NULL, start_time INTEGER NOT NULL,"
    " name TEXT, command TEXT, user TEXT, container TEXT, first_seen INTEGER, last_seen INTEGER,"
    " PRIMARY KEY(gpu, pid, start_time));"
    "CREATE TABLE IF NOT EXISTS proc_chunks(gpu INTEGER NOT NULL, pid INTEGER NOT NULL, t_start INTEGER NOT NULL,"
    " t_end INTEGER NOT NULL, n INTEGER NOT NULL, blob BLOB NOT NULL, PRIMARY KEY(gpu, pid, t_start)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS events(id INTEGER PRIMARY KEY, t INTEGER NOT NULL, gpu INTEGER NOT NULL,"
    " kind TEXT NOT NULL, detail TEXT);"
    "CREATE INDEX IF NOT EXISTS events_t ON events(t);"
    /* the alert engine's latest state (alert_states.c), rewritten whole when it changes */
    "CREATE TABLE IF NOT EXISTS alert_states(rule TEXT NOT NULL, labels TEXT NOT NULL, annotations TEXT NOT NULL,"
    " firing INTEGER NOT NULL, active_at INTEGER NOT NULL, fired_at INTEGER NOT NULL, last_sent_at INTEGER NOT NULL,"
    " valid_until INTEGER NOT NULL, keep_firing_since INTEGER NOT NULL, value REAL NOT NULL);"
    "CREATE TABLE IF NOT EXISTS alert_findings(gpu INTEGER NOT NULL, detector TEXT NOT NULL, level INTEGER NOT NULL);"
    "INSERT OR REPLACE INTO meta VALUES('format', '2');";

int store_exec(store *s, const char *sql)
{
    return sqlite3_exec(s->db, sql, NULL, NULL, NULL);
}
sqlite3 *store_db(store *s)
{
    return s->db;
}

static int64_t newest(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t t = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        t = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return t;
}

int64_t store_newest_sample_us(store *s)
{
    int64_t open = newest(s->db, "SELECT max(t_end) FROM open_chunks");
    int64_t sealed = newest(s->db, "SELECT max(t_end) FROM (SELECT t_end FROM chunks ORDER BY id DESC LIMIT 1024)");
    return open > sealed ? open : sealed;
}

/* SQLite gives the -wal and -shm files the database's mode when it creates them, so a run on a
 * read-only file leaves read-only ones behind; once the file is writable again, so are they. */
static void fix_sidecar_modes(const char *path)
{
    struct stat db;
    if (stat(path, &db) != 0 || access(path, W_OK) != 0)
        return;
    const char *sfx[] = {"-wal", "-shm"};
    for (int i = 0; i < 2; i++) {
        char side[4200];
        snprintf(side, sizeof side, "%s%s", path, sfx[i]);
        if (access(side, F_OK) == 0 && access(side, W_OK) != 0)
            chmod(side, db.st_mode & 0666);
    }
}

store *store_open(const char *path, int readonly, char *err, size_t n)
{
    int rc;
    return store_open_rc(path, readonly, &rc, err, n);
}

/* The file and the side files SQLite opens with it: none may be a FIFO (the open would block for
 * ever) or a device. 0, or -1 with err filled. */
int store_check_files(const char *path, char *err, size_t n)
{
    const char *sfx[] = {"", "-wal", "-shm", "-journal"};
    for (int i = 0; i < 4; i++) {
        char p[4200], why[128];
        snprintf(p, sizeof p, "%s%s", path, sfx[i]);
        if (gw_regular_or_missing(p, why, sizeof why) != 0) {
            snprintf(err, n, "%s: %s", p, why);
            return -1;
        }
    }
    return 0;
}

store *store_open_rc(const char *path, int readonly, int *why, char *err, size_t n)
{
    store *s = calloc(1, sizeof *s);
    *why = SQLITE_NOMEM;
    if (!s) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    s->readonly = readonly;
    if (store_check_files(path, err, n) != 0) {
        *why = SQLITE_CANTOPEN;
        free(s);
        return NULL;
    }
    if (!readonly)
        fix_sidecar_modes(path);
    int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    int rc = sqlite3_open_v2(path, &s->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(s->db, 2000);
        sqlite3_extended_result_codes(s->db, 0);
    }
    if (rc == SQLITE_OK && !readonly) {
        /* The writer lives as long as the agent: no lookaside slab (up to 120 KB held for small
         * allocations that malloc serves as well here), and a 128 KiB page cache (it appends). */
        sqlite3_db_config(s->db, SQLITE_DBCONFIG_LOOKASIDE, NULL, 0, 0);
        /* cell_size_check: a page whose cells point outside it is an error when the page is read
         * (docs/reliability.md, "Data"), where SQLite would otherwise rebuild it on the next insert
         * and drop its rows without a word.
         * auto_vacuum takes effect before the first table exists; harmless afterwards. The page size
         * stays 4 KiB: 8 and 16 KiB gained on some data (1.55 B/sample on training-8gpu) and lost on
         * other (2.0 on the synthetic load, whose ~4.1 KB columns pack badly); 4 KiB gave 1.64-1.66 on both. */
        rc = store_exec(s, "PRAGMA auto_vacuum=INCREMENTAL; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                           " PRAGMA cache_size=-128; PRAGMA cell_size_check=ON;");
        if (rc == SQLITE_OK && sqlite3_db_readonly(s->db, "main") == 1)
            rc = SQLITE_READONLY;
        if (rc == SQLITE_OK)
            rc = store_exec(s, schema);
    } else if (rc == SQLITE_OK) {
        /* A reader may be kept between queries (query_json.c): a small page cache, as the writer's. */
        rc = sqlite3_exec(s->db, "PRAGMA cache_size=-256; PRAGMA cell_size_check=ON; SELECT 1 FROM chunks LIMIT 1",
                          NULL, NULL, NULL);
    }
    if (rc != SQLITE_OK) {
        snprintf(err, n, "%s: %s", path, s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
        if (rc == SQLITE_READONLY)
            snprintf(err, n, "%s: file is read-only", path);
        *why = rc;
        store_close(s);
        return NULL;
    }
    return s;
}

void store_close(store *s)
{
    if (!s)
        return;
    sqlite3_finalize(s->put_chunk);
    sqlite3_finalize(s->put_open);
    sqlite3_finalize(s->put_proc_chunk);
    sqlite3_finalize(s->get_pieces);
    for (int i = 0; i < SQ_COUNT; i++)
        sqlite3_finalize(s->queries[i]);
    sqlite3_close(s->db);
    free(s);
}

sqlite3_stmt *store_query_stmt(store *s, store_query q, const char *sql)
{
    if (!s->queries[q] &&
        sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->queries[q], NULL) != SQLITE_OK)
        return NULL;
    return s->queries[q];
}

int store_metric_id(store *s, metric_id m)
{
    if (m < M_STR_END || m >= M_COUNT)
        return 0;
    if (s->looked[m] && s->dbid[m])
        return s->dbid[m];
    const char *field = catalog_get(m)->field;
    sqlite3_stmt *st = NULL;
    int id = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT id FROM metrics WHERE field=?", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, field, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            id = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
    if (!id && !s->readonly &&
        sqlite3_prepare_v2(s->db, "INSERT INTO metrics(field) VALUES(?)", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, field, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_DONE)
            id = (int)sqlite3_last_insert_rowid(s->db);
        sqlite3_finalize(st);
    }
    s->looked[m] = 1;
    s->dbid[m] = id;
    return id;
}

int store_metric_of(store *s, int dbid)
{
    for (int m = M_STR_END; m < M_COUNT; m++)
        if (s->looked[m] && s->dbid[m] == dbid)
            return m;
    sqlite3_stmt *st = NULL;
    int out = -1;
    if (sqlite3_prepare_v2(s->db, "SELECT field FROM metrics WHERE id=?", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int(st, 1, dbid);
        if (sqlite3_step(st) == SQLITE_ROW) {
            const metric_def *d = catalog_find((const char *)sqlite3_column_text(st, 0));
            if (d) {
                out = (int)d->id;
                s->dbid[d->id] = dbid;
                s->looked[d->id] = 1;
            }
        }
    }
    sqlite3_finalize(st);
    return out;
}

static int step_done(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int put_series(store *s, sqlite3_stmt **cache, const char *sql, int gpu, int64_t key, int64_t t_start,
                      int64_t t_end, int64_t n, const gw_buf *blob)
{
    if (!*cache && sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, cache, NULL) != SQLITE_OK)
        return sqlite3_errcode(s->db);
    sqlite3_stmt *st = *cache;
    sqlite3_bind_int(st, 1, gpu);
    sqlite3_bind_int64(st, 2, key);
    sqlite3_bind_int64(st, 3, t_start);
    sqlite3_bind_int64(st, 4, t_end);
    sqlite3_bind_int64(st, 5, n);
    sqlite3_bind_blob(st, 6, blob->data, (int)blob->len, SQLITE_STATIC);
    return step_done(st);
}

int store_put_chunk(store *s, int final, int gpu, int dbid, int64_t t_start, int64_t t_end, int64_t n,
                    const gw_buf *blob)
{
    if (final)
        return put_series(s, &s->put_chunk,
                          "INSERT OR REPLACE INTO chunks(gpu, metric, t_start, t_end, n, blob) VALUES(?,?,?,?,?,?)",
                          gpu, dbid, t_start, t_end, n, blob);
    return put_series(s, &s->put_open,
                      "INSERT OR REPLACE INTO open_chunks(gpu, metric, t_start, t_end, n, blob) VALUES(?,?,?,?,?,?)",
                      gpu, dbid, t_start, t_end, n, blob);
}

/* Runs sql with (gpu, key, from, to) bound as ?1..?4; fn(ctx, t_start, blob, len) gets each row
 * (NULL for a statement without rows). With cache, the statement is prepared once and kept there. */
static int get_rows(store *s, sqlite3_stmt **cache, const char *sql, int gpu, int64_t key, int64_t from, int64_t to,
                    void (*fn)(void *ctx, int64_t t_start, const void *blob, size_t len), void *ctx)
{
    sqlite3_stmt *st = cache ? *cache : NULL;
    int rc = st ? SQLITE_OK : sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int(st, 1, gpu);
    sqlite3_bind_int64(st, 2, key);
    sqlite3_bind_int64(st, 3, from);
    sqlite3_bind_int64(st, 4, to);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && fn)
        fn(ctx, sqlite3_column_int64(st, 0), sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1));
    if (cache) {
        sqlite3_reset(st);
        *cache = st;
    } else {
        sqlite3_finalize(st);
    }
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int store_get_pieces(store *s, int gpu, int dbid, int64_t from, int64_t to,
                     void (*fn)(void *ctx, int64_t t_start, const void *blob, size_t len), void *ctx)
{
    return get_rows(s, &s->get_pieces,
                    "SELECT t_start, blob FROM open_chunks WHERE gpu=?1 AND metric=?2 AND t_start BETWEEN ?3 AND ?4"
                    " ORDER BY t_start",
                    gpu, dbid, from, to, fn, ctx);
}

int store_get_proc_pieces(store *s, int gpu, unsigned pid, int64_t from, int64_t to,
                          void (*fn)(void *ctx, int64_t t_start, const void *blob, size_t len), void *ctx)
{
    return get_rows(s, NULL,
                    "SELECT t_start, blob FROM proc_chunks WHERE gpu=?1 AND pid=?2 AND t_start BETWEEN ?3 AND ?4"
                    " ORDER BY t_start",
                    gpu, pid, from, to, fn, ctx);
}

int store_drop_proc_pieces(store *s, int gpu, unsigned pid, int64_t from, int64_t to)
{
    return get_rows(s, NULL, "DELETE FROM proc_chunks WHERE gpu=?1 AND pid=?2 AND t_start BETWEEN ?3 AND ?4", gpu, pid,
                    from, to, NULL, NULL);
}

int store_put_proc_chunk(store *s, int gpu, unsigned pid, int64_t t_start, int64_t t_end, int64_t n, const gw_buf *blob)
{
    return put_series(
        s, &s->put_proc_chunk,
        "INSERT INTO proc_chunks(gpu, pid, t_start, t_end, n, blob) VALUES(?,?,?,?,?,?)"
        " ON CONFLICT(gpu, pid, t_start) DO UPDATE SET t_end=excluded.t_end, n=excluded.n, blob=excluded.blob",
        gpu, pid, t_start, t_end, n, blob);
}

static int run_stmt(store *s, const char *sql, sqlite3_stmt **out)
{
    return sqlite3_prepare_v2(s->db, sql, -1, out, NULL);
}

int store_put_proc(store *s, int gpu, const gpu_proc *p, int64_t t_us)
{
    sqlite3_stmt *st = NULL;
    int rc = run_stmt(s,
                      "INSERT INTO procs VALUES(?,?,?,?,?,?,?,?,?) ON CONFLICT(gpu, pid, start_time) DO UPDATE SET"
                      " last_seen=excluded.last_seen, name=excluded.name, command=excluded.command,"
                      " user=excluded.user, container=excluded.container",
                      &st);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int(st, 1, gpu);
    sqlite3_bind_int64(st, 2, p->pid);
    sqlite3_bind_int64(st, 3, (int64_t)p->start_time_s);
    sqlite3_bind_text(st, 4, p->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, p->cmdline[0] ? p->cmdline : p->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, p->user, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, p->container, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 8, t_us);
    sqlite3_bind_int64(st, 9, t_us);
    rc = step_done(st);
    sqlite3_finalize(st);
    return rc;
}

int store_put_gpu(store *s, const gpu_info *info, int64_t t_us)
{
    sqlite3_stmt *st = NULL;
    int rc = run_stmt(s,
                      "INSERT INTO gpus VALUES(?,?,?,?,?,?,?) ON CONFLICT(idx) DO UPDATE SET uuid=excluded.uuid,"
                      " name=excluded.name, serial=excluded.serial, pci_bus_id=excluded.pci_bus_id,"
                      " last_seen=excluded.last_seen",
                      &st);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int(st, 1, info->index);
    const metric_id ids[] = {M_UUID, M_NAME, M_SERIAL, M_PCI_BUS_ID};
    for (int i = 0; i < 4; i++)
        if (mset_has(&info->str_present, ids[i]))
            sqlite3_bind_text(st, 2 + i, info->str[ids[i]], -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, t_us);
    sqlite3_bind_int64(st, 7, t_us);
    rc = step_done(st);
    sqlite3_finalize(st);
    return rc;
}

int store_put_event(store *s, int64_t t_us, int gpu, const char *kind, const char *detail)
{
    sqlite3_stmt *st = NULL;
    int rc = run_stmt(s, "INSERT INTO events(t, gpu, kind, detail) VALUES(?,?,?,?)", &st);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int64(st, 1, t_us);
    sqlite3_bind_int(st, 2, gpu);
    sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, detail, -1, SQLITE_STATIC);
    rc = step_done(st);
    sqlite3_finalize(st);
    return rc;
}

/* Runs sql with (gpu, t_start) bound as ?1, ?2. */
static int group_stmt(store *s, const char *sql, int gpu, int64_t t_start)
{
    sqlite3_stmt *st = NULL;
    int rc = run_stmt(s, sql, &st);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int(st, 1, gpu);
    sqlite3_bind_int64(st, 2, t_start);
    rc = step_done(st);
    sqlite3_finalize(st);
    return rc;
}

/* A group's rows: its bundle (format 2), or (format 1) its timeline and one row per metric. */
#define GROUP_METRICS " metric IN (SELECT -1 UNION ALL SELECT 0 UNION ALL SELECT id FROM metrics)"

int store_seal_group(store *s, int gpu, int64_t t_start, int64_t open_from, int64_t t_end)
{
    sqlite3_stmt *st = NULL;
    int rc =
        run_stmt(s, "DELETE FROM open_chunks WHERE gpu=?1 AND" GROUP_METRICS " AND t_start BETWEEN ?2 AND ?3", &st);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int(st, 1, gpu);
    sqlite3_bind_int64(st, 2, open_from);
    sqlite3_bind_int64(st, 3, t_end);
    rc = step_done(st);
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? store_rollup_group(s, gpu, t_start) : rc;
}

int store_recover_open(store *s, int64_t before_us)
{
    sqlite3_stmt *st = NULL;
    int rc =
        run_stmt(s, "SELECT gpu, t_start FROM open_chunks WHERE metric IN (-1, 0) AND t_end<? ORDER BY t_start", &st);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int64(st, 1, before_us);
    size_t n = 0, cap = 0;
    int64_t(*groups)[2] = NULL;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            void *g = realloc(groups, cap * sizeof *groups);
            if (!g) {
                rc = SQLITE_NOMEM;
                break;
            }
            groups = g;
        }
        groups[n][0] = sqlite3_column_int(st, 0);
        groups[n][1] = sqlite3_column_int64(st, 1);
        n++;
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < n && rc == SQLITE_OK; i++) {
        rc = group_stmt(s,
                        "INSERT OR REPLACE INTO chunks(gpu, metric, t_start, t_end, n, blob) SELECT gpu, metric,"
                        " t_start, t_end, n, blob FROM open_chunks WHERE gpu=?1 AND t_start=?2 AND" GROUP_METRICS
                        " ORDER BY metric",
                        (int)groups[i][0], groups[i][1]);
        if (rc == SQLITE_OK)
            rc = store_seal_group(s, (int)groups[i][0], groups[i][1], groups[i][1], groups[i][1]);
    }
    free(groups);
    return rc;
}

static int64_t pragma_int(store *s, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t v = 0;
    if (run_stmt(s, sql, &st) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

int64_t store_used_bytes(store *s)
{
    return (pragma_int(s, "PRAGMA page_count") - pragma_int(s, "PRAGMA freelist_count")) *
           pragma_int(s, "PRAGMA page_size");
}

static int delete_before(store *s, const char *sql, int64_t cutoff)
{
    sqlite3_stmt *st = NULL;
    int rc = run_stmt(s, sql, &st);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int64(st, 1, cutoff);
    rc = step_done(st);
    sqlite3_finalize(st);
    return rc;
}

/* Deletes the chunk groups (timeline and columns) that start before start_cut and end before end_cut. */
static int delete_groups(store *s, int64_t start_cut, int64_t end_cut)
{
    sqlite3_stmt *sel = NULL, *del = NULL;
    int rc = run_stmt(s,
                      "SELECT gpu, t_start FROM chunks WHERE metric=0 AND t_start<?1 AND t_end<?2"
                      " UNION ALL SELECT gpu, t_start FROM chunks WHERE metric=-1 AND t_start<?1 AND t_end<?2",
                      &sel);
    if (rc == SQLITE_OK)
        rc = run_stmt(s, "DELETE FROM chunks WHERE gpu=?1 AND t_start=?2 AND" GROUP_METRICS, &del);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(sel, 1, start_cut);
        sqlite3_bind_int64(sel, 2, end_cut);
    }
    size_t n = 0, cap = 0;
    int64_t(*groups)[2] = NULL;
    while (rc == SQLITE_OK && sqlite3_step(sel) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            void *g = realloc(groups, cap * sizeof *groups);
            if (!g) {
                rc = SQLITE_NOMEM;
                break;
            }
            groups = g;
        }
        groups[n][0] = sqlite3_column_int(sel, 0);
        groups[n][1] = sqlite3_column_int64(sel, 1);
        n++;
    }
    sqlite3_finalize(sel);
    for (size_t i = 0; i < n && rc == SQLITE_OK; i++) {
        sqlite3_bind_int(del, 1, (int)groups[i][0]);
        sqlite3_bind_int64(del, 2, groups[i][1]);
        rc = step_done(del);
    }
    sqlite3_finalize(del);
    free(groups);
    return rc;
}

/* Drops the oldest raw data (or, when none is left, the oldest roll-ups) until under max_size. */
static int enforce_size(store *s, uint64_t max_size)
{
    int rc = SQLITE_OK;
    for (int round = 0; round < 64 && rc == SQLITE_OK && (uint64_t)store_used_bytes(s) > max_size; round++) {
        int64_t oldest = pragma_int(s, "SELECT coalesce(min(x), -1) FROM (SELECT min(t_start) AS x FROM chunks WHERE"
                                       " metric=0 UNION ALL SELECT min(t_start) FROM chunks WHERE metric=-1)");
        if (oldest >= 0) {
            int64_t newest = pragma_int(s, "SELECT max(x) FROM (SELECT max(t_start) AS x FROM chunks WHERE metric=0"
                                           " UNION ALL SELECT max(t_start) FROM chunks WHERE metric=-1)");
            int64_t cut = oldest + (newest - oldest) / 8 + 1; /* an eighth of the raw span per round */
            rc = delete_groups(s, cut, INT64_MAX);
            if (rc == SQLITE_OK)
                rc = delete_before(s, "DELETE FROM proc_chunks WHERE t_start<?", cut);
        } else {
            oldest = pragma_int(s, "SELECT coalesce(min(t_start), -1) FROM rollups");
            if (oldest < 0)
                break;
            rc = delete_before(s, "DELETE FROM rollups WHERE t_start<=?", oldest);
        }
        if (rc == SQLITE_OK)
            rc = store_exec(s, "PRAGMA incremental_vacuum");
    }
    return rc;
}

int store_prune(store *s, int64_t now_us, int64_t raw_ret_us, int64_t rollup_ret_us, uint64_t max_size)
{
    int64_t raw_cut = now_us - raw_ret_us, roll_cut = now_us - rollup_ret_us;
    /* open groups left behind (a sealed copy dropped from a full memory buffer) are sealed after a day */
    int rc = store_recover_open(s, now_us - 86400ll * 1000000);
    if (rc == SQLITE_OK)
        rc = delete_groups(s, raw_cut, raw_cut);
    if (rc == SQLITE_OK)
        rc = delete_before(s, "DELETE FROM proc_chunks WHERE t_end<?", raw_cut);
    if (rc == SQLITE_OK)
        rc = delete_before(s, "DELETE FROM procs WHERE last_seen<?", raw_cut);
    if (rc == SQLITE_OK)
        rc = delete_before(s, "DELETE FROM rollups WHERE t_end<?", roll_cut);
    if (rc == SQLITE_OK)
        rc = delete_before(s, "DELETE FROM events WHERE t<?", roll_cut);
    if (rc == SQLITE_OK && max_size)
        rc = enforce_size(s, max_size);
    else if (rc == SQLITE_OK)
        rc = store_exec(s, "PRAGMA incremental_vacuum");
    return rc;
}
