/* options.c - the nvidia-smi style commands' options: one table, each command taking the rows its
 * spec allows, parsed by the one parser (args.h). */
#include "options.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suggest.h"
#include "util.h"

#define MIN_DELAY_S 0.1
#define MIN_LOOP_S 0.001 /* -lms 1, as nvidia-smi allows */
#define MAX_INTERVAL_S 86400

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

/* --format: "csv", "csv,noheader,nounits" (nvidia-smi's spelling), "json", ...; opt->choices holds the
 * command's formats. */
static int check_format(const gw_opt *opt, const char *arg, void *out, char *why, size_t n)
{
    cli_opts *o = out;
    int have_format = 0;
    for (const char *p = arg; *p || p == arg;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 8 && strncmp(p, "noheader", 8) == 0)
            o->noheader = 1;
        else if (len == 7 && strncmp(p, "nounits", 7) == 0)
            o->nounits = 1;
        else if (!have_format && in_list(opt->choices, p, len) && format_by_name(p, len, &o->format) == 0)
            have_format = 1;
        else {
            char w[GW_SUGGEST_LEN], hint[GW_SUGGEST_LEN + 32];
            snprintf(w, sizeof w, "%.*s", (int)len, p);
            gw_suggest s;
            gw_suggest_init(&s, w);
            gw_suggest_add_list(&s, opt->choices);
            gw_suggest_add(&s, "noheader");
            gw_suggest_add(&s, "nounits");
            snprintf(why, n, "'%s' is not one of %s%s", w, opt->choices, gw_suggest_suffix(&s, hint, sizeof hint));
            return -1;
        }
        p = end ? end + 1 : p + len;
        if (!*p)
            break;
    }
    o->format_given = 1;
    return 0;
}

/* -s: letters of opt->choices, in the order given, duplicates dropped. */
static int check_select(const gw_opt *opt, const char *arg, void *out, char *why, size_t n)
{
    cli_opts *o = out;
    size_t k = 0;
    if (!*arg) {
        snprintf(why, n, "needs one or more of '%s'", opt->choices);
        return -1;
    }
    for (const char *p = arg; *p; p++) {
        if (!strchr(opt->choices, *p)) {
            snprintf(why, n, "'%c' is not one of '%s'", *p, opt->choices);
            return -1;
        }
        if (!memchr(o->select, *p, k) && k + 1 < sizeof o->select)
            o->select[k++] = *p;
    }
    o->select[k] = 0;
    return 0;
}

static int check_datetime(const gw_opt *opt, const char *arg, void *out, char *why, size_t n)
{
    cli_opts *o = out;
    (void)opt;
    o->show_date = o->show_time = 0;
    for (const char *p = arg; *p; p++) {
        if (*p == 'D' || *p == 'd')
            o->show_date = 1;
        else if (*p == 'T' || *p == 't')
            o->show_time = 1;
        else
            break;
    }
    if (*arg && strspn(arg, "DdTt") == strlen(arg))
        return 0;
    snprintf(why, n, "expected D, T or DT, got '%s'", arg);
    return -1;
}

/* -lms / --loop-ms: milliseconds, 1 to a day. */
static int check_loop_ms(const gw_opt *opt, const char *arg, void *out, char *why, size_t n)
{
    static const gw_opt ms = {"-lms", GW_OPT_NUMBER, .min = MIN_LOOP_S * 1000, .max = MAX_INTERVAL_S * 1000.0};
    cli_opts *o = out;
    double v;
    (void)opt;
    if (gw_opt_store(&ms, arg, &v, why, n) != 0)
        return -1;
    o->loop_s = v / 1000;
    return 0;
}

/* --query-gpu, --query-compute-apps, --query-remapped-rows, --query-retired-pages: nvidia-smi's
 * spellings of the field lists (the fields are checked by the command). */
static int check_smi_list(const gw_opt *opt, const char *arg, void *out, char *why, size_t n)
{
    cli_opts *o = out;
    (void)why;
    (void)n;
    o->smi_spelling = 1;
    if (strcmp(opt->names, "--query-gpu") == 0) {
        o->fields = arg;
    } else if (strcmp(opt->names, "--query-compute-apps") == 0) {
        o->apps = arg;
        o->processes = 1;
    } else {
        o->rows = arg;
        o->rows_kind = strstr(opt->names, "remapped") ? 'r' : 'p';
    }
    return 0;
}

typedef struct cli_row {
    unsigned allowed; /* OPT_* */
    gw_opt opt;
} cli_row;

#define AT(field) .off = offsetof(cli_opts, field)

