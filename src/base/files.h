/* files.h - the one way gpuwatch reads a whole file (configs, rules, scenarios, traces, TLS keys,
 * password files): into memory, with a size limit, and a reason in words when it cannot; and the one
 * way it makes folders. */
#ifndef GPUWATCH_FILES_H
#define GPUWATCH_FILES_H

#include <stddef.h>

/* Opens path as a regular file, never blocking on a FIFO and never opening a device, socket or folder
 * ("not a regular file"); /dev/null opened for reading only, with no opts, counts as an empty file. flags: O_RDONLY, O_WRONLY or O_RDWR, with O_CREAT to create a missing file
 * at mode (always with O_EXCL underneath: a file is never created through a link; an existing one is
 * opened). opts: GW_OPEN_NOFOLLOW refuses a link as the last component (for files in folders other
 * users can write); GW_OPEN_OWNED also wants the file to belong to the effective user or root and
 * to have one name (no hard link planted in a shared folder). Returns a close-on-exec descriptor in
 * blocking mode, or -1 with why filled and errno set. */
#define GW_OPEN_NOFOLLOW 1
#define GW_OPEN_OWNED 2
int gw_open_file(const char *path, int flags, unsigned mode, unsigned opts, char *why, size_t whylen);
/* A folder private to the effective user (a runtime or lock folder under /tmp or $XDG_RUNTIME_DIR):
 * made at 0700 when missing; used only when it is a real folder (not a link) owned by the effective
 * user with no access for others. 0, or -1 with why filled ("/tmp/gpuwatch-1000: owned by uid 1001,
 * not by you"). */
int gw_private_dir(const char *dir, char *why, size_t whylen);
/* A folder every user shares (/run/gpuwatch): made 1777 when root finds it missing; used only when
 * it is a real folder (not a link) owned by root, sticky when others may write to it, and writable
 * by us. 1 when usable, 0 when not. */
int gw_shared_dir(const char *dir);
/* Reads what is left of fd into a malloc'ed, NUL-terminated buffer, as gw_read_file; fd is closed. */
char *gw_read_fd(int fd, size_t max, size_t *len, char *why, size_t whylen);
/* Reads path into a malloc'ed, NUL-terminated buffer of *len bytes (len may be NULL). Returns NULL
 * with why filled ("No such file or directory", "larger than 16777216 bytes", ...) on failure;
 * errno is kept from the failing call (0 for the size limit). */
char *gw_read_file(const char *path, size_t max, size_t *len, char *why, size_t whylen);
/* gw_read_file refuses what is not a regular file (a FIFO would block, a device never ends). */
/* Reads up to n-1 bytes of a small file (a /proc entry) into buf, NUL-terminated, without
 * allocating. Returns the length, or -1 when it cannot be opened. */
long gw_read_small(const char *path, char *buf, size_t n);
/* Writes len bytes of data into path (created 0666 less the umask, or truncated; a link is
 * followed: the user named it), checking every write and the one close. 0, or -1 with why filled
 * ("No space left on device") and errno set. */
int gw_write_file(const char *path, const void *data, size_t len, char *why, size_t whylen);
/* Whether path can be written later (an output named on a command line, checked before the work
 * that fills it): an existing file we may write, or a missing one in a folder we may write in.
 * 0, or -1 with why filled ("no folder out (No such file or directory)", "is a folder"). */
int gw_check_writable_path(const char *path, char *why, size_t whylen);
/* Whether path may be handed to a library that opens it itself (SQLite): 0 when it is missing or a
 * regular file, -1 with why filled ("a FIFO, not a regular file") when opening it could block or
 * read a device. Never opens it. */
int gw_regular_or_missing(const char *path, char *why, size_t whylen);
/* mkdir -p of the folder holding path (nothing for a bare file name); 0, or -1 with errno. */
int gw_make_parent_dirs(const char *path);
/* mkdir -p: makes dir and the folders above it that are missing (mode for the ones it makes).
 * 0, or -1 with errno from the failing mkdir. */
int gw_make_dirs(const char *dir, unsigned mode);

#endif
