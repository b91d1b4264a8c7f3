/* args.c - the one command-line parser (args.h): spellings looked up in the command's table, values
 * checked by type, one line for the first mistake. */
#include "args.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "files.h"
#include "suggest.h"
#include "timeparse.h"
#include "util.h"

#define WHY_LEN 512

static void vusage_line(const char *prog, const char *name, const char *fmt, va_list ap)
{
    char msg[WHY_LEN + 128];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fprintf(stderr, "%s%s%s: %s\n", prog ? prog : "gpuwatch", name && *name ? " " : "", name ? name : "", msg);
}

int gw_usage_error(const gw_cmd *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vusage_line(cmd->prog, cmd->name, fmt, ap);
    va_end(ap);
    return GW_ARGS_USAGE;
}

int gw_usage_error_named(const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vusage_line(NULL, name, fmt, ap);
    va_end(ap);
    return GW_ARGS_USAGE;
}

int gw_args_exit(int rc)
{
    return rc == GW_ARGS_HELP ? 0 : 2;
}

void *gw_opt_dst(const gw_opt *opt, void *out)
{
    return (char *)out + opt->off;
}

/* The next spelling of a comma list: its start and length; NULL after the last. */
static const char *next_name(const char **p, size_t *len)
{
    if (!*p || !**p)
        return NULL;
    const char *s = *p, *end = strchr(s, ',');
    *len = end ? (size_t)(end - s) : strlen(s);
    *p = end ? end + 1 : s + *len;
    return s;
}

static int has_name(const gw_opt *opt, const char *word, size_t wlen)
{
    size_t len;
    const char *p = opt->names;
    for (const char *s; (s = next_name(&p, &len));)
        if (len == wlen && strncmp(s, word, len) == 0)
            return 1;
    return 0;
}

static int count_opts(const gw_cmd *cmd)
{
    int n = 0;
    while (cmd->opts && cmd->opts[n].names && n < GW_ARGS_MAX_OPTS)
        n++;
    return n;
}

/* The row spelled word[0..wlen), or -1. */
static int find_opt(const gw_cmd *cmd, const char *word, size_t wlen)
{
    int n = count_opts(cmd);
    for (int i = 0; i < n; i++)
        if (has_name(&cmd->opts[i], word, wlen))
            return i;
    return -1;
}

int gw_args_given(const gw_args *a, const char *name)
{
    int i = a->cmd ? find_opt(a->cmd, name, strlen(name)) : -1;
    return i >= 0 && (a->given >> i) & 1;
}

static const gw_cmd *find_sub(const gw_cmd *cmd, const char *word);

void gw_args_each_option(const gw_cmd *cmd, const char *sub, gw_opt_visit *fn, void *ctx)
{
    const gw_cmd *chosen = sub ? find_sub(cmd, sub) : NULL;
    cmd = chosen ? chosen : cmd;
    int n = count_opts(cmd);
    for (int i = 0; i < n; i++) {
        size_t len;
        const char *p = cmd->opts[i].names;
        for (const char *s; (s = next_name(&p, &len));) {
            char name[GW_SUGGEST_LEN];
            snprintf(name, sizeof name, "%.*s", (int)len, s);
            fn(name, &cmd->opts[i], ctx);
        }
    }
    for (int i = 0; cmd->subs && cmd->subs[i]; i++) {
        const char *word = strrchr(cmd->subs[i]->name, ' ');
        fn(word ? word + 1 : cmd->subs[i]->name, NULL, ctx);
    }
}

/* --- values ---------------------------------------------------------------------------------- */

/* Bounds: none (both 0), at least min (max 0), or min to max. */
static int within(const gw_opt *o, double x)
{
    return (o->min == 0 && o->max == 0) || (x >= o->min && (o->max == 0 || x <= o->max));
}

/* The bounds in words for range_error; NULL where there is none. */
static void bound_words(const gw_opt *o, const char *fmt, char *lo, char *hi, const char **plo, const char **phi)
{
    snprintf(lo, 32, fmt, o->min);
    snprintf(hi, 32, fmt, o->max);
    *plo = o->min == 0 && o->max == 0 ? NULL : lo;
    *phi = o->max == 0 ? NULL : hi;
}

/* "expected <what> from A to B, got 'v'" with the row's hint. */
static int range_error(const gw_opt *o, const char *what, const char *lo, const char *hi, const char *v, char *why,
                       size_t n)
{
    const char *sp = o->hint ? " " : "", *hint = o->hint ? o->hint : "";
    if (lo && hi)
        snprintf(why, n, "expected %s from %s to %s, got '%s'%s%s", what, lo, hi, v, sp, hint);
    else if (lo)
        snprintf(why, n, "expected %s of at least %s, got '%s'%s%s", what, lo, v, sp, hint);
    else
        snprintf(why, n, "expected %s, got '%s'%s%s", what, v, sp, hint);
    return -1;
}

