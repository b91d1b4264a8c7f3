/* rules_test.h - running promtool-style unit tests of rule files against the engine. */
#ifndef GPUWATCH_RULES_TEST_H
#define GPUWATCH_RULES_TEST_H

#include <stdio.h>

/* Runs every test in the file, writing failures (with expected/got) and errors to out.
 * Returns 0 when all pass, the number of failed checks, or -1 when the file has errors or memory ran
 * out ("FILE: out of memory"). */
int rules_test_file(const char *path, FILE *out);

#endif
