/* files.h - the one way gpuwatch reads a whole file (configs, rules, scenarios, traces, TLS keys,
 * password files): into memory, with a size limit, and a reason in words when it cannot; and the one
 * way it makes folders. */
#ifndef GPUWATCH_FILES_H
#define GPUWATCH_FILES_H

#include <stddef.h>

/* Reads path into a malloc'ed, NUL-terminated buffer of *len bytes (len may be NULL). Returns NULL
 * with why filled ("No such file or directory", "larger than 16777216 bytes", ...) on failure;
 * errno is kept from the failing call (0 for the size limit). */
char *gw_read_file(const char *path, size_t max, size_t *len, char *why, size_t whylen);
/* Reads up to n-1 bytes of a small file (a /proc entry) into buf, NUL-terminated, without
 * allocating. Returns the length, or -1 when it cannot be opened. */
long gw_read_small(const char *path, char *buf, size_t n);
/* mkdir -p of the folder holding path (nothing for a bare file name); 0, or -1 with errno. */
int gw_make_parent_dirs(const char *path);
/* mkdir -p: makes dir and the folders above it that are missing (mode for the ones it makes).
 * 0, or -1 with errno from the failing mkdir. */
int gw_make_dirs(const char *dir, unsigned mode);

#endif