static int check_int(const gw_opt *o, const char *v, long *dst, char *why, size_t n)
{
    char *end, lo[32], hi[32];
    const char *plo, *phi;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!errno && end != v && !*end && within(o, (double)x)) {
        *dst = x;
        return 0;
    }
    bound_words(o, "%.0f", lo, hi, &plo, &phi);
    return range_error(o, "a whole number", plo, phi, v, why, n);
}

static int check_number(const gw_opt *o, const char *v, double *dst, char *why, size_t n)
{
    char *end, lo[32], hi[32];
    const char *plo, *phi;
    errno = 0;
    double x = strtod(v, &end);
    if (!errno && end != v && !*end && isfinite(x) && within(o, x)) {
        *dst = x;
        return 0;
    }
    bound_words(o, "%g", lo, hi, &plo, &phi);
    return range_error(o, "a number", plo, phi, v, why, n);
}

static int check_duration(const gw_opt *o, const char *v, double *dst, char *why, size_t n)
{
    double s;
    /* a bound is met within a nanosecond: 0.1 given as "100ms" is 0.1 */
    int ok =
        gw_parse_duration(v, &s) == 0 && (o->min == 0 || s >= o->min - 1e-9) && (o->max == 0 || s <= o->max + 1e-9);
    if (ok) {
        *dst = s;
        return 0;
    }
    char lo[32], hi[32];
    gw_format_duration(o->min, lo, sizeof lo);
    gw_format_duration(o->max, hi, sizeof hi);
    if (o->max == 0 && o->min == 0)
        return range_error(o, "a duration (30s, 10m, 2h)", NULL, NULL, v, why, n);
    return range_error(o, "a duration", lo, o->max ? hi : NULL, v, why, n);
}

static int check_size(const gw_opt *o, const char *v, uint64_t *dst, char *why, size_t n)
{
    uint64_t b;
    if (gw_parse_size(v, &b) == 0 && within(o, (double)b)) {
        *dst = b;
        return 0;
    }
    return range_error(o, "a size (20GiB, 500MB)", NULL, NULL, v, why, n);
}

static int check_time(const gw_opt *o, const char *v, int64_t *dst, char *why, size_t n)
{
    if (tp_parse_time(v, (int64_t)gw_now_us(), dst) == 0)
        return 0;
    return range_error(o, "a time (RFC 3339, Unix seconds, or a duration before now such as 2h or -30m)", NULL, NULL, v,
                       why, n);
}

static int check_choice(const gw_opt *o, const char *v, int *dst, char *why, size_t n)
{
    size_t len;
    int i = 0;
    const char *p = o->choices;
    for (const char *s; (s = next_name(&p, &len)); i++)
        if (len == strlen(v) && strncmp(s, v, len) == 0) {
            *dst = i;
            return 0;
        }
    char hint[GW_SUGGEST_LEN + 32];
    gw_suggest sg;
    gw_suggest_init(&sg, v);
    gw_suggest_add_list(&sg, o->choices);
    snprintf(why, n, "'%s' is not one of %s%s", v, o->choices, gw_suggest_suffix(&sg, hint, sizeof hint));
    return -1;
}

static int check_file(const char *v, char *why, size_t n)
{
    struct stat st;
    if (stat(v, &st) != 0) {
        snprintf(why, n, "cannot read '%s': %s", v, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, n, "'%s' is %s, not a file", v, S_ISDIR(st.st_mode) ? "a folder" : "a special file");
        return -1;
    }
    if (access(v, R_OK) != 0) {
        snprintf(why, n, "cannot read '%s': %s", v, strerror(errno));
        return -1;
    }
    return 0;
}

int gw_opt_store(const gw_opt *o, const char *v, void *out, char *why, size_t n)
{
    void *dst = gw_opt_dst(o, out);
    if (o->type == GW_OPT_CUSTOM)
        return o->check(o, v, out, why, n);
    if (o->type == GW_OPT_FLAG) {
        *(int *)dst = 1;
        return 0;
    }
    if (!v)
        v = o->dflt;
    if (!v)
        return 0;
    if (!*v && o->type != GW_OPT_CHOICE) {
        snprintf(why, n, "needs a value, not an empty word");
        return -1;
    }
    switch (o->type) {
    case GW_OPT_TEXT:
    case GW_OPT_PATH: break;
    case GW_OPT_FILE:
        if (check_file(v, why, n) != 0)
            return -1;
        break;
    case GW_OPT_OUTFILE:
        if (gw_check_writable_path(v, why, n) != 0)
            return -1;
        break;
    case GW_OPT_INT: return check_int(o, v, dst, why, n);
    case GW_OPT_NUMBER: return check_number(o, v, dst, why, n);
    case GW_OPT_DURATION: return check_duration(o, v, dst, why, n);
    case GW_OPT_SIZE: return check_size(o, v, dst, why, n);
    case GW_OPT_TIME: return check_time(o, v, dst, why, n);
    case GW_OPT_CHOICE: return check_choice(o, v, dst, why, n);
    default: return 0;
    }
    *(const char **)dst = v;
    return 0;
}

