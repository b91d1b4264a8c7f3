/* bench_metrics_page.c - CPU a /metrics scrape costs the agent besides HTTP: an agent with history
 * and alerts runs in this process on gpusim (8 GPUs), and the page is taken (and gzipped) in a loop,
 * as the HTTP thread does per request. Run by scripts/bench_agent.sh; prints "identity_us gzip_us".
 * BENCH_SCRAPES: scrapes per timed round (default 100000; fewer under valgrind --tool=callgrind). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "agent.h"
#include "metrics_page.h"
#include "nvml_backend.h"
#include "plugins.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Best of five rounds of n scrapes, in microseconds per scrape. */
static double per_scrape(agent *a, int gzip, int n)
{
    double best = 1e9;
    for (int round = 0; round < 5; round++) {
        double t0 = now_s();
        for (int i = 0; i < n; i++) {
            metrics_page p;
            if (metrics_page_get(a, NULL, &p) != 0)
                return -1;
            if (gzip && metrics_page_gzip(&p) != 0)
                return -1;
            metrics_page_release(&p);
        }
        double us = (now_s() - t0) / n * 1e6;
        if (us < best)
            best = us;
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_metrics_page SCENARIO DIR (GPUSIM_LIB: gpusim's libnvidia-ml.so.1)\n");
        return 2;
    }
    const char *lib = getenv("GPUSIM_LIB");
    if (!lib) {
        fprintf(stderr, "bench_metrics_page: set GPUSIM_LIB\n");
        return 2;
    }
    backend_register(&nvml_backend_ops);
    setenv("GPUWATCH_NVML_LIB", lib, 1);
    setenv("GPUSIM_SCENARIO", argv[1], 1);
    gw_log_set_level(GW_LOG_ERROR);
    char yaml[4200];
    snprintf(yaml, sizeof yaml, "listen: 127.0.0.1:0\nlog:\n  level: error\nhistory:\n  path: %s/history.db\n",
             argv[2]);
    gw_config *cfg = malloc(sizeof *cfg);
    config_init(cfg);
    agent_cli cli = {0};
    agent *a = calloc(1, sizeof *a);
    char err[256];
    if (!cfg || !a || config_load_string(cfg, yaml, "bench.yaml") != 0 || agent_init(a, cfg, &cli) != 0 ||
        agent_add_plugin(a, &history_plugin, cfg) != 0 || agent_add_plugin(a, &alerts_plugin, cfg) != 0 ||
        agent_start(a, err, sizeof err) != 0) {
        fprintf(stderr, "bench_metrics_page: cannot start the agent\n");
        return 1;
    }
    sleep(2); /* two sampling rounds: the page is whole */
    const char *env = getenv("BENCH_SCRAPES");
    int n = env ? atoi(env) : 100000;
    double id = per_scrape(a, 0, n > 0 ? n : 1), gz = per_scrape(a, 1, n > 0 ? n : 1);
    agent_stop(a);
    free(a);
    if (id < 0 || gz < 0) {
        fprintf(stderr, "bench_metrics_page: no page\n");
        return 1;
    }
    printf("%.2f %.2f\n", id, gz);
    return 0;
}
