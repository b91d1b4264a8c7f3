/* main.c - gpuwatch's entry point: global options (--sim), then one subcommand, or nvidia-smi's
 * own options (`gpuwatch --query-gpu=... --format=csv`, `-L`, `-q`: src/cli/cmd_smi.c). The
 * nvidia-smi style commands are built in; the others run from a module loaded on demand
 * (src/module_loader.c), so that the quick commands load no library they do not use. A mistyped
 * command or option gets the closest name (suggest.h). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "complete.h"
#include "module_loader.h"
#include "nvml_backend.h"
#include "sampler.h"
#include "suggest.h"

#ifndef GW_INSTALL_PREFIX
#define GW_INSTALL_PREFIX "/usr/local"
#endif
#ifndef GW_INSTALL_LIBDIR
#define GW_INSTALL_LIBDIR "lib"
#endif
#ifndef GW_INSTALL_DATADIR
#define GW_INSTALL_DATADIR "share"
#endif

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
    {"topo", cmd_topo, NULL, "GPU connection matrix with CPU and NUMA affinity, as nvidia-smi topo -m"},
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
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const char *const global_options[] = {"--sim", "--help", "-h", "--version", NULL};

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuwatch [--sim SCENARIO] COMMAND [OPTIONS]\n"
               "       gpuwatch [--sim SCENARIO] [NVIDIA-SMI-OPTIONS]   (alone: nvidia-smi's summary table)\n"
               "\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nglobal options:\n"
               "  --sim SCENARIO  run on gpusim, the simulated NVML, with a scenario name (gpuwatch\n"
               "                  --complete scenarios lists them) or a scenario file path\n"
               "  -h, --help      this help; COMMAND --help for a command's options\n"
               "\nnvidia-smi's options, with their meanings (scripts run unchanged):\n"
               "  (none), -i LIST                                       the summary table\n"
               "  --query-gpu=F,... --format=csv[,noheader][,nounits]   as query --query-gpu\n"
               "  --query-compute-apps=F,... --format=csv[,...]         compute processes\n"
               "  --query-remapped-rows=F,...  --query-retired-pages=F,...  their csv\n"
               "  -L, --list-gpus                                       as list\n"
               "  -q, --query [-d SECTION,...] [-x, --xml-format]       nvidia-smi -q's report, or its XML\n"
               "  topo -m                                               the GPU connection matrix\n"
               "  -i, --id LIST   -l, --loop SECONDS   -lms, --loop-ms MS   -f, --filename FILE\n"
               "  --help-query-gpu, --help-query-compute-apps, --help-query-remapped-rows,\n"
               "  --help-query-retired-pages                            the fields\n"
               "Not answered (one line, status 2): options that change settings (-pm, -pl, -c, -e, -ac,\n"
               "-r, -mig, ...: gpuwatch only reads), --query-accounted-apps, --query-supported-clocks, --dtd,\n"
               "and nvidia-smi's other subcommands (nvlink, mig, clocks, ...); the MIG devices table is not\n"
               "drawn. See gpuwatch(1), docs/cli.md and docs/nvidia-smi.md.\n");
}

/* --- where --sim finds gpusim's library and the scenarios ---------------------------------------- */

static int debug_sim(void)
{
    const char *d = getenv("GPUWATCH_DEBUG");
    return d && strstr(d, "sim") != NULL;
}

/* Candidate directories, first hit wins: next to the program (the build tree for the library, an
 * install under any prefix), the configured install prefix, then the source/build tree it was
 * built from. */
static int lib_dirs(char dirs[][PATH_MAX], const char *where[], int max)
{
    char self[PATH_MAX];
    int n = 0;
    program_dir(self, sizeof self);
    if (n < max) {
        snprintf(dirs[n], PATH_MAX, "%.*s/gpusim", PATH_MAX - 16, self);
        where[n++] = "next to the program";
    }
    if (n < max) {
        snprintf(dirs[n], PATH_MAX, "%.*s/../%s/gpuwatch/gpusim", PATH_MAX - 64, self, GW_INSTALL_LIBDIR);
        where[n++] = "the program's prefix";
    }
    if (n < max) {
        snprintf(dirs[n], PATH_MAX, "%s/%s/gpuwatch/gpusim", GW_INSTALL_PREFIX, GW_INSTALL_LIBDIR);
        where[n++] = "the install prefix";
    }
    if (n < max) {
        snprintf(dirs[n], PATH_MAX, "%s/gpusim", GW_BUILD_DIR);
        where[n++] = "the build tree";
    }
    return n;
}

