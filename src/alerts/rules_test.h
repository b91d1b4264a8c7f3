/* rules_test.h - running promtool-style unit tests of rule files against the engine. */
#ifndef GPUWATCH_RULES_TEST_H
#define GPUWATCH_RULES_TEST_H

#include <stdio.h>

/* Runs every test in the file, writing the results and failures (with expected/got) to out, and
 * what keeps the file from being run (it cannot be read, FILE:LINE:COL errors, "FILE: out of
 * memory") to err. Returns 0 when all pass, the number of failed checks, or -1 when the file has
 * errors or memory ran out. */
int rules_test_file(const char *path, FILE *out, FILE *err);

#endif
