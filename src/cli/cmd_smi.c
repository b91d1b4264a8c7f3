/* cmd_smi.c - gpuwatch's nvidia-smi form: the options of an nvidia-smi command line, with their
 * meanings. `gpuwatch --query-gpu=F,... --format=csv -i 0 -l 1`, `--query-compute-apps=...`, `-L`,
 * `-q -d MEMORY`, `--help-query-gpu`: each hands its arguments to query, list or the -q report, which
 * take nvidia-smi's spellings too. Settings (-pm, -pl, -c, ...) are refused: gpuwatch only reads. */
#include "commands.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "help_fields.h"
#include "options.h"
#include "query_procs.h"
#include "query_rows.h"
#include "sampler.h"
#include "smi_report.h"
#include "smi_table.h"
#include "suggest.h"

/* The options of the nvidia-smi form, for recognition and "did you mean". */
static const char *const smi_options[] = {"--query-gpu",
                                          "--query-compute-apps",
                                          "--format",
                                          "-i",
                                          "--id",
                                          "-l",
                                          "--loop",
                                          "-lms",
                                          "--loop-ms",
                                          "-f",
                                          "--filename",
                                          "-L",
                                          "--list-gpus",
                                          "-q",
                                          "--query",
                                          "-a",
                                          "-d",
                                          "--display",
                                          "--help-query-gpu",
                                          "--help-query-compute-apps",
                                          "--query-remapped-rows",
                                          "--query-retired-pages",
                                          "--help-query-remapped-rows",
                                          "--help-query-retired-pages",
                                          "-x",
                                          "--xml-format",
                                          NULL};

/* nvidia-smi options that change GPU settings, and reports gpuwatch does not produce. */
static const char *const refused[] = {"-pm",  "--persistence-mode",
                                      "-e",   "--ecc-config",
                                      "-p",   "--reset-ecc-errors",
                                      "-c",   "--compute-mode",
                                      "-dm",  "--driver-model",
                                      "-fdm", "--force-driver-model",
                                      "-ac",  "--applications-clocks",
                                      "-rac", "--reset-applications-clocks",
                                      "-acp", "--applications-clocks-permission",
                                      "-pl",  "--power-limit",
                                      "-lgc", "--lock-gpu-clocks",
                                      "-rgc", "--reset-gpu-clocks",
                                      "-lmc", "--lock-memory-clocks",
                                      "-rmc", "--reset-memory-clocks",
                                      "-r",   "--gpu-reset",
                                      "-mig", "--multi-instance-gpu",
                                      "-gtt", "--gpu-target-temp",
                                      "-cc",  "--cuda-clocks",
                                      "-am",  "--accounting-mode",
                                      "-caa", "--clear-accounted-apps",
                                      NULL};

/* The name part of "--opt=value". */
static size_t opt_len(const char *arg)
{
    const char *eq = arg[0] == '-' && arg[1] == '-' ? strchr(arg, '=') : NULL;
    return eq ? (size_t)(eq - arg) : strlen(arg);
}

static int in_list(const char *const *list, const char *arg)
{
    size_t n = opt_len(arg);
    for (int i = 0; list[i]; i++)
        if (strlen(list[i]) == n && strncmp(list[i], arg, n) == 0)
            return 1;
    return 0;
}

int smi_is_option(const char *arg)
{
    return in_list(smi_options, arg) || in_list(refused, arg) || strcmp(arg, "-x") == 0 ||
           strcmp(arg, "--xml-format") == 0 || strncmp(arg, "--query-", 8) == 0;
}

void smi_offer_options(struct gw_suggest *s)
{
    for (int i = 0; smi_options[i]; i++)
        gw_suggest_add(s, smi_options[i]);
}

/* Runs run(argc, argv) on the arguments without those in drop, after name (the command's argv[0]). */
static int hand_to(int (*run)(int, char **), const char *name, int argc, char **argv, const char *const *drop)
{
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!args) {
        fprintf(stderr, "gpuwatch: out of memory\n");
        return 1;
    }
    static char cmd[32];
    snprintf(cmd, sizeof cmd, "%s", name);
    int n = 0;
    args[n++] = cmd;
    for (int i = 0; i < argc; i++)
        if (!drop || !in_list(drop, argv[i]))
            args[n++] = argv[i];
    args[n] = NULL;
    int rc = run(n, args);
    free(args);
    return rc;
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gpuwatch: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'gpuwatch --help'.\n");
    va_end(ap);
    return GW_EXIT_USAGE;
}

int cmd_smi(int argc, char **argv)
{
    static const char *const list_flags[] = {"-L", "--list-gpus", NULL};
    static const char *const report_flags[] = {"-q", "--query", "-a", NULL};
    int list = 0, report = 0, query = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (in_list(refused, a))
            return usage_error("'%s' changes GPU settings, which gpuwatch does not do (it only reads: use nvidia-smi)",
                               a);
        if (strcmp(a, "--help-query-gpu") == 0) {
            help_fields_print_smi(stdout);
            return 0;
        }
        if (strcmp(a, "--help-query-compute-apps") == 0) {
            proc_fields_help_smi(stdout);
            return 0;
        }
        if (strcmp(a, "--help-query-remapped-rows") == 0 || strcmp(a, "--help-query-retired-pages") == 0) {
            query_rows_help(stdout, strstr(a, "remapped") ? 'r' : 'p');
            return 0;
        }
        if (strncmp(a, "--query-", 8) == 0 && !in_list(smi_options, a))
            return usage_error("'%.*s' is not answered (gpuwatch answers --query-gpu and --query-compute-apps)",
                               (int)opt_len(a), a);
        list |= in_list(list_flags, a);
        report |= in_list(report_flags, a) || strcmp(a, "-x") == 0 || strcmp(a, "--xml-format") == 0;
        query |= strncmp(a, "--query-", 8) == 0;
    }
    if (list + report + query > 1)
        return usage_error("%s", "-L, -q, --query-gpu and --query-compute-apps do not go together");
    if (list)
        return hand_to(cmd_list, "list", argc, argv, list_flags);
    if (report)
        return hand_to(smi_report_run, "-q", argc, argv, report_flags);
    if (query)
        return hand_to(cmd_query, "query", argc, argv, NULL);
    return hand_to(smi_table_run, "", argc, argv, NULL); /* nvidia-smi with no query: the summary table */
}
