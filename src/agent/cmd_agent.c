/* cmd_agent.c - `gpuwatch agent`: options, config file, signals (TERM/INT stop, HUP reloads). */
#include <pthread.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agent.h"
#include "auth.h"
#include "agent_commands.h"
#include "agent_state.h"
#include "http_server.h"
#include "util.h"

/* The usage, with the options the plugins add (their keys given on the command line). */
static void usage(FILE *f, const pipeline_plugin *const *plugins)
{
    fprintf(f,
            "usage: gpuwatch [--sim SCENARIO] agent [OPTIONS]\n"
            "  Samples every GPU continuously and serves Prometheus /metrics (dcgm-exporter compatible\n"
            "  and gpuwatch_ series), a JSON API (/api/v1/...), /healthz and / .\n\n"
            "options:\n"
            "  --config FILE        YAML configuration (default %s; see docs/config.md)\n"
            "  --listen ADDR        [host]:port to listen on (default :9400; port 0 = any free port)\n"
            "  --interval DUR       sampling interval (default 1s, at least 100ms)\n"
            "  --log-level LEVEL    debug, info, warn or error (default info)\n"
            "  --port-file FILE     write the bound port to FILE once listening\n",
            GW_DEFAULT_CONFIG);
    for (int i = 0; plugins[i]; i++)
        for (const pipeline_plugin_option *po = plugins[i]->options; po && po->names; po++) {
            char spelled[64];
            snprintf(spelled, sizeof spelled, "%s %s", po->names, po->meta ? po->meta : "VALUE");
            fprintf(f, "  %-20s %s\n", spelled, po->help ? po->help : "");
        }
    fprintf(f, "  --web.config.file FILE  Prometheus web-config (tls_server_config, basic_auth_users);\n"
               "                       overrides tls and basic_auth_users of the config file\n"
               "  --hash-password [PW] print a bcrypt hash for basic_auth_users (PW or a line on stdin;\n"
               "                       bcrypt reads at most 72 bytes of a password)\n"
               "signals: SIGTERM/SIGINT stop, SIGHUP reloads the configuration.\n");
}

static int hash_password(const char *pw)
{
    char line[512];
    if (!pw) {
        if (!fgets(line, sizeof line, stdin)) {
            fprintf(stderr, "gpuwatch agent: --hash-password: no password on stdin\n");
            return 1;
        }
        line[strcspn(line, "\r\n")] = 0;
        pw = line;
    }
    size_t len = strlen(pw);
    if (len > AUTH_BCRYPT_MAX_PASSWORD)
        fprintf(stderr,
                "gpuwatch agent: --hash-password: warning: the password is %zu bytes and bcrypt uses only the "
                "first %d; any password that starts with the same %d bytes will be accepted\n",
                len, AUTH_BCRYPT_MAX_PASSWORD, AUTH_BCRYPT_MAX_PASSWORD);
    char hash[128];
    if (auth_hash_password(pw, hash, sizeof hash) != 0) {
        fprintf(stderr, "gpuwatch agent: cannot make a bcrypt hash\n");
        return 1;
    }
    printf("%s\n", hash);
    return 0;
}

/* The last guard of a bounded stop: whatever agent_stop waits on (a plugin's last flush on a
 * hung disk...), the process is gone AGENT_STOP_S seconds after the signal. */
static void *stop_watchdog(void *arg)
{
    (void)arg;
    gw_sleep_us(AGENT_STOP_S * 1000000ull);
    gw_log(GW_LOG_ERROR, "stopping took too long; exiting now", "limit_s=%d", AGENT_STOP_S);
    fflush(NULL);
    _exit(1);
    return NULL;
}

static void start_stop_watchdog(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, stop_watchdog, NULL) == 0)
        pthread_detach(t);
}

#define MAX_ROWS 32

typedef struct options {
    const pipeline_plugin *const *plugins;
    const char *config;
    const char *port_file;
    const char *web_config;
    const char *hash_password; /* --hash-password's PW ("" when it reads stdin) */
    int help, config_explicit;
    agent_cli cli;
    /* the plugins' options: row i of the table (from first_plugin_row) is plugin_opt[i]'s */
    const gw_opt *rows;
    int first_plugin_row;
    const pipeline_plugin *plugin_of[MAX_ROWS];
    const pipeline_plugin_option *plugin_opt[MAX_ROWS];
    doc_override overrides[DOC_MAX_OVERRIDES];
    int noverrides;
} options;

static int check_listen(const gw_opt *opt, const char *value, void *out, char *why, size_t n)
{
    if (config_check_listen(value, why, n) != 0)
        return -1;
    ((options *)out)->cli.listen = value;
    (void)opt;
    return 0;
}

