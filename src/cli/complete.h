/* complete.h - word lists for shell completion, printed one a line (`gpuwatch --complete WHAT`). */
#ifndef GPUWATCH_COMPLETE_H
#define GPUWATCH_COMPLETE_H

#include <stdio.h>

/* what: "fields" (query/--query-gpu names and aliases), "apps-fields" (--query-compute-apps),
 * "sections" (-q -d), "formats" (--format values of cmd, or of the nvidia-smi form when cmd is
 * NULL). Returns 0, or -1 when what is none of these. Commands and scenarios are main's. */
int complete_words(const char *what, const char *cmd, FILE *f);

#endif
