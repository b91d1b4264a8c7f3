/* files.h - the one way gpuwatch reads a whole file (configs, rules, scenarios, traces, TLS keys,
 * password files): into memory, with a size limit, and a reason in words when it cannot. */
#ifndef GPUWATCH_FILES_H
#define GPUWATCH_FILES_H

#include <stddef.h>

/* Reads path into a malloc'ed, NUL-terminated buffer of *len bytes (len may be NULL). Returns NULL
 * with why filled ("No such file or directory", "larger than 16777216 bytes", ...) on failure;
 * errno is kept from the failing call (0 for the size limit). */
char *gw_read_file(const char *path, size_t max, size_t *len, char *why, size_t whylen);

#endif