static int scenario_dirs(char dirs[][PATH_MAX], const char *where[], int max)
{
    char self[PATH_MAX];
    int n = 0;
    const char *env = getenv("GPUWATCH_SCENARIO_DIR");
    if (env && *env && n < max) {
        snprintf(dirs[n], PATH_MAX, "%s", env);
        where[n++] = "$GPUWATCH_SCENARIO_DIR";
    }
    program_dir(self, sizeof self);
    if (n < max) {
        snprintf(dirs[n], PATH_MAX, "%.*s/../%s/gpuwatch/scenarios", PATH_MAX - 64, self, GW_INSTALL_DATADIR);
        where[n++] = "the program's prefix";
    }
    if (n < max) {
        snprintf(dirs[n], PATH_MAX, "%s/%s/gpuwatch/scenarios", GW_INSTALL_PREFIX, GW_INSTALL_DATADIR);
        where[n++] = "the install prefix";
    }
    if (n < max) {
        snprintf(dirs[n], PATH_MAX, "%s/sim/scenarios", GW_SOURCE_DIR);
        where[n++] = "the source tree";
    }
    return n;
}

#define MAX_DIRS 5

/* Whether file is in one of the first n directories (then that one is what --sim uses: the name is
 * offered once, whichever directories hold it, the same one under two paths included). */
static int in_earlier_dir(char dirs[][PATH_MAX], int n, const char *file)
{
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%.*s/%.256s", PATH_MAX - 1, dirs[i], file);
        if (access(path, R_OK) == 0)
            return 1;
    }
    return 0;
}

/* Calls fn for each scenario name (file name without .yaml) of the scenario directories, once. */
static void each_scenario(void (*fn)(const char *name, void *ctx), void *ctx)
{
    char dirs[MAX_DIRS][PATH_MAX];
    const char *where[MAX_DIRS];
    int n = scenario_dirs(dirs, where, MAX_DIRS);
    for (int i = 0; i < n; i++) {
        DIR *d = opendir(dirs[i]);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            size_t len = strlen(e->d_name);
            if (len > 5 && strcmp(e->d_name + len - 5, ".yaml") == 0 && !in_earlier_dir(dirs, i, e->d_name)) {
                char name[256];
                snprintf(name, sizeof name, "%.*s", (int)(len - 5), e->d_name);
                fn(name, ctx);
            }
        }
        if (d)
            closedir(d);
    }
}

static void offer_scenario(const char *name, void *ctx)
{
    gw_suggest_add((gw_suggest *)ctx, name);
}

static void print_scenario(const char *name, void *ctx)
{
    (void)ctx;
    printf("%s\n", name);
}

/* The first readable "<dir>/<file>"; -1 when none. */
static int find_in(char dirs[][PATH_MAX], const char *where[], int n, const char *file, char *out, size_t len)
{
    for (int i = 0; i < n; i++) {
        snprintf(out, len, "%s/%s", dirs[i], file);
        int ok = access(out, R_OK) == 0;
        char real[PATH_MAX];
        if (ok && realpath(out, real)) /* bin/../share/... -> share/...: what the banner shows */
            snprintf(out, len, "%s", real);
        if (debug_sim())
            fprintf(stderr, "gpuwatch: --sim: %s %s (%s)\n", ok ? "using" : "no", out, where[i]);
        if (ok)
            return i;
    }
    return -1;
}

