/* test_options.c - option parsing shared by the commands (values, defaults, usage errors) and
 * --id selection by index, range, UUID and PCI bus id. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "options.h"
#include "session.h"

static const cli_spec dmon_like = {
    .cmd = "dmon",
    .allowed = OPT_ID | OPT_FORMAT | OPT_NOHEADER | OPT_NOUNITS | OPT_DELAY | OPT_COUNT | OPT_SELECT | OPT_DATETIME,
    .formats = "plain,csv,json",
    .letters = "pucvmet",
    .letters_default = "puc",
    .usage = "usage: test\n",
};

static const cli_spec query_like = {
    .cmd = "query",
    .allowed = OPT_FIELDS | OPT_ID | OPT_FORMAT | OPT_NOHEADER | OPT_NOUNITS | OPT_HELP_FIELDS | OPT_PROCESSES,
    .formats = "table,csv,json",
    .usage = "usage: test\n",
};

/* query as it is: nvidia-smi's spellings too */
static const cli_spec smi_like = {
    .cmd = "query",
    .allowed = OPT_FIELDS | OPT_ID | OPT_FORMAT | OPT_NOHEADER | OPT_NOUNITS | OPT_PROCESSES | OPT_QUERY_GPU |
               OPT_QUERY_APPS | OPT_LOOP | OPT_FILE,
    .formats = "table,csv,json",
    .usage = "usage: test\n",
};

static const cli_spec report_like = {
    .cmd = "-q",
    .allowed = OPT_ID | OPT_LOOP | OPT_FILE | OPT_DISPLAY,
    .usage = "usage: test\n",
};

/* Parses a NULL-terminated list of arguments after the command name. */
static int parse(const cli_spec *spec, cli_opts *o, ...)
{
    char *argv[32] = {(char *)spec->cmd};
    int argc = 1;
    va_list ap;
    va_start(ap, o);
    for (char *a; argc < 31 && (a = va_arg(ap, char *));)
        argv[argc++] = a;
    va_end(ap);
    return cli_parse(spec, argc, argv, o);
}

static void defaults(void **state)
{
    (void)state;
    cli_opts o;
    assert_int_equal(parse(&dmon_like, &o, NULL), GW_ARGS_RUN);
    assert_int_equal(o.format, OUT_PLAIN);
    assert_string_equal(o.select, "puc");
    assert_true(o.delay_s == 1.0);
    assert_int_equal(o.count, 0);
    assert_null(o.ids);
    assert_int_equal(parse(&query_like, &o, NULL), GW_ARGS_RUN);
    assert_int_equal(o.format, OUT_TABLE);
    assert_null(o.fields);
}

static void values(void **state)
{
    (void)state;
    cli_opts o;
    assert_int_equal(parse(&dmon_like, &o, "-s", "tpu", "-d", "0.5", "-c", "14", "-i", "0,2", "-o", "DT", NULL),
                     GW_ARGS_RUN);
    assert_string_equal(o.select, "tpu");
    assert_true(o.delay_s == 0.5);
    assert_int_equal(o.count, 14);
    assert_string_equal(o.ids, "0,2");
    assert_true(o.show_date && o.show_time);
    assert_int_equal(
        parse(&dmon_like, &o, "--select=ppuu", "--delay", "100ms", "--count=3", "--id", "GPU-x", "-o", "T", NULL),
        GW_ARGS_RUN);
    assert_string_equal(o.select, "pu"); /* duplicates dropped */
    assert_true(o.delay_s > 0.0999 && o.delay_s < 0.1001);
    assert_false(o.show_date);
    assert_true(o.show_time);
    assert_int_equal(parse(&query_like, &o, "--fields", "index,name", "--format", "csv,noheader,nounits", NULL),
                     GW_ARGS_RUN);
    assert_string_equal(o.fields, "index,name");
    assert_int_equal(o.format, OUT_CSV);
    assert_true(o.noheader && o.nounits);
    assert_int_equal(parse(&query_like, &o, "--format=json", "--processes", "--noheader", NULL), GW_ARGS_RUN);
    assert_int_equal(o.format, OUT_JSON);
    assert_true(o.processes && o.noheader && !o.nounits);
    assert_int_equal(parse(&query_like, &o, "--help-fields", NULL), GW_ARGS_RUN);
    assert_true(o.help_fields);
}

