/* test_base_args.c - the one command-line parser: every value type with good and bad values (and
 * their bounds), the error line's shape (program, command, option, "did you mean"), values never
 * taken for positional arguments, optional values, "--", "=value" and "-i0" spellings, positional
 * arguments anywhere or ending the options (GW_CMD_REST), subcommands, an unknown option left to the
 * caller (GW_CMD_STOP_UNKNOWN). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "args.h"
#include "util.h"

typedef struct opts {
    int flag;
    const char *text, *path, *file, *outfile;
    long count;
    double number, duration;
    uint64_t size;
    int64_t time_us;
    int choice;
    int custom_calls;
    const char *custom;
} opts;

/* A custom check: accepts words of lowercase letters; NULL (left out) counts as "none". */
static int check_word(const gw_opt *opt, const char *v, void *out, char *why, size_t n)
{
    opts *o = out;
    (void)opt;
    o->custom_calls++;
    for (const char *p = v; p && *p; p++)
        if (*p < 'a' || *p > 'z') {
            snprintf(why, n, "'%s' is not a word", v);
            return -1;
        }
    o->custom = v ? v : "none";
    return 0;
}

static const gw_opt rows[] = {
    {"-F,--flag", GW_OPT_FLAG, .off = offsetof(opts, flag)},
    {"--text", GW_OPT_TEXT, .off = offsetof(opts, text)},
    {"--path", GW_OPT_PATH, .off = offsetof(opts, path)},
    {"--file", GW_OPT_FILE, .off = offsetof(opts, file)},
    {"--out", GW_OPT_OUTFILE, .off = offsetof(opts, outfile)},
    {"-c,--count", GW_OPT_INT, .off = offsetof(opts, count), .min = 1, .max = 64},
    {"--number", GW_OPT_NUMBER, .off = offsetof(opts, number), .min = 0, .max = 100},
    {"-d,--delay", GW_OPT_DURATION, .off = offsetof(opts, duration), .min = 0.1, .max = 3600,
     .hint = "(a test's hint)"},
    {"--size", GW_OPT_SIZE, .off = offsetof(opts, size)},
    {"--since", GW_OPT_TIME, .off = offsetof(opts, time_us)},
    {"--format", GW_OPT_CHOICE, .off = offsetof(opts, choice), .choices = "table,csv,json,chart"},
    {"--word,-wd", GW_OPT_CUSTOM, .check = check_word, .flags = GW_OPT_OPTIONAL_VALUE},
    {"-l,--loop", GW_OPT_DURATION, .off = offsetof(opts, number), .min = 0.001, .max = 86400,
     .flags = GW_OPT_OPTIONAL_VALUE, .dflt = "5"},
    {NULL},
};

static const gw_cmd cmd = {.name = "demo", .opts = rows, .usage = "usage: demo\n", .max_args = 2, .args_name = "FILE"};
static const gw_cmd rest_cmd = {.name = "run", .opts = rows, .max_args = -1, .flags = GW_CMD_REST};

/* argv for the words (NULL-terminated list), kept alive for the stored values. */
static char *words[40];
static int nwords;

static int parse_list(const gw_cmd *c, opts *o, gw_args *a, va_list ap)
{
    memset(o, 0, sizeof *o);
    nwords = 0;
    words[nwords++] = (char *)c->name;
    for (char *w; nwords < 39 && (w = va_arg(ap, char *));)
        words[nwords++] = w;
    words[nwords] = NULL;
    return gw_args_parse(c, nwords, words, o, a);
}

static int parse(const gw_cmd *c, opts *o, gw_args *a, ...)
{
    va_list ap;
    va_start(ap, a);
    int rc = parse_list(c, o, a, ap);
    va_end(ap);
    return rc;
}

/* The parse's stderr, as one string (the error line). */
static char err_text[2048];

