/* cmd_rules.c - `gpuwatch rules check FILE...` and `gpuwatch rules test FILE...`. */
#include <stdio.h>
#include <string.h>
#include "rules_command.h"
#include "alerts.h"
#include "rules.h"
#include "rules_verify.h"
#include "args.h"
#include "util.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuwatch rules check FILE...   check alert rule files (every error as FILE:LINE:COL)\n"
               "       gpuwatch rules test FILE...    run rule unit tests (promtool test rules format)\n"
               "\nRule format, default rules and receivers: docs/alerts.md\n");
}

static int check_files(int n, char **files)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        ruleset rs = {0};
        errlist errs = {0};
        if (rules_load_file(&rs, files[i], &errs) == 0) {
            int count = ruleset_count(&rs);
            printf("%s: %d rule%s OK\n", files[i], count, count == 1 ? "" : "s");
        } else {
            errlist_sort(&errs);
            for (int k = 0; k < errs.n; k++)
                fprintf(stderr, "%s\n", errs.msg[k]);
            bad = 1;
        }
        errlist_free(&errs);
        ruleset_free(&rs);
    }
    return bad;
}

static int test_files(int n, char **files)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int rc = rules_verify_file(files[i], stdout, stderr);
        if (rc != 0) {
            if (rc > 0)
                printf("%s: %d check%s FAILED\n", files[i], rc, rc == 1 ? "" : "s");
            bad = 1;
        }
    }
    return bad;
}

static const gw_cmd check_cmd = {
    .name = "rules check", .usage_fn = usage, .min_args = 1, .max_args = -1, .args_name = "FILE..."};
static const gw_cmd test_cmd = {
    .name = "rules test", .usage_fn = usage, .min_args = 1, .max_args = -1, .args_name = "FILE..."};
static const gw_cmd *const subcommands[] = {&check_cmd, &test_cmd, NULL};
static const gw_cmd rules_cmd = {.name = "rules", .usage_fn = usage, .subs = subcommands, .needs_sub = 1};

int cmd_rules(int argc, char **argv)
{
    gw_args a;
    int rc = gw_args_parse(&rules_cmd, argc, argv, NULL, &a);
    if (rc != GW_ARGS_RUN)
        return gw_args_exit(rc);
    fflush(stdout);
    gw_log_set_level(GW_LOG_ERROR); /* the engine logs each transition; tests print only results */
    return a.cmd == &check_cmd ? check_files(a.npos, a.pos) : test_files(a.npos, a.pos);
}

void rules_options(const char *sub, gw_opt_visit *fn, void *ctx)
{
    gw_args_each_option(&rules_cmd, sub, fn, ctx);
}
