/* history_check.h - `gpuwatch history check FILE`: reads every part of a history file and says what
 * is intact and what is damaged. */
#ifndef GPUWATCH_HISTORY_CHECK_H
#define GPUWATCH_HISTORY_CHECK_H

#include <stdio.h>

/* Checks the file at path (opened read-only) and writes a report to out. Returns 0 when the file is
 * whole, 1 when parts of it are damaged (the report says which and what is intact), -1 when it
 * cannot be read at all (not a history file, unreadable). */
int history_check(const char *path, FILE *out);

#endif