/* --- the walk over argv ------------------------------------------------------------------------ */

typedef struct walk {
    const gw_cmd *cmd;
    int argc;
    char **argv;
    void *out;
    gw_args *a;
    int i; /* the word being read */
    int w; /* where the next positional argument goes */
} walk;

/* "unknown option '--feilds' — did you mean '--fields'?": the command's spellings are the candidates. */
static void offer(const char *name, const gw_opt *opt, void *ctx)
{
    if (opt)
        gw_suggest_add(ctx, name);
}

static int unknown_option(const gw_cmd *cmd, const char *word, size_t wlen)
{
    char w[GW_SUGGEST_LEN], hint[GW_SUGGEST_LEN + 32];
    snprintf(w, sizeof w, "%.*s", (int)wlen, word);
    gw_suggest s;
    gw_suggest_init(&s, w);
    gw_args_each_option(cmd, NULL, offer, &s);
    gw_suggest_add(&s, "--help");
    return gw_usage_error(cmd, "unknown option '%s'%s", w, gw_suggest_suffix(&s, hint, sizeof hint));
}

/* The row of the option word, and where its attached value starts ("--db=x", "-i0"); -1 unknown. */
static int lookup(const gw_cmd *cmd, const char *word, size_t *name_len, const char **attached)
{
    const char *eq = word[1] == '-' ? strchr(word, '=') : NULL;
    size_t len = eq ? (size_t)(eq - word) : strlen(word);
    int r = find_opt(cmd, word, len);
    *name_len = len;
    *attached = eq ? eq + 1 : NULL;
    if (r < 0 && !eq && word[1] != '-' && len > 2) { /* "-i0": a one-letter option and its value */
        r = find_opt(cmd, word, 2);
        if (r >= 0 && cmd->opts[r].type == GW_OPT_FLAG)
            r = -1;
        if (r >= 0) {
            *name_len = 2;
            *attached = word + 2;
        }
    }
    return r;
}

int gw_args_find(const gw_cmd *cmd, const char *word)
{
    size_t len;
    const char *value;
    return word[0] == '-' ? lookup(cmd, word, &len, &value) : -1;
}

/* "-x", "--x"; "-" alone and negative numbers ("-3", "-.5") are not options. */
static int is_option_word(const char *s)
{
    return s[0] == '-' && s[1] != 0 && !(s[1] >= '0' && s[1] <= '9') && s[1] != '.';
}

/* One option word at w->argv[w->i], and its value. */
static int take_option(walk *w)
{
    const char *word = w->argv[w->i];
    size_t len;
    const char *value;
    int r = lookup(w->cmd, word, &len, &value);
    if (r < 0)
        return (w->cmd->flags & GW_CMD_STOP_UNKNOWN) ? -2 : unknown_option(w->cmd, word, len);
    const gw_opt *o = &w->cmd->opts[r];
    char name[GW_SUGGEST_LEN], why[WHY_LEN];
    snprintf(name, sizeof name, "%.*s", (int)len, word);
    if (o->type == GW_OPT_FLAG && value)
        return gw_usage_error(w->cmd, "%s: takes no value", name);
    if (o->type != GW_OPT_FLAG && !value) {
        const char *next = w->i + 1 < w->argc ? w->argv[w->i + 1] : NULL;
        if (o->flags & GW_OPT_OPTIONAL_VALUE) {
            if (next && !is_option_word(next)) {
                value = next;
                w->i++;
            }
        } else if (!next || strcmp(next, "--") == 0) {
            return gw_usage_error(w->cmd, "%s: needs a value", name);
        } else {
            value = next;
            w->i++;
        }
    }
    if (gw_opt_store(o, value, w->out, why, sizeof why) != 0)
        return gw_usage_error(w->cmd, "%s: %s", name, why);
    if (r < 64)
        w->a->given |= 1ull << r;
    return 0;
}

/* Moves argv[from..argc) to argv[w->w..]: the words left for the caller. */
static void keep_rest(walk *w, int from)
{
    while (from < w->argc)
        w->argv[w->w++] = w->argv[from++];
    w->argv[w->w] = NULL;
}

static int is_help(const gw_cmd *cmd, const char *word)
{
    return (strcmp(word, "-h") == 0 || strcmp(word, "--help") == 0) && find_opt(cmd, word, strlen(word)) < 0;
}