static int parse_err(const gw_cmd *c, opts *o, ...)
{
    fflush(stderr);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    gw_args a;
    va_list ap;
    va_start(ap, o);
    int rc = parse_list(c, o, &a, ap);
    va_end(ap);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(err_text, 1, sizeof err_text - 1, tmp);
    err_text[n] = 0;
    fclose(tmp);
    return rc;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void values_of_each_type(void **state)
{
    (void)state;
    opts o;
    gw_args a;
    assert_int_equal(parse(&cmd, &o, &a, "-F", "--text", "hello", "--path", "/nonexistent/x", "--file", "/etc/passwd",
                           "--out", "/tmp/gw-args-out", "-c", "64", "--number=99.5", "-d", "500ms", "--size", "2GiB",
                           "--since", "2h", "--format", "chart", NULL),
                     GW_ARGS_RUN);
    assert_int_equal(o.flag, 1);
    assert_string_equal(o.text, "hello");
    assert_string_equal(o.path, "/nonexistent/x");
    assert_string_equal(o.file, "/etc/passwd");
    assert_int_equal(o.count, 64);
    assert_true(o.number == 99.5);
    assert_true(o.duration > 0.4999 && o.duration < 0.5001);
    assert_true(o.size == 2ull << 30);
    int64_t ago = (int64_t)gw_now_us() - o.time_us;
    assert_true(ago > 7100ll * 1000000 && ago < 7300ll * 1000000);
    assert_int_equal(o.choice, 3);
    assert_true(gw_args_given(&a, "--since") && gw_args_given(&a, "-c") && gw_args_given(&a, "--count"));
    assert_false(gw_args_given(&a, "--word"));
    assert_int_equal(a.npos, 0);
    /* the bounds themselves, in every spelling of the duration grammar */
    const char *delays[] = {"0.1", "100ms", "1h", "3600", "60m"};
    for (size_t i = 0; i < sizeof delays / sizeof delays[0]; i++)
        assert_int_equal(parse(&cmd, &o, &a, "--delay", delays[i], NULL), GW_ARGS_RUN);
    const char *counts[] = {"1", "2", "63", "64"};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        assert_int_equal(parse(&cmd, &o, &a, "-c", counts[i], NULL), GW_ARGS_RUN);
}

/* Each bad value: exit 2, one line "gpuwatch demo: OPT: ..." naming what was typed. */
static void bad_values(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"-c", "0"},
        {"-c", "65"},
        {"-c", "3x"},
        {"--count", "two"},
        {"-c", ""},
        {"-c", "99999999999999999999"},
        {"--number", "nan"},
        {"--number", "1e999"},
        {"--number", "-1"},
        {"--number", "100.5"},
        {"-d", "50ms"},
        {"-d", "2h"},
        {"-d", "5x"},
        {"--delay", "-1"},
        {"--size", "lots"},
        {"--size", "-5MB"},
        {"--since", "yesterday"},
        {"--since", "5x"},
        {"--format", "chrt"},
        {"--format", "CSV,"},
        {"--format", ""},
        {"--file", "/nonexistent/f"},
        {"--file", "/tmp"},
        {"--out", "/nonexistent/dir/x"},
        {"--out", "/tmp"},
        {"--text", ""},
        {"--word", "Caps"},
        {"-l", "0"},
        {"-l", "2d"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        opts o;
        assert_int_equal(parse_err(&cmd, &o, cases[i][0], cases[i][1], NULL), GW_ARGS_USAGE);
        char want[64];
        snprintf(want, sizeof want, "gpuwatch demo: %s: ", cases[i][0]);
        if (strncmp(err_text, want, strlen(want)) != 0 || count_lines(err_text) != 1)
            fail_msg("%s '%s': got \"%s\"", cases[i][0], cases[i][1], err_text);
        /* the same through "=value" */
        char joined[128];
        snprintf(joined, sizeof joined, "%s=%s", cases[i][0], cases[i][1]);
        if (cases[i][0][1] == '-')
            assert_int_equal(parse_err(&cmd, &o, joined, NULL), GW_ARGS_USAGE);
    }
    opts o;
    assert_int_equal(parse_err(&cmd, &o, "-d", "2h", NULL), GW_ARGS_USAGE);
    assert_non_null(strstr(err_text, "from 100ms to 1h, got '2h' (a test's hint)"));
    assert_int_equal(parse_err(&cmd, &o, "--format", "chrt", NULL), GW_ARGS_USAGE);
    assert_non_null(strstr(err_text, "'chrt' is not one of table,csv,json,chart \xe2\x80\x94 did you mean 'chart'?"));
    assert_int_equal(parse_err(&cmd, &o, "-c", "0", NULL), GW_ARGS_USAGE);
    assert_non_null(strstr(err_text, "expected a whole number from 1 to 64, got '0'"));
}

static void unknown_and_missing(void **state)
{
    (void)state;
    opts o;
    assert_int_equal(parse_err(&cmd, &o, "--feild", NULL), GW_ARGS_USAGE);
    assert_string_equal(err_text, "gpuwatch demo: unknown option '--feild' \xe2\x80\x94 did you mean '--file'?\n");
    assert_int_equal(parse_err(&cmd, &o, "--formt=csv", NULL), GW_ARGS_USAGE);
    assert_non_null(strstr(err_text, "unknown option '--formt' \xe2\x80\x94 did you mean '--format'?"));
    assert_int_equal(parse_err(&cmd, &o, "--zzzzzzzz", NULL), GW_ARGS_USAGE);
    assert_null(strstr(err_text, "did you mean"));
    const char *needs_value[] = {"--text", "-c", "--since", "--format", "--file"};
    for (size_t i = 0; i < sizeof needs_value / sizeof needs_value[0]; i++) {
        assert_int_equal(parse_err(&cmd, &o, needs_value[i], NULL), GW_ARGS_USAGE);
        assert_non_null(strstr(err_text, "needs a value"));
        assert_int_equal(parse_err(&cmd, &o, needs_value[i], "--", "x", NULL), GW_ARGS_USAGE);
    }
    assert_int_equal(parse_err(&cmd, &o, "--flag=1", NULL), GW_ARGS_USAGE);
    assert_non_null(strstr(err_text, "--flag: takes no value"));
    assert_int_equal(parse_err(&cmd, &o, "a", "b", "c", NULL), GW_ARGS_USAGE);
    assert_non_null(strstr(err_text, "unexpected argument 'c'"));
}