static int check_log_level(const gw_opt *opt, const char *value, void *out, char *why, size_t n)
{
    options *o = out;
    (void)opt;
    if (gw_log_parse_level(value, &o->cli.log_level) != 0) {
        snprintf(why, n, "expected debug, info, warn or error, got '%s'", value);
        return -1;
    }
    o->cli.log_level_set = 1;
    return 0;
}

/* A plugin's option: its value checked by the option's type, kept as an override of its key. */
static int check_plugin_option(const gw_opt *opt, const char *value, void *out, char *why, size_t n)
{
    options *o = out;
    int i = (int)(opt - o->rows);
    const pipeline_plugin_option *po = o->plugin_opt[i];
    gw_opt typed = {po->names, po->type, .off = 0};
    union {
        double d;
        long l;
        const char *s;
        uint64_t u;
        int64_t t;
        int k;
    } scratch;
    if (gw_opt_store(&typed, value, &scratch, why, n) != 0)
        return -1;
    if (o->noverrides == DOC_MAX_OVERRIDES) {
        snprintf(why, n, "too many options of the plugins");
        return -1;
    }
    o->overrides[o->noverrides++] = (doc_override){o->plugin_of[i]->name, po->key, value};
    return 0;
}

#define AT(field) .off = offsetof(options, field)

static const gw_opt own_rows[] = {
    {"--config", GW_OPT_PATH, AT(config)},
    {"--listen", GW_OPT_CUSTOM, .check = check_listen},
    {"--interval", GW_OPT_DURATION, AT(cli.interval), .min = 0.1},
    {"--log-level", GW_OPT_CUSTOM, .check = check_log_level},
    {"--port-file", GW_OPT_PATH, AT(port_file)},
    {"--web.config.file,--web.config", GW_OPT_FILE, AT(web_config)},
    {"--hash-password", GW_OPT_TEXT, AT(hash_password), .flags = GW_OPT_OPTIONAL_VALUE, .dflt = NULL},
    {"-h,--help", GW_OPT_FLAG, AT(help)},
};
#define NOWN (int)(sizeof own_rows / sizeof own_rows[0])

/* The agent's options, then each plugin's, into rows (MAX_ROWS). */
static void build_rows(options *o, gw_opt *rows)
{
    int n = 0;
    for (; n < NOWN; n++)
        rows[n] = own_rows[n];
    o->first_plugin_row = n;
    for (int i = 0; o->plugins[i]; i++)
        for (const pipeline_plugin_option *po = o->plugins[i]->options; po && po->names && n + 1 < MAX_ROWS; po++) {
            o->plugin_of[n] = o->plugins[i];
            o->plugin_opt[n] = po;
            rows[n++] = (gw_opt){po->names, GW_OPT_CUSTOM, .check = check_plugin_option};
        }
    rows[n] = (gw_opt){0};
    o->rows = rows;
}

/* Returns GW_ARGS_RUN, or the exit status in *exit_code (after --help, --hash-password or a usage error). */
static int parse_args(int argc, char **argv, options *o, gw_opt *rows, int *exit_code)
{
    const pipeline_plugin *const *plugins = o->plugins;
    memset(o, 0, sizeof *o);
    o->plugins = plugins;
    o->config = GW_DEFAULT_CONFIG;
    build_rows(o, rows);
    gw_cmd cmd = {.name = "agent", .opts = rows};
    gw_args a;
    int rc = gw_args_parse(&cmd, argc, argv, o, &a);
    if (rc != GW_ARGS_RUN) {
        *exit_code = gw_args_exit(rc);
        return rc;
    }
    if (o->help) {
        usage(stdout, plugins);
        *exit_code = 0;
        return GW_ARGS_HELP;
    }
    if (gw_args_given(&a, "--hash-password")) {
        *exit_code = hash_password(o->hash_password);
        return GW_ARGS_HELP;
    }
    o->config_explicit = gw_args_given(&a, "--config");
    return GW_ARGS_RUN;
}

/* Loads and checks the config; prints its errors. NULL on error. */
static gw_config *load_config(const options *o)
{
    gw_config *cfg = malloc(sizeof *cfg);
    if (!cfg)
        return NULL;
    config_init(cfg);
    config_load_file(cfg, o->config, o->config_explicit);
    cfg->doc.overrides = o->overrides; /* the plugins' keys given on the command line */
    cfg->doc.noverrides = o->noverrides;
    if (cfg->doc.loaded)
        plugins_check(o->plugins, cfg);
    if (o->web_config && cfg->errs.n == 0)
        config_load_web_config(cfg, o->web_config);
    if (cfg->errs.n) {
        for (int i = 0; i < cfg->errs.n; i++)
            gw_log(GW_LOG_ERROR, "config error", "error=\"%s\"", cfg->errs.msg[i]);
        config_free(cfg);
        free(cfg);
        return NULL;
    }
    return cfg;
}

