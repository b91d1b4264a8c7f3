/* skip.h - skips that say so, for the cmocka unit tests (docs/HANDBOOK.md, "Skips"). A check that
 * cannot run on this machine says why ("SKIP: reason" on stdout); main returns skip_result(...),
 * 77 when something was skipped, which ctest reports as skipped (SKIP_RETURN_CODE), and `make test`
 * lists the reasons at the end. Under GW_REQUIRE_ALL=1 (CI) every check must run: a skip fails the
 * case. Include after cmocka.h. */
#ifndef GPUWATCH_TEST_SKIP_H
#define GPUWATCH_TEST_SKIP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int skips_seen;

/* One part of a case cannot run here: says why; the case goes on (under GW_REQUIRE_ALL=1 it fails). */
static inline void skip_part(const char *reason)
{
    printf("SKIP: %s\n", reason);
    fflush(stdout);
    const char *all = getenv("GW_REQUIRE_ALL");
    if (all && strcmp(all, "1") == 0)
        fail_msg("GW_REQUIRE_ALL=1: every check must run here (skipped: %s)", reason);
    skips_seen++;
}

/* The rest of the case cannot run here: says why and leaves the case as skipped. */
#define skip_case(reason)  \
    do {                   \
        skip_part(reason); \
        skip();            \
    } while (0)

/* main's exit status from cmocka_run_group_tests' count of failed cases: 77 when none failed and a
 * check was skipped. */
static inline int skip_result(int failed)
{
    if (failed)
        return failed;
    return skips_seen ? 77 : 0;
}

#endif
