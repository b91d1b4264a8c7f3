/* reserve.h - GPU reservations between concurrent `gpuwatch run`s on one machine, whoever runs them.
 *
 * The folder is shared (/run/gpuwatch, mode 1777) or private to the user. Per GPU (by UUID, or PCI
 * bus id where the UUID cannot be read) one lock file, gpu-KEY.lock, locked with flock(2), which
 * works on a descriptor opened for reading only: the file belongs to whoever made it first (0644)
 * and every other user's run locks the same file. The kernel drops the lock when the last
 * descriptor to it closes, so a killed run frees its GPUs (or its job's processes keep them, when
 * they inherited the descriptor). Who holds a GPU is written by each user into a record file of
 * their own, gpu-KEY.owner-UID: the newest record names the holder (an emptied one: released); a
 * record whose lock is not held is stale (its run was killed). Files are never removed (removing one
 * would let two runs lock two different files of one name).
 *
 * Nothing in the folder is trusted: no file is opened through a link, created through one, or opened
 * when it is not a regular file; a record is read only from a file owned by the uid in its name, and
 * its words are cleaned of control characters before anyone prints them. */
#ifndef GPUWATCH_RUN_RESERVE_H
#define GPUWATCH_RUN_RESERVE_H

#include <stddef.h>
#include <stdint.h>

typedef struct reserve_owner {
    long pid;
    char user[64]; /* from the record file's owner, not from its text */
    char job[40];
    char name[128];
    int64_t since_s; /* Unix seconds */
    int gpu;         /* index at reservation */
    char command[256];
} reserve_owner;

typedef enum {
    RESERVE_FREE = 0,
    RESERVE_HELD = 1,
    RESERVE_STALE = 2,
    RESERVE_REFUSED = 3 /* the lock file is not one we may use (a link, a device): owner.command says why */
} reserve_state;

/* A reservation taken: the locked file and this user's record. */
typedef struct reserve_hold {
    int lock_fd;
    int record_fd;
} reserve_hold;

/* The folder: $GPUWATCH_LOCK_DIR, else /run/gpuwatch (made 1777 by root so that every user's runs
 * share it; used only when it is a real folder owned by root, sticky if others may write), else
 * $XDG_RUNTIME_DIR/gpuwatch, else /tmp/gpuwatch-UID (both only when a real folder of the user's,
 * mode 0700). 0, or -1 with err filled. */
int reserve_dir(char *out, size_t n, char *err, size_t errlen);

/* Serializes placement between runs: returns a descriptor holding the folder's placement lock, to
 * close when the chosen GPUs are reserved. Waits at most wait_s seconds (< 0: for ever), saying
 * once on stderr that it waits; -1 with err filled (errno EWOULDBLOCK when the wait ran out). */
int reserve_placement_lock(const char *dir, double wait_s, char *err, size_t errlen);

/* Whether a GPU is reserved now; owner filled for HELD, STALE and REFUSED (when given). */
reserve_state reserve_check(const char *dir, const char *key, reserve_owner *owner);

/* Reserves a GPU for me: 0 with *out holding it (close-on-exec descriptors), or -1 (held by another,
 * or err). */
int reserve_take(const char *dir, const char *key, const reserve_owner *me, reserve_hold *out, char *err,
                 size_t errlen);

/* Gives a reservation back: both descriptors closed, the record emptied unless keep_record (the
 * job's processes that inherited the lock still hold it: the record goes on naming the job); h is
 * reset. */
void reserve_release(reserve_hold *h, int keep_record);

/* Every GPU lock file of the folder: cb(key, state, owner). Returns how many, -1 when the folder
 * cannot be read. */
int reserve_list(const char *dir, void (*cb)(void *ctx, const char *key, reserve_state st, const reserve_owner *o),
                 void *ctx);

/* "pid 4242 (alice, job 20250105-1422-x1, 'train')" */
void reserve_owner_text(const reserve_owner *o, char *out, size_t n);

#endif
