/* hfile.c - a real history file to damage (hfile.h): recorded in a child process that exits without
 * closing the history, as a killed agent would. */
#include "hfile.h"
#include "history.h"
#include "hsynth.h"
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void remove_file(const char *path)
{
    char side[4200];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}

static void record_event(const gw_event *ev, void *h)
{
    history_record_event(h, ev);
}

static void record(const char *path, int ngpus, int64_t t0_us, int seconds)
{
    history_config cfg;
    history_config_defaults(&cfg);
    cfg.path = path;
    cfg.no_thread = 1;
    char err[256];
    history *h = history_open(&cfg, err, sizeof err);
    if (!h)
        _exit(1);
    hsynth_gpu sg[8];
    event_deriver events[8] = {0}; /* the events of the samples, as the agent's pipeline derives them */
    for (int g = 0; g < ngpus && g < 8; g++)
        hsynth_init(&sg[g], g);
    for (int i = 0; i < seconds; i++) {
        int64_t t = t0_us + (int64_t)i * 1000000;
        for (int g = 0; g < ngpus && g < 8; g++) {
            gpu_sample s;
            gpu_info info;
            hsynth_sample(&sg[g], g, t, &s);
            hsynth_info(g, &info);
            history_record_sample(h, g, i == 0 ? &info : NULL, &s);
            event_derive(&events[g], g, &s, record_event, h);
        }
        if (i % 5 == 0) {
            gpu_proc p = {.gpu = 0, .pid = 4242, .mem_mib = 1000 + i, .has_mem = 1, .sm_util = i % 100, .has_sm = 1};
            strcpy(p.name, "python3");
            strcpy(p.cmdline, "python3 train.py");
            strcpy(p.user, "alice");
            history_record_processes(h, 0, (uint64_t)t, &p, 1);
        }
        if (i == seconds / 2) {
            gw_event xid = {.kind = EV_XID, .t_us = (uint64_t)t, .gpu = 0, .xid = {79, 1}};
            history_record_event(h, &xid);
        }
        if (i % 10 == 9 && history_flush(h) != 0)
            _exit(1);
    }
    _exit(history_flush(h) == 0 ? 0 : 1); /* killed: the open group stays as checkpoint pieces */
}

int hfile_build(const char *path, int ngpus, int64_t t0_us, int seconds)
{
    remove_file(path);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        record(path, ngpus, t0_us, seconds);
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    sqlite3 *db;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;", NULL, NULL, NULL);
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -1;
}