static void usage_errors(void **state)
{
    (void)state;
    cli_opts o;
    assert_int_equal(parse(&dmon_like, &o, "--bogus", NULL), GW_ARGS_USAGE);
    assert_int_equal(parse(&dmon_like, &o, "-x", NULL), GW_ARGS_USAGE);
    assert_int_equal(parse(&dmon_like, &o, "-s", "pz", NULL), GW_ARGS_USAGE);
    assert_int_equal(parse(&dmon_like, &o, "-s", "", NULL), GW_ARGS_USAGE);
    assert_int_equal(parse(&dmon_like, &o, "-d", "0.05", NULL), GW_ARGS_USAGE); /* below 0.1 s */
    assert_int_equal(parse(&dmon_like, &o, "-d", "abc", NULL), GW_ARGS_USAGE);
    assert_int_equal(parse(&dmon_like, &o, "-d", "-1", NULL), GW_ARGS_USAGE);
    assert_int_equal(parse(&dmon_like, &o, "-c", "0", NULL), GW_ARGS_USAGE);
    assert_int_equal(parse(&dmon_like, &o, "-c", "3x", NULL), GW_ARGS_USAGE);
    assert_int_equal(parse(&dmon_like, &o, "-o", "X", NULL), GW_ARGS_USAGE);
    assert_int_equal(parse(&dmon_like, &o, "--format", "table", NULL), GW_ARGS_USAGE); /* not a dmon format */
    assert_int_equal(parse(&dmon_like, &o, "-d", NULL), GW_ARGS_USAGE);                /* missing value */
    assert_int_equal(parse(&dmon_like, &o, "extra", NULL), GW_ARGS_USAGE);
    assert_int_equal(parse(&dmon_like, &o, "--fields", "index", NULL), GW_ARGS_USAGE); /* not a dmon option */
    assert_int_equal(parse(&query_like, &o, "-d", "1", NULL), GW_ARGS_USAGE);          /* not a query option */
    assert_int_equal(parse(&query_like, &o, "--format", "csv,bogus", NULL), GW_ARGS_USAGE);
    assert_int_equal(parse(&query_like, &o, "--format", "csv,json", NULL), GW_ARGS_USAGE);
}

