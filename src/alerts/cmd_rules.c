/* cmd_rules.c - `gpuwatch rules check FILE...` and `gpuwatch rules test FILE...`. */
#include <stdio.h>
#include <string.h>
#include "alerts.h"
#include "rules.h"
#include "rules_test.h"
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
        int rc = rules_test_file(files[i], stdout, stderr);
        if (rc != 0) {
            if (rc > 0)
                printf("%s: %d check%s FAILED\n", files[i], rc, rc == 1 ? "" : "s");
            bad = 1;
        }
    }
    return bad;
}

int cmd_rules(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc < 3 || (strcmp(argv[1], "check") != 0 && strcmp(argv[1], "test") != 0)) {
        usage(stderr);
        return 2;
    }
    fflush(stdout);
    gw_log_set_level(GW_LOG_ERROR); /* the engine logs each transition; tests print only results */
    int rc = strcmp(argv[1], "check") == 0 ? check_files(argc - 2, argv + 2) : test_files(argc - 2, argv + 2);
    return rc;
}