static int print_usage(const gw_cmd *cmd)
{
    if (cmd->usage_fn)
        cmd->usage_fn(stdout);
    else if (cmd->usage)
        fputs(cmd->usage, stdout);
    return GW_ARGS_HELP;
}

/* The subcommand the first word names, or NULL. */
static const gw_cmd *find_sub(const gw_cmd *cmd, const char *word)
{
    for (int i = 0; cmd->subs && cmd->subs[i]; i++) {
        const char *sub = strrchr(cmd->subs[i]->name, ' ');
        if (strcmp(sub ? sub + 1 : cmd->subs[i]->name, word) == 0)
            return cmd->subs[i];
    }
    return NULL;
}

static int check_positionals(const gw_cmd *cmd, gw_args *a)
{
    const char *what = cmd->args_name ? cmd->args_name : "an argument";
    if (a->npos < cmd->min_args)
        return gw_usage_error(cmd, "needs %s", what);
    if (cmd->max_args >= 0 && a->npos > cmd->max_args) {
        const char *extra = a->pos[cmd->max_args];
        if (find_sub(cmd, extra)) /* "history --db x check": a subcommand comes first */
            return gw_usage_error(cmd, "unexpected argument '%s' (a subcommand goes first: %s %s %s ...)", extra,
                                  cmd->prog ? cmd->prog : "gpuwatch", cmd->name ? cmd->name : "", extra);
        if (cmd->subs && cmd->max_args == 0) { /* "history exprot": the closest subcommand */
            char hint[GW_SUGGEST_LEN + 32];
            gw_suggest s;
            gw_suggest_init(&s, extra);
            for (int i = 0; cmd->subs[i]; i++) {
                const char *sub = strrchr(cmd->subs[i]->name, ' ');
                gw_suggest_add(&s, sub ? sub + 1 : cmd->subs[i]->name);
            }
            return gw_usage_error(cmd, "unexpected argument '%s'%s", extra, gw_suggest_suffix(&s, hint, sizeof hint));
        }
        return gw_usage_error(cmd, "unexpected argument '%s'", extra);
    }
    return GW_ARGS_RUN;
}

static int missing_sub(const gw_cmd *cmd, const char *word)
{
    char names[256] = "", hint[GW_SUGGEST_LEN + 32] = "";
    gw_suggest s;
    gw_suggest_init(&s, word ? word : "");
    for (int i = 0; cmd->subs[i]; i++) {
        const char *sub = strrchr(cmd->subs[i]->name, ' ');
        sub = sub ? sub + 1 : cmd->subs[i]->name;
        size_t len = strlen(names);
        snprintf(names + len, sizeof names - len, "%s%s", i ? (cmd->subs[i + 1] ? ", " : " or ") : "", sub);
        gw_suggest_add(&s, sub);
    }
    if (!word)
        return gw_usage_error(cmd, "needs a subcommand: %s", names);
    return gw_usage_error(cmd, "unknown subcommand '%s' (%s)%s", word, names, gw_suggest_suffix(&s, hint, sizeof hint));
}

int gw_args_parse(const gw_cmd *cmd, int argc, char **argv, void *out, gw_args *a)
{
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    if (cmd->subs && argc > 1) {
        const gw_cmd *sub = find_sub(cmd, argv[1]);
        if (sub)
            return gw_args_parse(sub, argc - 1, argv + 1, out, a);
    }
    if (cmd->needs_sub) {
        if (argc > 1 && is_help(cmd, argv[1]))
            return print_usage(cmd);
        return missing_sub(cmd, argc > 1 ? argv[1] : NULL);
    }
    walk w = {.cmd = cmd, .argc = argc, .argv = argv, .out = out, .a = a, .w = 1};
    int rest = 0;
    for (w.i = 1; w.i < argc; w.i++) {
        const char *word = argv[w.i];
        if (strcmp(word, "--") == 0) {
            rest = 1;
            keep_rest(&w, w.i + 1);
            break;
        }
        if (!is_option_word(word)) {
            if (cmd->flags & GW_CMD_REST) {
                rest = 1;
                keep_rest(&w, w.i);
                break;
            }
            argv[w.w++] = argv[w.i];
            continue;
        }
        if (is_help(cmd, word))
            return print_usage(cmd);
        int rc = take_option(&w);
        if (rc == -2) { /* GW_CMD_STOP_UNKNOWN */
            a->pos = argv + 1;
            a->npos = w.w - 1;
            a->stop = w.w;
            a->nrest = argc - w.i;
            keep_rest(&w, w.i);
            return GW_ARGS_RUN;
        }
        if (rc != 0)
            return rc;
    }
    if (!rest)
        argv[w.w] = NULL;
    a->pos = argv + 1;
    a->npos = w.w - 1;
    a->stop = w.w;
    return check_positionals(cmd, a);
}
