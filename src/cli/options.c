/* options.c - getopt_long parsing of the commands' shared options, with usage errors (exit 2). */
#include "options.h"
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "suggest.h"
#include "util.h"

enum {
    LONG_FIELDS = 256,
    LONG_FORMAT,
    LONG_NOHEADER,
    LONG_NOUNITS,
    LONG_HELP_FIELDS,
    LONG_PROCESSES,
    LONG_QUERY_GPU,
    LONG_QUERY_APPS,
    LONG_QUERY_REMAP,
    LONG_QUERY_PAGES,
    LONG_LOOP_MS
};

typedef struct {
    unsigned opt;
    struct option lo;
    char short_name; /* 0 = long only */
} opt_def;

static const opt_def all_opts[] = {
    {OPT_FIELDS, {"fields", required_argument, NULL, LONG_FIELDS}, 0},
    {OPT_ID, {"id", required_argument, NULL, 'i'}, 'i'},
    {OPT_FORMAT, {"format", required_argument, NULL, LONG_FORMAT}, 0},
    {OPT_NOHEADER, {"noheader", no_argument, NULL, LONG_NOHEADER}, 0},
    {OPT_NOUNITS, {"nounits", no_argument, NULL, LONG_NOUNITS}, 0},
    {OPT_HELP_FIELDS, {"help-fields", no_argument, NULL, LONG_HELP_FIELDS}, 0},
    {OPT_PROCESSES, {"processes", no_argument, NULL, LONG_PROCESSES}, 0},
    {OPT_DELAY, {"delay", required_argument, NULL, 'd'}, 'd'},
    {OPT_COUNT, {"count", required_argument, NULL, 'c'}, 'c'},
    {OPT_SELECT, {"select", required_argument, NULL, 's'}, 's'},
    {OPT_DATETIME, {"options", required_argument, NULL, 'o'}, 'o'},
    {OPT_QUERY_GPU, {"query-gpu", required_argument, NULL, LONG_QUERY_GPU}, 0},
    {OPT_QUERY_APPS, {"query-compute-apps", required_argument, NULL, LONG_QUERY_APPS}, 0},
    {OPT_QUERY_ROWS, {"query-remapped-rows", required_argument, NULL, LONG_QUERY_REMAP}, 0},
    {OPT_QUERY_ROWS, {"query-retired-pages", required_argument, NULL, LONG_QUERY_PAGES}, 0},
    {OPT_LOOP, {"loop", required_argument, NULL, 'l'}, 'l'},
    {OPT_LOOP, {"loop-ms", required_argument, NULL, LONG_LOOP_MS}, 0},
    {OPT_FILE, {"filename", required_argument, NULL, 'f'}, 'f'},
    {OPT_DISPLAY, {"display", required_argument, NULL, 'd'}, 'd'},
};
#define N_OPTS (sizeof all_opts / sizeof all_opts[0])

const char *cli_list_item(const char **p, size_t *len)
{
    const char *s = *p;
    while (*s == ' ')
        s++;
    const char *end = strchr(s, ',');
    size_t n = end ? (size_t)(end - s) : strlen(s);
    *p = end ? end + 1 : s + n;
    while (n && s[n - 1] == ' ')
        n--;
    *len = n;
    return s;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!*cmd) /* the nvidia-smi form's summary table: no command name */
        fprintf(stderr, "gpuwatch: %s\nTry 'gpuwatch --help'.\n", msg);
    else
        fprintf(stderr, "gpuwatch %s: %s\nTry 'gpuwatch %s --help'.\n", cmd, msg, cmd);
    return CLI_USAGE;
}

static const char *format_names[] = {
    [OUT_TABLE] = "table", [OUT_CSV] = "csv", [OUT_JSON] = "json", [OUT_PLAIN] = "plain"};

/* Is name one of the comma separated words in list? */
static int in_list(const char *list, const char *name, size_t len)
{
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, name, len) == 0)
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

static int format_by_name(const char *name, size_t len, out_format *out)
{
    for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++)
        if (strlen(format_names[i]) == len && strncmp(format_names[i], name, len) == 0) {
            *out = (out_format)i;
            return 0;
        }
    return -1;
}

static int format_error(const cli_spec *spec, const char *word, size_t len)
{
    char w[GW_SUGGEST_LEN], hint[GW_SUGGEST_LEN + 32];
    snprintf(w, sizeof w, "%.*s", (int)len, word);
    gw_suggest s;
    gw_suggest_init(&s, w);
    gw_suggest_add_list(&s, spec->formats);
    if (spec->allowed & OPT_NOHEADER)
        gw_suggest_add(&s, "noheader");
    if (spec->allowed & OPT_NOUNITS)
        gw_suggest_add(&s, "nounits");
    return cli_usage_error(spec->cmd, "--format: '%s' is not one of %s%s", w, spec->formats,
                           gw_suggest_suffix(&s, hint, sizeof hint));
}

