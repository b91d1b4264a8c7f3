/* bench_query_range.c - /api/v1/query_range's work on an existing history file (as `gpuwatch history
 * bench --dir DIR` leaves one): history_query_range_json for METRIC over [FROM, FROM + 1 h) on GPU 0
 * and on every GPU, REPS times each. Prints "one_gpu_cpu_ms all_gpus_cpu_ms". With WRITE set, a
 * commit goes into the file before each query (as the agent's writer commits every flush_interval),
 * so a reader kept between queries finds its page cache stale. For callgrind
 * (--toggle-collect=history_query_range_json) and by-hand comparisons; `gpuwatch history bench`
 * prints the same figures. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sqlite3.h>
#include "history.h"

static sqlite3 *writer;

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double run(const char *db, const char *metric, const char *gpu, const char *from, const char *to, int reps)
{
    double spent = 0;
    for (int i = 0; i < reps; i++) {
        if (writer)
            sqlite3_exec(writer, "UPDATE meta SET value=value WHERE key='format'", NULL, NULL, NULL);
        double c0 = cpu_ms();
        int status = 0;
        free(history_query_range_json(db, metric, gpu, NULL, from, to, NULL, NULL, &status));
        spent += cpu_ms() - c0;
        if (status != 200)
            return -1;
    }
    return spent / reps;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_query_range DB METRIC FROM_UNIX_S [REPS]\n");
        return 2;
    }
    int reps = argc > 4 ? atoi(argv[4]) : 20;
    if (getenv("WRITE") && sqlite3_open(argv[1], &writer) != SQLITE_OK)
        return 1;
    char to[32];
    snprintf(to, sizeof to, "%lld", atoll(argv[3]) + 3599);
    double one = run(argv[1], argv[2], "0", argv[3], to, reps);
    double all = run(argv[1], argv[2], NULL, argv[3], to, reps > 4 ? reps / 4 : 1);
    printf("%.3f %.3f\n", one, all);
    sqlite3_close(writer);
    return one < 0 || all < 0;
}