static int write_port_file(const char *path, int port)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fprintf(f, "%d\n", port);
    if (fclose(f) != 0)
        return -1;
    return rename(tmp, path);
}

/* Tells the local commands where this agent is and what its plugins advertised (agent_state.h). */
static void advertise(agent *a, const options *o)
{
    agent_state st = {.pid = (int)getpid()};
    const char *listen = a->cfg->listen, *colon = strrchr(listen, ':');
    int host_len = colon ? (int)(colon - listen) : 0;
    if (host_len == 0 || (host_len == 7 && !strncmp(listen, "0.0.0.0", 7)) ||
        (host_len == 4 && !strncmp(listen, "[::]", 4)))
        snprintf(st.listen, sizeof st.listen, "127.0.0.1:%d", http_port(a->http));
    else
        snprintf(st.listen, sizeof st.listen, "%.*s:%d", host_len, listen, http_port(a->http));
    gw_strlcpy(st.config, o->config, sizeof st.config);
    const char *keys[PIPELINE_MAX_PLUGINS], *values[PIPELINE_MAX_PLUGINS];
    int nfacts = agent_facts(a, keys, values, PIPELINE_MAX_PLUGINS);
    if (agent_state_write(&st, keys, values, nfacts) != 0)
        gw_log(GW_LOG_WARN, "cannot write the agent's state file (local commands will not find this agent)", NULL);
}

int agent_command(int argc, char **argv, const pipeline_plugin *const *plugins)
{
    options o; /* the configuration is loaded again from it at each SIGHUP */
    gw_opt rows[MAX_ROWS];
    int code = 0;
    o.plugins = plugins;
    if (parse_args(argc, argv, &o, rows, &code) != GW_ARGS_RUN)
        return code;
    if (o.cli.log_level_set)
        gw_log_set_level(o.cli.log_level);
    gw_config *cfg = load_config(&o);
    if (!cfg)
        return 1;
    /* Signals go to this thread only (sigwait below): block them before any thread starts. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    agent *a = calloc(1, sizeof *a);
    if (!a || agent_init(a, cfg, &o.cli) != 0) {
        gw_log(GW_LOG_ERROR, "out of memory", NULL);
        free(a);
        return 1;
    }
    int rc = 0;
    for (int i = 0; rc == 0 && plugins[i]; i++)
        if (agent_add_plugin(a, plugins[i], a->cfg) != 0)
            rc = 1;
    char err[512] = "";
    if (rc == 0 && agent_start(a, err, sizeof err) != 0) {
        gw_log(GW_LOG_ERROR, "agent failed to start", "error=\"%s\"", err);
        rc = 1;
    }
    if (rc == 0 && o.port_file && write_port_file(o.port_file, http_port(a->http)) != 0) {
        gw_log(GW_LOG_ERROR, "cannot write the port file", "path=%s", o.port_file);
        rc = 1;
    }
    if (rc == 0)
        advertise(a, &o);
    if (rc == 0) {
        gw_log(GW_LOG_INFO, "agent started", "config=%s interval=%g pid=%d", o.config, agent_interval(a),
               (int)getpid());
        for (;;) {
            int sig = 0;
            if (sigwait(&set, &sig) != 0)
                continue;
            if (sig != SIGHUP) {
                gw_log(GW_LOG_INFO, "stopping", "signal=%s", sig == SIGTERM ? "TERM" : "INT");
                start_stop_watchdog();
                break;
            }
            gw_config *fresh = load_config(&o);
            if (fresh)
                agent_reload(a, fresh);
            else
                gw_log(GW_LOG_WARN, "reload failed, keeping the current configuration", NULL);
        }
    }
    agent_state_remove();
    if (agent_stop(a) != 0) {
        /* A thread is still inside a backend call that may never return: nothing it may touch
         * was freed, and the process ends here rather than in exit handlers that could wait on it. */
        gw_log(GW_LOG_INFO, "stopped", "abandoned_backend_call=1");
        fflush(NULL);
        _exit(rc);
    }
    free(a);
    return rc;
}

void agent_options(const pipeline_plugin *const *plugins, const char *sub, gw_opt_visit *fn, void *ctx)
{
    options o = {.plugins = plugins};
    gw_opt rows[MAX_ROWS];
    build_rows(&o, rows);
    gw_cmd cmd = {.name = "agent", .opts = rows};
    gw_args_each_option(&cmd, sub, fn, ctx);
}