/* Points the NVML backend at gpusim with the given scenario (a name or a path). */
static int use_simulator(const char *scenario)
{
    char dirs[MAX_DIRS][PATH_MAX], lib[PATH_MAX + 64], path[PATH_MAX + 300];
    const char *where[MAX_DIRS];
    int n = lib_dirs(dirs, where, MAX_DIRS);
    if (find_in(dirs, where, n, "libnvidia-ml.so.1", lib, sizeof lib) < 0) {
        fprintf(stderr, "gpuwatch: --sim: gpusim's libnvidia-ml.so.1 is in none of");
        for (int i = 0; i < n; i++)
            fprintf(stderr, " %s", dirs[i]);
        fprintf(stderr, "\n");
        return -1;
    }
    if (strchr(scenario, '/') || access(scenario, R_OK) == 0) {
        snprintf(path, sizeof path, "%s", scenario);
        if (access(path, R_OK) != 0) {
            fprintf(stderr, "gpuwatch: --sim: cannot read scenario file '%s'\n", scenario);
            return -1;
        }
    } else {
        char file[300];
        snprintf(file, sizeof file, "%.290s.yaml", scenario);
        n = scenario_dirs(dirs, where, MAX_DIRS);
        if (find_in(dirs, where, n, file, path, sizeof path) < 0) {
            char hint[GW_SUGGEST_LEN + 32];
            gw_suggest s;
            gw_suggest_init(&s, scenario);
            each_scenario(offer_scenario, &s);
            fprintf(stderr, "gpuwatch: --sim: no scenario file '%s' and no scenario named '%s'%s\n", scenario, scenario,
                    gw_suggest_suffix(&s, hint, sizeof hint));
            fprintf(stderr, "(looked in");
            for (int i = 0; i < n; i++)
                fprintf(stderr, " %s", dirs[i]);
            fprintf(stderr, "; gpuwatch --complete scenarios lists the names)\n");
            return -1;
        }
    }
    setenv("GPUWATCH_NVML_LIB", lib, 1);
    setenv("GPUSIM_SCENARIO", path, 1);
    return 0;
}

/* --- the hidden completion helper ---------------------------------------------------------------- */

/* gpuwatch --complete commands|scenarios|fields|apps-fields|sections|formats [CMD] */
static int complete(int argc, char **argv)
{
    if (argc < 1) {
        fprintf(stderr, "gpuwatch: --complete needs commands, scenarios, fields, apps-fields, sections or formats\n");
        return GW_EXIT_USAGE;
    }
    if (strcmp(argv[0], "commands") == 0) {
        for (size_t i = 0; i < NCOMMANDS; i++)
            printf("%s\n", commands[i].name);
        printf("help\n");
        return 0;
    }
    if (strcmp(argv[0], "scenarios") == 0) {
        each_scenario(print_scenario, NULL);
        return 0;
    }
    if (complete_words(argv[0], argc > 1 ? argv[1] : NULL, stdout) == 0)
        return 0;
    fprintf(stderr, "gpuwatch: --complete: unknown list '%s'\n", argv[0]);
    return GW_EXIT_USAGE;
}

/* --- dispatch ------------------------------------------------------------------------------------ */

static int unknown_command(const char *name)
{
    char hint[GW_SUGGEST_LEN + 32];
    gw_suggest s;
    gw_suggest_init(&s, name);
    for (size_t i = 0; i < NCOMMANDS; i++)
        gw_suggest_add(&s, commands[i].name);
    gw_suggest_add(&s, "help");
    fprintf(stderr, "gpuwatch: unknown command '%s'%s\n", name, gw_suggest_suffix(&s, hint, sizeof hint));
    fprintf(stderr, "Try 'gpuwatch --help'.\n");
    return GW_EXIT_USAGE;
}

static int unknown_option(const char *opt)
{
    char word[GW_SUGGEST_LEN], hint[GW_SUGGEST_LEN + 32];
    snprintf(word, sizeof word, "%s", opt);
    char *eq = strchr(word, '=');
    if (eq)
        *eq = 0;
    gw_suggest s;
    gw_suggest_init(&s, word);
    for (int i = 0; global_options[i]; i++)
        gw_suggest_add(&s, global_options[i]);
    smi_offer_options(&s);
    fprintf(stderr, "gpuwatch: unknown option '%s'%s\n", word, gw_suggest_suffix(&s, hint, sizeof hint));
    fprintf(stderr, "Try 'gpuwatch --help'.\n");
    return GW_EXIT_USAGE;
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
        } else if (strcmp(argv[i], "--complete") == 0) {
            return complete(argc - i - 1, argv + i + 1);
        } else if (smi_is_option(argv[i])) {
            return cmd_smi(argc - i, argv + i);
        } else {
            return unknown_option(argv[i]);
        }
    }
    if (i >= argc) /* as nvidia-smi alone: the summary table */
        return cmd_smi(0, argv + i);
    for (size_t c = 0; c < NCOMMANDS; c++)
        if (strcmp(argv[i], commands[c].name) == 0)
            return commands[c].run ? commands[c].run(argc - i, argv + i)
                                   : module_run(commands[c].module, commands[c].name, argc - i, argv + i);
    if (strcmp(argv[i], "help") == 0) {
        usage(stdout);
        return 0;
    }
    return unknown_command(argv[i]);
}