/* "csv", "csv,noheader,nounits" (nvidia-smi's spelling), "json", ... */
static int parse_format(const cli_spec *spec, const char *arg, cli_opts *o)
{
    int have_format = 0;
    for (const char *p = arg; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 8 && strncmp(p, "noheader", 8) == 0 && (spec->allowed & OPT_NOHEADER))
            o->noheader = 1;
        else if (len == 7 && strncmp(p, "nounits", 7) == 0 && (spec->allowed & OPT_NOUNITS))
            o->nounits = 1;
        else if (!have_format && in_list(spec->formats, p, len) && format_by_name(p, len, &o->format) == 0)
            have_format = 1;
        else
            return format_error(spec, p, len);
        p = end ? end + 1 : p + len;
    }
    o->format_given = 1;
    return CLI_RUN;
}

static int parse_select(const cli_spec *spec, const char *arg, cli_opts *o)
{
    size_t n = 0;
    if (!*arg)
        return cli_usage_error(spec->cmd, "-s: needs one or more of '%s'", spec->letters);
    for (const char *p = arg; *p; p++) {
        if (!strchr(spec->letters, *p))
            return cli_usage_error(spec->cmd, "-s: '%c' is not one of '%s'", *p, spec->letters);
        if (!memchr(o->select, *p, n) && n + 1 < sizeof o->select)
            o->select[n++] = *p;
    }
    o->select[n] = 0;
    return CLI_RUN;
}

static int parse_datetime(const cli_spec *spec, const char *arg, cli_opts *o)
{
    o->show_date = o->show_time = 0;
    if (!*arg)
        return cli_usage_error(spec->cmd, "-o: expected D, T or DT");
    for (const char *p = arg; *p; p++) {
        if (*p == 'D' || *p == 'd')
            o->show_date = 1;
        else if (*p == 'T' || *p == 't')
            o->show_time = 1;
        else
            return cli_usage_error(spec->cmd, "-o: expected D, T or DT, not '%s'", arg);
    }
    return CLI_RUN;
}

static int parse_count(const cli_spec *spec, const char *arg, cli_opts *o)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || end == arg || *end || v < 1)
        return cli_usage_error(spec->cmd, "-c: '%s' is not a positive count", arg);
    o->count = v;
    return CLI_RUN;
}

static int parse_delay(const cli_spec *spec, const char *arg, cli_opts *o)
{
    double s;
    if (gw_parse_duration(arg, &s) != 0 || s != s)
        return cli_usage_error(spec->cmd, "-d: '%s' is not a number of seconds", arg);
    if (s < CLI_MIN_DELAY_S - 1e-9 || s > 86400)
        return cli_usage_error(spec->cmd, "-d: %s is out of range (%.1f to 86400 seconds)", arg, CLI_MIN_DELAY_S);
    o->delay_s = s;
    return CLI_RUN;
}

/* -l SECONDS (a number or a duration such as 500ms) or --loop-ms MILLISECONDS (scale 0.001). */
static int parse_loop(const cli_spec *spec, const char *opt, const char *arg, double scale, cli_opts *o)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    int ok = !errno && end != arg && !*end;
    if (!ok && scale == 1 && gw_parse_duration(arg, &v) == 0)
        ok = 1;
    if (!ok || !(v > 0))
        return cli_usage_error(spec->cmd, "%s: '%s' is not a positive number of %s", opt, arg,
                               scale == 1 ? "seconds" : "milliseconds");
    v *= scale;
    if (v < CLI_MIN_LOOP_S - 1e-12 || v > 86400)
        return cli_usage_error(spec->cmd, "%s: %s is out of range (1 ms to 86400 s)", opt, arg);
    o->loop_s = v;
    return CLI_RUN;
}

/* A value -l takes: a number (also negative, so that it is refused as one) or a duration. */
static int is_loop_value(const char *s)
{
    char *end;
    double d;
    if (!s || !*s)
        return 0;
    errno = 0;
    strtod(s, &end);
    return (!errno && !*end) || gw_parse_duration(s, &d) == 0;
}

void cli_normalize_loop(int argc, char **argv)
{
    static char loop_ms[] = "--loop-ms", loop_default[] = "--loop=5";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "-lms") == 0)
            argv[i] = loop_ms;
        else if ((strcmp(argv[i], "-l") == 0 || strcmp(argv[i], "--loop") == 0) &&
                 (i + 1 >= argc || !is_loop_value(argv[i + 1])))
            argv[i] = loop_default;
    }
}

