/* cmd_smi.c - gpuwatch's nvidia-smi form: the options of an nvidia-smi command line, with their
 * meanings. `gpuwatch --query-gpu=F,... --format=csv -i 0 -l 1`, `--query-compute-apps=...`, `-L`,
 * `-q -d MEMORY`, `--help-query-gpu`: parsed once (the commands' option table and the form's own
 * rows), then handed to query, list, the -q report or the summary table, which take none of the
 * others' options. Settings (-pm, -pl, -c, ...) are refused: gpuwatch only reads. */
#include "commands.h"
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "help_fields.h"
#include "options.h"
#include "query_procs.h"
#include "query_rows.h"
#include "sampler.h"
#include "smi_report.h"
#include "smi_table.h"
#include "suggest.h"

/* What the nvidia-smi form's own options set, beside the commands' options (which come first). */
typedef struct smi_form {
    cli_opts o;
    int list, report, help;
    int help_gpu, help_apps, help_remapped, help_retired; /* --help-query-* */
} smi_form;

/* An option gpuwatch does not answer: always an error, saying why (the row's choices). */
static int refuse(const gw_opt *opt, const char *value, void *out, char *why, size_t n)
{
    (void)value;
    (void)out;
    snprintf(why, n, "%s", opt->choices);
    return -1;
}

#define AT(field) .off = offsetof(smi_form, field)

static const gw_opt form_rows[] = {
    {"-L,--list-gpus", GW_OPT_FLAG, AT(list)},
    {"-q,--query,-a", GW_OPT_FLAG, AT(report)},
    {"-h,--help", GW_OPT_FLAG, AT(help)},
    {"--help-query-gpu", GW_OPT_FLAG, AT(help_gpu)},
    {"--help-query-compute-apps", GW_OPT_FLAG, AT(help_apps)},
    {"--help-query-remapped-rows", GW_OPT_FLAG, AT(help_remapped)},
    {"--help-query-retired-pages", GW_OPT_FLAG, AT(help_retired)},
    /* nvidia-smi options that change GPU settings, and reports gpuwatch does not produce */
    {"-pm,--persistence-mode,-e,--ecc-config,-p,--reset-ecc-errors,-c,--compute-mode,-dm,--driver-model,"
     "-fdm,--force-driver-model,-ac,--applications-clocks,-rac,--reset-applications-clocks,-acp,"
     "--applications-clocks-permission,-pl,--power-limit,-lgc,--lock-gpu-clocks,-rgc,--reset-gpu-clocks,-lmc,"
     "--lock-memory-clocks,-rmc,--reset-memory-clocks,-r,--gpu-reset,-mig,--multi-instance-gpu,-gtt,"
     "--gpu-target-temp,-cc,--cuda-clocks,-am,--accounting-mode,-caa,--clear-accounted-apps",
     GW_OPT_CUSTOM, .check = refuse, .flags = GW_OPT_OPTIONAL_VALUE,
     .choices = "changes GPU settings, which gpuwatch does not do (it only reads: use nvidia-smi)"},
    {"--query-accounted-apps,--query-supported-clocks", GW_OPT_CUSTOM, .check = refuse, .flags = GW_OPT_OPTIONAL_VALUE,
     .choices = "is not answered (gpuwatch answers --query-gpu and --query-compute-apps)"},
    {0},
};

/* nvidia-smi's spellings of list, query, the -q report and the summary table, with their meanings. */
static const cli_spec form = {
    .cmd = "",
    .allowed = OPT_ID | OPT_FORMAT | OPT_NOHEADER | OPT_NOUNITS | OPT_QUERY_GPU | OPT_QUERY_APPS | OPT_QUERY_ROWS |
               OPT_LOOP | OPT_FILE | OPT_DISPLAY | OPT_XML,
    .formats = "table,csv,json",
    .extra = form_rows,
};

int smi_is_option(const char *arg)
{
    return cli_spec_has(&form, arg);
}

typedef struct visit {
    gw_opt_visit *fn;
    void *ctx;
} visit;

static void answered(const char *name, const gw_opt *opt, void *ctx)
{
    const visit *v = ctx;
    if (opt && opt->check != refuse)
        v->fn(name, opt, v->ctx);
}

void smi_each_option(gw_opt_visit *fn, void *ctx)
{
    visit v = {fn, ctx};
    cli_each_option(&form, answered, &v);
}

/* --help-query-*: the fields of nvidia-smi's queries; 1 when one was asked. */
static int help_query_print(const smi_form *f)
{
    if (f->help_gpu)
        help_fields_print_smi(stdout);
    else if (f->help_apps)
        proc_fields_help_smi(stdout);
    else if (f->help_remapped || f->help_retired)
        query_rows_help(stdout, f->help_remapped ? 'r' : 'p');
    else
        return 0;
    return 1;
}

/* The form's options that mode (list, query, the report, the table) does not take: one usage error. */
static int check_mode(const cli_opts *o, const cli_spec *mode, const char *mode_name)
{
    unsigned extra = o->given & ~mode->allowed;
    for (unsigned bit = 1; extra && bit; bit <<= 1)
        if (extra & bit)
            return gw_usage_error_named("", "%s: does not go with %s", cli_option_name(bit), mode_name);
    return 0;
}

int cmd_smi(int argc, char **argv)
{
    smi_form f = {0};
    int rc = cli_parse(&form, argc, argv, &f.o);
    if (rc != GW_ARGS_RUN)
        return gw_args_exit(rc);
    if (help_query_print(&f))
        return 0;
    f.report |= f.o.xml;
    int query = f.o.smi_spelling;
    if (f.list + f.report + query > 1)
        return gw_args_exit(
            gw_usage_error_named("", "-L, -q, --query-gpu and --query-compute-apps do not go together"));
    const cli_spec *mode = f.list ? &list_spec : f.report ? &smi_report_spec : query ? &query_spec : &smi_table_spec;
    const char *name = f.list ? "-L" : f.report ? "-q" : query ? "the query" : "the summary table";
    if (f.help) {
        fputs(mode->usage, stdout);
        return 0;
    }
    if (check_mode(&f.o, mode, name) != 0)
        return GW_EXIT_USAGE;
    if (f.list)
        return list_print(&f.o);
    if (f.report)
        return smi_report_print(&f.o);
    if (query)
        return query_print(&f.o);
    return smi_table_print(&f.o); /* nvidia-smi with no query: the summary table */
}
