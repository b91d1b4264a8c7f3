/* query_rows.h - nvidia-smi's --query-remapped-rows=F,... (one row per GPU: its remapped rows) and
 * --query-retired-pages=F,... (one row per retired page, by cause) in its csv. */
#ifndef GPUWATCH_QUERY_ROWS_H
#define GPUWATCH_QUERY_ROWS_H

#include <stdio.h>
#include "options.h"
#include "sampler.h"

/* Checks o->rows (the field list of o->rows_kind) before anything is read. Returns 0, or CLI_USAGE
 * after the error (with the closest name for a typo). */
int query_rows_check(const char *cmd, const cli_opts *o);
/* Prints the rows of the selected GPUs in csv; the header when header is set. Returns the exit status. */
int query_rows(sampler *s, const unsigned char *sel, const cli_opts *o, FILE *out, int header);
/* --help-query-remapped-rows / --help-query-retired-pages (kind 'r' / 'p'), in nvidia-smi's layout. */
void query_rows_help(FILE *f, int kind);

#endif