/* "unknown option '--feilds' — did you mean '--fields'?": the command's own options are the candidates. */
static int unknown_option(const cli_spec *spec, const struct option *longs, const char *shorts, const char *arg)
{
    char word[GW_SUGGEST_LEN], cand[GW_SUGGEST_LEN], hint[GW_SUGGEST_LEN + 32];
    snprintf(word, sizeof word, "%s", arg);
    char *eq = strchr(word, '=');
    if (eq && word[1] == '-')
        *eq = 0;
    gw_suggest s;
    gw_suggest_init(&s, word);
    for (int i = 0; longs[i].name; i++) {
        snprintf(cand, sizeof cand, "--%s", longs[i].name);
        gw_suggest_add(&s, cand);
    }
    for (const char *c = shorts; *c; c++)
        if (*c != ':') {
            snprintf(cand, sizeof cand, "-%c", *c);
            gw_suggest_add(&s, cand);
        }
    return cli_usage_error(spec->cmd, "unknown option '%s'%s", word, gw_suggest_suffix(&s, hint, sizeof hint));
}

static void set_defaults(const cli_spec *spec, cli_opts *o)
{
    memset(o, 0, sizeof *o);
    o->delay_s = 1.0;
    if (spec->formats) {
        const char *end = strchr(spec->formats, ',');
        format_by_name(spec->formats, end ? (size_t)(end - spec->formats) : strlen(spec->formats), &o->format);
    }
    if (spec->letters_default)
        gw_strlcpy(o->select, spec->letters_default, sizeof o->select);
}

int cli_parse(const cli_spec *spec, int argc, char **argv, cli_opts *o)
{
    struct option longs[N_OPTS + 2];
    char shorts[2 * N_OPTS + 4] = ":h";
    size_t nl = 0, ns = strlen(shorts);
    for (size_t i = 0; i < N_OPTS; i++) {
        if (!(spec->allowed & all_opts[i].opt))
            continue;
        longs[nl++] = all_opts[i].lo;
        if (all_opts[i].short_name) {
            shorts[ns++] = all_opts[i].short_name;
            if (all_opts[i].lo.has_arg == required_argument)
                shorts[ns++] = ':';
        }
    }
    longs[nl++] = (struct option){"help", no_argument, NULL, 'h'};
    longs[nl] = (struct option){0, 0, 0, 0};
    shorts[ns] = 0;

    set_defaults(spec, o);
    if (spec->allowed & OPT_LOOP)
        cli_normalize_loop(argc, argv);
    optind = 0; /* GNU: full re-initialisation, so commands and tests can parse again */
    opterr = 0;
    int c, rc = CLI_RUN;
    while (rc == CLI_RUN && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(spec->usage, stdout); return CLI_HELP;
        case LONG_FIELDS: o->fields = optarg; break;
        case 'i': o->ids = optarg; break;
        case LONG_FORMAT: rc = parse_format(spec, optarg, o); break;
        case LONG_NOHEADER: o->noheader = 1; break;
        case LONG_NOUNITS: o->nounits = 1; break;
        case LONG_HELP_FIELDS: o->help_fields = 1; break;
        case LONG_PROCESSES: o->processes = 1; break;
        case 'd':
            if (spec->allowed & OPT_DISPLAY)
                o->display = optarg;
            else
                rc = parse_delay(spec, optarg, o);
            break;
        case 'c': rc = parse_count(spec, optarg, o); break;
        case 's': rc = parse_select(spec, optarg, o); break;
        case 'o': rc = parse_datetime(spec, optarg, o); break;
        case LONG_QUERY_GPU:
            o->fields = optarg;
            o->smi_spelling = 1;
            break;
        case LONG_QUERY_APPS:
            o->apps = optarg;
            o->processes = 1;
            o->smi_spelling = 1;
            break;
        case LONG_QUERY_REMAP:
        case LONG_QUERY_PAGES:
            o->rows = optarg;
            o->rows_kind = c == LONG_QUERY_REMAP ? 'r' : 'p';
            o->smi_spelling = 1;
            break;
        case 'l': rc = parse_loop(spec, "-l", optarg, 1, o); break;
        case LONG_LOOP_MS: rc = parse_loop(spec, "--loop-ms", optarg, 0.001, o); break;
        case 'f':
            if (!*optarg)
                return cli_usage_error(spec->cmd, "-f: needs a file name");
            o->file = optarg;
            break;
        case ':': return cli_usage_error(spec->cmd, "option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt && optopt < 256) {
                char opt[3] = {'-', (char)optopt, 0};
                return unknown_option(spec, longs, shorts, opt);
            }
            return unknown_option(spec, longs, shorts, argv[optind - 1]);
        }
    }
    if (rc == CLI_RUN && optind < argc)
        return cli_usage_error(spec->cmd, "unexpected argument '%s'", argv[optind]);
    return rc;
}