/* nvidia-smi's spellings: --query-gpu, --query-compute-apps, -l [SECONDS], -lms, -f, -d of -q */
static void smi_spellings(void **state)
{
    (void)state;
    cli_opts o;
    assert_int_equal(parse(&smi_like, &o, "--query-gpu=index,name", "--format=csv,noheader", "-i", "0", NULL),
                     GW_ARGS_RUN);
    assert_string_equal(o.fields, "index,name");
    assert_true(o.smi_spelling && o.format_given && o.noheader);
    assert_int_equal(parse(&smi_like, &o, "--fields", "index", NULL), GW_ARGS_RUN);
    assert_false(o.smi_spelling || o.format_given);
    assert_int_equal(parse(&smi_like, &o, "--query-compute-apps=pid,used_memory", NULL), GW_ARGS_RUN);
    assert_true(o.processes && o.smi_spelling);
    assert_string_equal(o.apps, "pid,used_memory");
    static const struct {
        const char *a, *b, *c;
        double loop_s;
    } loops[] = {
        {"-l", "2", NULL, 2.0},
        {"-l", "0.5", NULL, 0.5},
        {"--loop=3", NULL, NULL, 3.0},
        {"-lms", "100", NULL, 0.1},
        {"--loop-ms", "1", NULL, 0.001},
        {"--loop-ms=250", NULL, NULL, 0.25},
        {"-l", NULL, NULL, 5.0},           /* no value: nvidia-smi's 5 s */
        {"-l", "--format=csv", NULL, 5.0}, /* the next word is an option, not the interval */
        {"--loop", "-i", "0", 5.0},
        {"-l", "1500ms", NULL, 1.5}, /* gpuwatch's durations too */
    };
    for (size_t i = 0; i < sizeof loops / sizeof loops[0]; i++) {
        assert_int_equal(parse(&smi_like, &o, "--query-gpu=index", loops[i].a, loops[i].b, loops[i].c, NULL),
                         GW_ARGS_RUN);
        assert_true(o.loop_s > loops[i].loop_s - 1e-9 && o.loop_s < loops[i].loop_s + 1e-9);
    }
    assert_int_equal(parse(&smi_like, &o, "--query-gpu=index", NULL), GW_ARGS_RUN);
    assert_true(o.loop_s == 0);
    static const char *const bad[][2] = {{"-lms", "0"},   {"-lms", "0.5"},    {"-l", "-1"},
                                         {"-l", "90000"}, {"--loop-ms", "x"}, {"-f", ""}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(parse(&smi_like, &o, "--query-gpu=index", bad[i][0], bad[i][1], NULL), GW_ARGS_USAGE);
    assert_int_equal(parse(&smi_like, &o, "-f", "/tmp/x.csv", "--query-gpu=index", NULL), GW_ARGS_RUN);
    assert_string_equal(o.file, "/tmp/x.csv");
    /* -d is the report's sections there, the delay elsewhere */
    assert_int_equal(parse(&report_like, &o, "-d", "MEMORY,power", "-i", "1", NULL), GW_ARGS_RUN);
    assert_string_equal(o.display, "MEMORY,power");
    assert_int_equal(parse(&dmon_like, &o, "-d", "2", NULL), GW_ARGS_RUN);
    assert_null(o.display);
    assert_true(o.delay_s == 2.0);
    /* the loop words are not rewritten for a command without loops */
    assert_int_equal(parse(&dmon_like, &o, "-lms", "100", NULL), GW_ARGS_USAGE);
}

static void help(void **state)
{
    (void)state;
    cli_opts o;
    assert_int_equal(parse(&dmon_like, &o, "--help", NULL), GW_ARGS_HELP);
    assert_int_equal(parse(&dmon_like, &o, "-h", NULL), GW_ARGS_HELP);
    /* parsing again after an error starts afresh */
    assert_int_equal(parse(&dmon_like, &o, "--bogus", NULL), GW_ARGS_USAGE);
    assert_int_equal(parse(&dmon_like, &o, "-c", "2", NULL), GW_ARGS_RUN);
    assert_int_equal(o.count, 2);
}

static void fake_sampler(sampler *s, gw_gpu *gpus, int n)
{
    memset(s, 0, sizeof *s);
    memset(gpus, 0, sizeof *gpus * (size_t)n);
    s->count = n;
    s->gpus = gpus;
    for (int i = 0; i < n; i++) {
        gpu_info *in = &gpus[i].info;
        in->index = i;
        snprintf(in->str[M_UUID], GW_STR_LEN, "GPU-%08d-1111-2222-3333-444444444444", i);
        snprintf(in->str[M_PCI_BUS_ID], GW_STR_LEN, "00000000:%02X:00.0", 0x18 + i);
        mset_add(&in->str_present, M_UUID);
        mset_add(&in->str_present, M_PCI_BUS_ID);
    }
}

static int selected(const unsigned char *sel, int n, const char *want)
{
    for (int i = 0; i < n; i++)
        if (sel[i] != (want[i] == '1'))
            return 0;
    return 1;
}

static void id_selection(void **state)
{
    (void)state;
    sampler s;
    gw_gpu gpus[8];
    unsigned char sel[8];
    fake_sampler(&s, gpus, 8);
    assert_int_equal(session_select(&s, "query", "--id", NULL, sel), 0);
    assert_true(selected(sel, 8, "11111111"));
    assert_int_equal(session_select(&s, "query", "--id", "0,2,5-7", sel), 0);
    assert_true(selected(sel, 8, "10100111"));
    assert_int_equal(session_select(&s, "query", "--id", "GPU-00000003-1111-2222-3333-444444444444", sel), 0);
    assert_true(selected(sel, 8, "00010000"));
    assert_int_equal(session_select(&s, "query", "--id", "00000000:1A:00.0,1b:00.0,0000:1C:00.0", sel), 0);
    assert_true(selected(sel, 8, "00111000"));
    assert_int_equal(session_select(&s, "query", "--id", "8", sel), GW_ARGS_USAGE);
    assert_int_equal(session_select(&s, "query", "--id", "3-1", sel), GW_ARGS_USAGE);
    assert_int_equal(session_select(&s, "query", "--id", "GPU-nope", sel), GW_ARGS_USAGE);
    assert_int_equal(session_select(&s, "query", "--id", "", sel), GW_ARGS_USAGE);
    assert_int_equal(session_select(&s, "query", "--id", "1:00.0", sel), GW_ARGS_USAGE); /* 11:00.0 is not 1:00.0 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults), cmocka_unit_test(values),       cmocka_unit_test(usage_errors),
        cmocka_unit_test(help),     cmocka_unit_test(id_selection), cmocka_unit_test(smi_spellings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
