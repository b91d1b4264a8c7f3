/* call_count.c - GPUSIM_CALLS=FILE: counts every call of every NVML function the library answers,
 * and writes the counts to FILE ("COUNT FUNCTION" a line, the most called first, then "TOTAL N")
 * when the process exits, so that a benchmark can tell what a monitor costs in NVML calls (on a real
 * driver each is an ioctl of tens of microseconds). Counting happens under the library lock. */
#include "lib_state.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALL_NAMES 512 /* more than the 405 exported functions */

typedef struct call_slot {
    const char *fn; /* __func__ of the entry point: one string per function */
    unsigned long long n;
} call_slot;

static call_slot slots[CALL_NAMES];
static int nslots;
static int enabled = -1; /* -1 until GPUSIM_CALLS was looked at */

void gs_count_call(const char *fn)
{
    if (enabled < 0) {
        const char *path = getenv("GPUSIM_CALLS");
        enabled = path && *path;
    }
    if (!enabled)
        return;
    for (int i = 0; i < nslots; i++)
        if (slots[i].fn == fn || strcmp(slots[i].fn, fn) == 0) {
            slots[i].n++;
            return;
        }
    if (nslots < CALL_NAMES)
        slots[nslots++] = (call_slot){fn, 1};
}

static int by_count(const void *a, const void *b)
{
    const call_slot *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    return strcmp(x->fn, y->fn);
}

__attribute__((destructor)) static void write_counts(void)
{
    const char *path = getenv("GPUSIM_CALLS");
    if (enabled <= 0 || !path || !*path)
        return;
    int locked = pthread_mutex_trylock(&gs.mu) == 0; /* a call hung in the library keeps it */
    qsort(slots, (size_t)nslots, sizeof slots[0], by_count);
    FILE *f = fopen(path, "w");
    if (f) {
        unsigned long long total = 0;
        for (int i = 0; i < nslots; i++) {
            fprintf(f, "%llu %s\n", slots[i].n, slots[i].fn);
            total += slots[i].n;
        }
        fprintf(f, "TOTAL %llu\n", total);
        if (fclose(f) != 0)
            fprintf(stderr, "gpusim: GPUSIM_CALLS: cannot write '%s'\n", path);
    } else {
        fprintf(stderr, "gpusim: GPUSIM_CALLS: cannot write '%s'\n", path);
    }
    if (locked)
        pthread_mutex_unlock(&gs.mu);
}
