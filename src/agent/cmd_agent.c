/* cmd_agent.c - `gpuwatch agent`: options, config file, signals (TERM/INT stop, HUP reloads). */
#include <pthread.h>
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

static void usage(FILE *f)
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
            "  --port-file FILE     write the bound port to FILE once listening\n"
            "  --db PATH            history file (overrides history.path; see docs/history.md)\n"
            "  --web.config.file FILE  Prometheus web-config (tls_server_config, basic_auth_users);\n"
            "                       overrides tls and basic_auth_users of the config file\n"
            "  --hash-password [PW] print a bcrypt hash for basic_auth_users (PW or a line on stdin;\n"
            "                       bcrypt reads at most 72 bytes of a password)\n"
            "signals: SIGTERM/SIGINT stop, SIGHUP reloads the configuration.\n",
            GW_DEFAULT_CONFIG);
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

typedef struct {
    const agent_plugin *const *plugins;
    const char *config;
    int config_explicit;
    const char *port_file;
    const char *web_config;
    agent_cli cli;
} options;

static int parse_args(int argc, char **argv, options *o, int *exit_code)
{
    memset(o, 0, sizeof *o);
    o->config = GW_DEFAULT_CONFIG;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            *exit_code = 0;
            return -1;
        }
        if (!strcmp(arg, "--hash-password")) {
            *exit_code = hash_password(val);
            return -1;
        }
        if (!val) {
            fprintf(stderr, "gpuwatch agent: unknown option or missing value: '%s'\n", arg);
            *exit_code = GW_EXIT_USAGE;
            return -1;
        }
        i++;
        if (!strcmp(arg, "--config")) {
            o->config = val;
            o->config_explicit = 1;
        } else if (!strcmp(arg, "--listen")) {
            char why[128];
            if (config_check_listen(val, why, sizeof why) != 0) {
                fprintf(stderr, "gpuwatch agent: --listen '%s': %s\n", val, why);
                *exit_code = GW_EXIT_USAGE;
                return -1;
            }
            o->cli.listen = val;
        } else if (!strcmp(arg, "--web.config.file") || !strcmp(arg, "--web.config")) {
            o->web_config = val;
        } else if (!strcmp(arg, "--port-file")) {
            o->port_file = val;
        } else if (!strcmp(arg, "--db")) {
            setenv("GPUWATCH_HISTORY_DB", val, 1); /* read by the history plugin, over history.path */
        } else if (!strcmp(arg, "--interval")) {
            if (gw_parse_duration(val, &o->cli.interval) != 0 || o->cli.interval < 0.1) {
                fprintf(stderr, "gpuwatch agent: --interval '%s': a duration of at least 100ms\n", val);
                *exit_code = GW_EXIT_USAGE;
                return -1;
            }
        } else if (!strcmp(arg, "--log-level")) {
            if (gw_log_parse_level(val, &o->cli.log_level) != 0) {
                fprintf(stderr, "gpuwatch agent: --log-level '%s': debug, info, warn or error\n", val);
                *exit_code = GW_EXIT_USAGE;
                return -1;
            }
            o->cli.log_level_set = 1;
        } else {
            fprintf(stderr, "gpuwatch agent: unknown option '%s'\n", arg);
            usage(stderr);
            *exit_code = GW_EXIT_USAGE;
            return -1;
        }
    }
    return 0;
}

/* Loads and checks the config; prints its errors. NULL on error. */
static gw_config *load_config(const options *o)
{
    gw_config *cfg = malloc(sizeof *cfg);
    if (!cfg)
        return NULL;
    config_init(cfg);
    config_load_file(cfg, o->config, o->config_explicit);
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
    const char *keys[AGENT_MAX_PLUGINS], *values[AGENT_MAX_PLUGINS];
    for (int i = 0; i < a->nfacts; i++) {
        keys[i] = a->facts[i].key;
        values[i] = a->facts[i].value;
    }
    if (agent_state_write(&st, keys, values, a->nfacts) != 0)
        gw_log(GW_LOG_WARN, "cannot write the agent's state file (local commands will not find this agent)", NULL);
}

int agent_command(int argc, char **argv, const agent_plugin *const *plugins)
{
    options o;
    int code = 0;
    if (parse_args(argc, argv, &o, &code) != 0)
        return code;
    o.plugins = plugins;
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
