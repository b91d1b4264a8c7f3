/* main.c - gpuwatch's entry point: global options (--sim), then one subcommand. The
 * nvidia-smi style commands are built in; the others run from a module loaded on demand
 * (src/module_loader.c), so that the quick commands load no library they do not use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include "commands.h"
#include "module_loader.h"
#include "nvml_backend.h"
#include "sampler.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv); /* built in, or NULL: */
    const char *module;                /* the module that holds the command */
    const char *summary;
} command;

static const command commands[] = {
    {"list", cmd_list, NULL, "one line per GPU, as nvidia-smi -L"},
    {"query", cmd_query, NULL, "a snapshot of chosen metrics (table, csv, json); --processes for apps"},
    {"dmon", cmd_dmon, NULL, "device monitoring stream, as nvidia-smi dmon"},
    {"pmon", cmd_pmon, NULL, "process monitoring stream, as nvidia-smi pmon"},
    {"top", NULL, "top", "live terminal UI"},
    {"agent", NULL, "agent", "sampling agent: Prometheus /metrics, JSON API, history, alerts"},
    {"history", NULL, "history", "range queries on the recorded history"},
    {"events", NULL, "history", "recorded events (XID, GPU lost, throttling, alerts)"},
    {"rules", NULL, "rules", "check or unit-test alert rule files"},
    {"diagnose", NULL, "diagnose", "explain why GPUs are slow: findings with evidence and advice"},
    {"config", NULL, "agent", "check a configuration file"},
    {"run", NULL, "run", "run a job on free GPUs, watch it, report what it did"},
    {"jobs", NULL, "run", "the jobs gpuwatch run recorded"},
    {"version", cmd_version, NULL, "gpuwatch, NVML, driver and CUDA versions"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuwatch [--sim SCENARIO] COMMAND [OPTIONS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nglobal options:\n"
               "  --sim SCENARIO  run on gpusim, the simulated NVML, with a scenario name\n"
               "                  (see sim/scenarios/) or a scenario file path\n"
               "  -h, --help      this help; COMMAND --help for a command's options\n");
}

/* Points the NVML backend at gpusim with the given scenario (a name or a path). */
static int use_simulator(const char *scenario)
{
    char dir[PATH_MAX], lib[PATH_MAX + 64], path[PATH_MAX + 64];
    program_dir(dir, sizeof dir);
    snprintf(lib, sizeof lib, "%s/gpusim/libnvidia-ml.so.1", dir);
    if (access(lib, R_OK) != 0)
        snprintf(lib, sizeof lib, "%s/gpusim/libnvidia-ml.so.1", GW_BUILD_DIR);
    if (access(scenario, R_OK) == 0) {
        snprintf(path, sizeof path, "%s", scenario);
    } else {
        snprintf(path, sizeof path, "%s/sim/scenarios/%s.yaml", GW_SOURCE_DIR, scenario);
        if (access(path, R_OK) != 0) {
            fprintf(stderr, "gpuwatch: --sim: no scenario file '%s' and no scenario named '%s' in %s/sim/scenarios\n",
                    scenario, scenario, GW_SOURCE_DIR);
            return -1;
        }
    }
    setenv("GPUWATCH_NVML_LIB", lib, 1);
    setenv("GPUSIM_SCENARIO", path, 1);
    return 0;
}

int main(int argc, char **argv)
{
    backend_register(&nvml_backend_ops);
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        if (strcmp(argv[i], "--sim") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gpuwatch: --sim needs a scenario\n");
                return GW_EXIT_USAGE;
            }
            if (use_simulator(argv[i + 1]) != 0)
                return GW_EXIT_USAGE;
            i += 2;
        } else if (strncmp(argv[i], "--sim=", 6) == 0) {
            if (use_simulator(argv[i] + 6) != 0)
                return GW_EXIT_USAGE;
            i++;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--version") == 0) {
            return cmd_version(1, (char *[]){"version", NULL});
        } else {
            fprintf(stderr, "gpuwatch: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return GW_EXIT_USAGE;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return GW_EXIT_USAGE;
    }
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++)
        if (strcmp(argv[i], commands[c].name) == 0)
            return commands[c].run ? commands[c].run(argc - i, argv + i)
                                   : module_run(commands[c].module, commands[c].name, argc - i, argv + i);
    if (strcmp(argv[i], "help") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "gpuwatch: unknown command '%s'\n", argv[i]);
    usage(stderr);
    return GW_EXIT_USAGE;
}
