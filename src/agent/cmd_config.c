/* cmd_config.c - `gpuwatch config check [FILE]`: every error as FILE:LINE:COL, or "FILE: OK". */
#include <stdio.h>
#include <string.h>
#include "agent.h"
#include "agent_commands.h"
#include "sampler.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpuwatch config check [FILE]\n"
            "  Checks an agent configuration file (default %s).\n"
            "  Prints every error as FILE:LINE:COL: message and exits 1, or prints FILE: OK.\n",
            GW_DEFAULT_CONFIG);
}

static const gw_cmd check_cmd = {.name = "config check", .usage_fn = usage, .max_args = 1, .args_name = "FILE"};
static const gw_cmd *const subcommands[] = {&check_cmd, NULL};
static const gw_cmd config_cmd = {.name = "config", .usage_fn = usage, .subs = subcommands, .needs_sub = 1};

int plugins_check(const pipeline_plugin *const *plugins, gw_config *cfg)
{
    const char *names[PIPELINE_MAX_PLUGINS + 1];
    int n = 0;
    for (int i = 0; plugins[i] && n < PIPELINE_MAX_PLUGINS; i++) {
        names[n++] = plugins[i]->name;
        if (plugins[i]->check)
            plugins[i]->check(&cfg->doc);
    }
    names[n] = NULL;
    return config_check_keys(cfg, names);
}

int config_command(int argc, char **argv, const pipeline_plugin *const *plugins)
{
    gw_args a;
    int rc = gw_args_parse(&config_cmd, argc, argv, NULL, &a);
    if (rc != GW_ARGS_RUN)
        return gw_args_exit(rc);
    const char *path = a.npos ? a.pos[0] : GW_DEFAULT_CONFIG;
    gw_config cfg;
    config_init(&cfg);
    config_load_file(&cfg, path, 1);
    if (cfg.doc.loaded) /* every problem at once: the plugins' sections too */
        plugins_check(plugins, &cfg);
    int bad = cfg.errs.n;
    for (int i = 0; i < cfg.errs.n; i++)
        fprintf(stderr, "%s\n", cfg.errs.msg[i]);
    if (!bad)
        printf("%s: OK\n", path);
    config_free(&cfg);
    return bad ? 1 : 0;
}

void config_options(const char *sub, gw_opt_visit *fn, void *ctx)
{
    gw_args_each_option(&config_cmd, sub, fn, ctx);
}