/* A value is taken as the option's, right or wrong, never as an argument; "-" starts none. */
static void values_are_never_arguments(void **state)
{
    (void)state;
    opts o;
    gw_args a;
    assert_int_equal(parse(&cmd, &o, &a, "--text", "-x", "--number", "-0", NULL), GW_ARGS_RUN);
    assert_string_equal(o.text, "-x");
    assert_int_equal(parse(&cmd, &o, &a, "--since", "-30m", "f1", NULL), GW_ARGS_RUN);
    assert_int_equal(a.npos, 1);
    assert_string_equal(a.pos[0], "f1");
    /* optional values: the next word unless it is an option */
    assert_int_equal(parse(&cmd, &o, &a, "-l", NULL), GW_ARGS_RUN);
    assert_true(o.number == 5);
    assert_int_equal(parse(&cmd, &o, &a, "-l", "--flag", NULL), GW_ARGS_RUN);
    assert_true(o.number == 5 && o.flag);
    assert_int_equal(parse(&cmd, &o, &a, "-l", "250ms", NULL), GW_ARGS_RUN);
    assert_true(o.number > 0.2499 && o.number < 0.2501);
    assert_int_equal(parse(&cmd, &o, &a, "--word", NULL), GW_ARGS_RUN);
    assert_string_equal(o.custom, "none");
    assert_int_equal(parse(&cmd, &o, &a, "-wd", "abc", "f", NULL), GW_ARGS_RUN);
    assert_string_equal(o.custom, "abc");
    assert_int_equal(a.npos, 1);
    /* an optional value that is wrong is an error, not the command's argument */
    assert_int_equal(parse_err(&rest_cmd, &o, "--word", "5x", "--", "true", NULL), GW_ARGS_USAGE);
    assert_non_null(strstr(err_text, "gpuwatch run: --word: '5x' is not a word"));
    assert_int_equal(parse_err(&cmd, &o, "-l", "5x", NULL), GW_ARGS_USAGE);
    /* "-c5": a one-letter option and its value */
    assert_int_equal(parse(&cmd, &o, &a, "-c5", NULL), GW_ARGS_RUN);
    assert_int_equal(o.count, 5);
    assert_int_equal(parse(&cmd, &o, &a, "-", NULL), GW_ARGS_RUN);
    assert_string_equal(a.pos[0], "-");
}

static void positionals(void **state)
{
    (void)state;
    opts o;
    gw_args a;
    /* anywhere among the options, in order */
    assert_int_equal(parse(&cmd, &o, &a, "one", "-F", "two", "-c", "3", NULL), GW_ARGS_RUN);
    assert_int_equal(a.npos, 2);
    assert_string_equal(a.pos[0], "one");
    assert_string_equal(a.pos[1], "two");
    assert_null(a.pos[2]);
    /* after "--": arguments even when they look like options */
    assert_int_equal(parse(&cmd, &o, &a, "-F", "--", "-c", NULL), GW_ARGS_RUN);
    assert_int_equal(a.npos, 1);
    assert_string_equal(a.pos[0], "-c");
    /* GW_CMD_REST: the first argument ends the options */
    assert_int_equal(parse(&rest_cmd, &o, &a, "-c", "2", "python3", "train.py", "-c", "9", NULL), GW_ARGS_RUN);
    assert_int_equal(o.count, 2);
    assert_int_equal(a.npos, 4);
    assert_string_equal(a.pos[0], "python3");
    assert_string_equal(a.pos[3], "9");
    assert_null(a.pos[4]);
    assert_int_equal(parse(&rest_cmd, &o, &a, "--", "-c", NULL), GW_ARGS_RUN);
    assert_string_equal(a.pos[0], "-c");
    static const gw_cmd needs_one = {.name = "show", .min_args = 1, .max_args = 1, .args_name = "ID"};
    assert_int_equal(parse_err(&needs_one, &o, NULL), GW_ARGS_USAGE);
    assert_string_equal(err_text, "gpuwatch show: needs ID\n");
}

