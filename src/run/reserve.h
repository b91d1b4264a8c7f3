/* reserve.h - GPU reservations between concurrent `gpuwatch run`s on one machine: one lock file per
 * GPU (by UUID) in a shared folder, locked with an open file description lock (F_OFD_SETLK) that the
 * kernel drops when the holder dies, so a killed run frees its GPUs. The file says who holds it (pid,
 * user, job, command); a file that names a holder but is not locked is stale (its run was killed).
 * Files are never removed (removing one would let two runs lock two different files of one name). */
#ifndef GPUWATCH_RUN_RESERVE_H
#define GPUWATCH_RUN_RESERVE_H

#include <stddef.h>
#include <stdint.h>

typedef struct reserve_owner {
    long pid;
    char user[64];
    char job[40];
    char name[128];
    int64_t since_s; /* Unix seconds */
    int gpu;         /* index at reservation */
    char command[256];
} reserve_owner;

typedef enum { RESERVE_FREE = 0, RESERVE_HELD = 1, RESERVE_STALE = 2 } reserve_state;

/* The folder: $GPUWATCH_LOCK_DIR, else /run/gpuwatch (created 1777 so that every user's runs share
 * it), else $XDG_RUNTIME_DIR/gpuwatch, else /tmp/gpuwatch-UID. 0, or -1 with err filled. */
int reserve_dir(char *out, size_t n, char *err, size_t errlen);

/* Serializes placement between runs: returns a descriptor holding the folder's placement lock
 * (waits for it), to close when the chosen GPUs are reserved; -1 with err filled. */
int reserve_placement_lock(const char *dir, char *err, size_t errlen);

/* Whether a GPU is reserved now; owner filled for HELD and STALE (when given). */
reserve_state reserve_check(const char *dir, const char *uuid, reserve_owner *owner);

/* Reserves a GPU for me: a descriptor that holds it (close-on-exec), or -1 (held by another, or err). */
int reserve_take(const char *dir, const char *uuid, const reserve_owner *me, char *err, size_t errlen);

/* Gives a reservation back (the file is emptied, then closed). */
void reserve_release(int fd);

/* Every GPU lock file of the folder: cb(uuid, state, owner). Returns how many, -1 when the folder
 * cannot be read. */
int reserve_list(const char *dir, void (*cb)(void *ctx, const char *uuid, reserve_state st, const reserve_owner *o),
                 void *ctx);

/* "pid 4242 (alice, job 20250105-1422-x1, 'train')" */
void reserve_owner_text(const reserve_owner *o, char *out, size_t n);

#endif