static const cli_row rows[] = {
    {OPT_FIELDS, {"--fields", GW_OPT_TEXT, AT(fields)}},
    {OPT_ID, {"-i,--id", GW_OPT_TEXT, AT(ids)}},
    {OPT_FORMAT, {"--format", GW_OPT_CUSTOM, .check = check_format}},
    {OPT_NOHEADER, {"--noheader", GW_OPT_FLAG, AT(noheader)}},
    {OPT_NOUNITS, {"--nounits", GW_OPT_FLAG, AT(nounits)}},
    {OPT_HELP_FIELDS, {"--help-fields", GW_OPT_FLAG, AT(help_fields)}},
    {OPT_PROCESSES, {"--processes", GW_OPT_FLAG, AT(processes)}},
    {OPT_DELAY, {"-d,--delay", GW_OPT_DURATION, AT(delay_s), .min = MIN_DELAY_S, .max = MAX_INTERVAL_S}},
    {OPT_COUNT, {"-c,--count", GW_OPT_INT, AT(count), .min = 1}},
    {OPT_SELECT, {"-s,--select", GW_OPT_CUSTOM, .check = check_select}},
    {OPT_DATETIME, {"-o,--options", GW_OPT_CUSTOM, .check = check_datetime}},
    {OPT_QUERY_GPU, {"--query-gpu", GW_OPT_CUSTOM, .check = check_smi_list}},
    {OPT_QUERY_APPS, {"--query-compute-apps", GW_OPT_CUSTOM, .check = check_smi_list}},
    {OPT_QUERY_ROWS, {"--query-remapped-rows", GW_OPT_CUSTOM, .check = check_smi_list}},
    {OPT_QUERY_ROWS, {"--query-retired-pages", GW_OPT_CUSTOM, .check = check_smi_list}},
    /* -l alone is nvidia-smi's 5 s; its value may be a duration (1500ms) too */
    {OPT_LOOP,
     {"-l,--loop", GW_OPT_DURATION, AT(loop_s), .min = MIN_LOOP_S, .max = MAX_INTERVAL_S,
      .flags = GW_OPT_OPTIONAL_VALUE, .dflt = "5"}},
    {OPT_LOOP, {"-lms,--loop-ms", GW_OPT_CUSTOM, .check = check_loop_ms}},
    {OPT_FILE, {"-f,--filename", GW_OPT_PATH, AT(file)}},
    {OPT_DISPLAY, {"-d,--display", GW_OPT_TEXT, AT(display)}},
    {OPT_XML, {"-x,--xml-format", GW_OPT_FLAG, AT(xml)}},
};
#define NROWS (sizeof rows / sizeof rows[0])

#define MAX_ROWS GW_ARGS_MAX_OPTS

/* The rows spec allows, with the spec's formats and letters, then its extra rows, into out (MAX_ROWS
 * entries, the last {0}); bits[i] is the OPT_* of row i (0 for an extra one). */
static void spec_rows(const cli_spec *spec, gw_opt *out, unsigned *bits)
{
    size_t n = 0;
    for (size_t i = 0; i < NROWS && n + 1 < MAX_ROWS; i++) {
        if (!(spec->allowed & rows[i].allowed))
            continue;
        bits[n] = rows[i].allowed;
        out[n] = rows[i].opt;
        if (rows[i].allowed == OPT_FORMAT)
            out[n].choices = spec->formats;
        if (rows[i].allowed == OPT_SELECT)
            out[n].choices = spec->letters;
        n++;
    }
    for (const gw_opt *x = spec->extra; x && x->names && n + 1 < MAX_ROWS; x++) {
        bits[n] = 0;
        out[n++] = *x;
    }
    out[n] = (gw_opt){0};
}

static gw_cmd spec_cmd(const cli_spec *spec, const gw_opt *opts)
{
    return (gw_cmd){.name = spec->cmd, .opts = opts, .usage = spec->usage};
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
    gw_opt opts[MAX_ROWS];
    unsigned bits[MAX_ROWS];
    spec_rows(spec, opts, bits);
    gw_cmd cmd = spec_cmd(spec, opts);
    gw_args a;
    set_defaults(spec, o);
    int rc = gw_args_parse(&cmd, argc, argv, o, &a);
    for (int i = 0; opts[i].names; i++)
        if ((a.given >> i) & 1)
            o->given |= bits[i];
    return rc;
}

const char *cli_option_name(unsigned opt)
{
    static char name[32];
    for (size_t i = 0; i < NROWS; i++)
        if (rows[i].allowed == opt) {
            const char *p = strstr(rows[i].opt.names, "--");
            p = p ? p : rows[i].opt.names;
            snprintf(name, sizeof name, "%.*s", (int)strcspn(p, ","), p);
            return name;
        }
    return "?";
}

int cli_spec_has(const cli_spec *spec, const char *word)
{
    gw_opt opts[MAX_ROWS];
    unsigned bits[MAX_ROWS];
    spec_rows(spec, opts, bits);
    gw_cmd cmd = spec_cmd(spec, opts);
    return gw_args_find(&cmd, word) >= 0;
}

void cli_each_option(const cli_spec *spec, gw_opt_visit *fn, void *ctx)
{
    gw_opt opts[MAX_ROWS];
    unsigned bits[MAX_ROWS];
    spec_rows(spec, opts, bits);
    gw_cmd cmd = spec_cmd(spec, opts);
    gw_args_each_option(&cmd, NULL, fn, ctx);
}