static void subcommands_and_help(void **state)
{
    (void)state;
    static const gw_opt export_rows[] = {{"--out", GW_OPT_PATH, .off = offsetof(opts, path)}, {NULL}};
    static const gw_cmd export_cmd = {.name = "tool export", .opts = export_rows};
    static const gw_cmd check_cmd = {.name = "tool check", .max_args = 1};
    static const gw_cmd *const subs[] = {&export_cmd, &check_cmd, NULL};
    static const gw_cmd tool = {.name = "tool", .opts = rows, .subs = subs, .usage = "usage: tool\n"};
    static const gw_cmd needy = {.name = "rules", .subs = subs, .needs_sub = 1, .usage = "usage: rules\n"};
    opts o;
    gw_args a;
    assert_int_equal(parse(&tool, &o, &a, "export", "--out", "d", NULL), GW_ARGS_RUN);
    assert_ptr_equal(a.cmd, &export_cmd);
    assert_string_equal(o.path, "d");
    assert_int_equal(parse_err(&tool, &o, "export", "-c", "3", NULL), GW_ARGS_USAGE);
    assert_non_null(strstr(err_text, "gpuwatch tool export: unknown option '-c'"));
    assert_int_equal(parse(&tool, &o, &a, "-c", "3", NULL), GW_ARGS_RUN);
    assert_ptr_equal(a.cmd, &tool);
    assert_int_equal(parse_err(&tool, &o, "exprot", NULL), GW_ARGS_USAGE);
    assert_non_null(strstr(err_text, "unexpected argument 'exprot' \xe2\x80\x94 did you mean 'export'?"));
    assert_int_equal(parse_err(&needy, &o, "chek", NULL), GW_ARGS_USAGE);
    assert_non_null(strstr(err_text, "gpuwatch rules: unknown subcommand 'chek' (export or check)"));
    assert_non_null(strstr(err_text, "did you mean 'check'?"));
    assert_int_equal(parse_err(&needy, &o, NULL), GW_ARGS_USAGE);
    assert_non_null(strstr(err_text, "needs a subcommand: export or check"));
    assert_int_equal(parse(&needy, &o, &a, "--help", NULL), GW_ARGS_HELP);
    assert_int_equal(parse(&tool, &o, &a, "-c", "3", "-h", NULL), GW_ARGS_HELP);
    assert_int_equal(gw_args_exit(GW_ARGS_HELP), 0);
    assert_int_equal(gw_args_exit(GW_ARGS_USAGE), 2);
}

static void stop_at_unknown(void **state)
{
    (void)state;
    static const gw_opt global_rows[] = {{"--sim", GW_OPT_TEXT, .off = offsetof(opts, text)}, {NULL}};
    static const gw_cmd global = {.opts = global_rows, .max_args = -1, .flags = GW_CMD_REST | GW_CMD_STOP_UNKNOWN};
    opts o;
    gw_args a;
    assert_int_equal(parse(&global, &o, &a, "--sim", "demo", "-q", "-d", "MEMORY", NULL), GW_ARGS_RUN);
    assert_string_equal(o.text, "demo");
    assert_int_equal(a.npos, 0);
    assert_int_equal(a.nrest, 3);
    assert_string_equal(words[a.stop], "-q");
    assert_string_equal(words[a.stop + 2], "MEMORY");
    assert_int_equal(parse(&global, &o, &a, "--sim=x", "query", "--format", "csv", NULL), GW_ARGS_RUN);
    assert_int_equal(a.npos, 3);
    assert_int_equal(a.nrest, 0);
    assert_string_equal(a.pos[0], "query");
    assert_int_equal(parse_err(&global, &o, "--sim", NULL), GW_ARGS_USAGE);
    assert_string_equal(err_text, "gpuwatch: --sim: needs a value\n");
}

static void durations_spelled(void **state)
{
    (void)state;
    static const struct {
        double s;
        const char *text;
    } cases[] = {{0.1, "100ms"}, {0.05, "50ms"}, {1, "1s"},      {90, "90s"},    {60, "1m"},
                 {3600, "1h"},   {86400, "1d"},  {604800, "7d"}, {0.001, "1ms"}, {1.5, "1500ms"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[32];
        gw_format_duration(cases[i].s, out, sizeof out);
        assert_string_equal(out, cases[i].text);
        double back;
        assert_int_equal(gw_parse_duration(out, &back), 0);
        assert_true(back > cases[i].s * 0.999999 && back < cases[i].s * 1.000001);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(values_of_each_type), cmocka_unit_test(bad_values),
        cmocka_unit_test(unknown_and_missing), cmocka_unit_test(values_are_never_arguments),
        cmocka_unit_test(positionals),         cmocka_unit_test(subcommands_and_help),
        cmocka_unit_test(stop_at_unknown),     cmocka_unit_test(durations_spelled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
