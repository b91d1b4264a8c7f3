/* cmd_query.c - `gpuwatch query`: a snapshot of chosen metrics per GPU as a table, nvidia-smi csv
 * (--query-gpu --format=csv) or JSON; --processes / --query-compute-apps for compute apps,
 * --help-fields for the catalog; -l / -lms repeat it, -f writes it to a file (as nvidia-smi). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "format.h"
#include "help_fields.h"
#include "jsonout.h"
#include "outbuf.h"
#include "options.h"
#include "query_fields.h"
#include "query_procs.h"
#include "query_rows.h"
#include "session.h"
#include "table.h"
#include "ticker.h"

/* Above this many fields the table turns: one line per field, one column per GPU. */
#define TABLE_WIDE_FIELDS 10

static const char usage[] =
    "usage: gpuwatch query [--fields F,F,...|all] [-i LIST] [--format table|csv|json] [--noheader] [--nounits]\n"
    "                      [-l SECONDS | -lms MS] [-f FILE]\n"
    "       gpuwatch query --processes [-i LIST] [--format table|csv|json] [--noheader] [--nounits]\n"
    "       gpuwatch query --query-compute-apps=F,F,... [-i LIST] [--format=csv[,noheader][,nounits]]\n"
    "       gpuwatch query --query-remapped-rows=F,... | --query-retired-pages=F,... [-i LIST]\n"
    "       gpuwatch query --help-fields\n"
    "\n"
    "A snapshot of GPU metrics. csv is that of nvidia-smi --query-gpu=F,... --format=csv for the same\n"
    "field names: \", \" between values, a \"field [unit]\" header, [N/A] for a value the GPU does not have,\n"
    "[GPU is lost] for a GPU that fell off the bus. json is an array of objects with typed values (null\n"
    "when absent).\n"
    "\n"
    "      --fields LIST   comma separated field names or aliases (see --help-fields), or all (all but\n"
    "                      the gpm.* rates, which cost a 100 ms wait and are read when named); default:\n"
    "                      index,name,pstate,temperature.gpu,utilization.gpu,utilization.memory,\n"
    "                      memory.used,memory.total,power.draw,power.limit\n"
    "      --query-gpu=LIST  the same, as nvidia-smi spells it (the format is then csv unless given)\n"
    "  -i, --id LIST       GPUs: indexes or ranges (0,2,4-7), UUIDs or PCI bus ids\n"
    "      --format FMT    table (default), csv or json; nvidia-smi's csv,noheader,nounits is accepted\n"
    "      --noheader      no header line (csv, table)\n"
    "      --nounits       no units in the header or the values (csv, table)\n"
    "      --processes     compute processes: pid, process_name, gpu_uuid, used_gpu_memory [MiB], user,\n"
    "                      container (as nvidia-smi --query-compute-apps, plus user and container)\n"
    "      --query-compute-apps=LIST  compute processes with these fields: timestamp, gpu_name,\n"
    "                      gpu_bus_id, gpu_serial, gpu_uuid, pid, process_name (or name),\n"
    "                      used_gpu_memory (or used_memory), user, container\n"
    "  -l, --loop SECONDS  repeat every SECONDS (5 when no value follows), until interrupted; the csv\n"
    "                      header is printed once\n"
    "  -lms, --loop-ms MS  repeat every MS milliseconds\n"
    "  -f, --filename FILE write to FILE (overwritten) instead of stdout\n"
    "      --query-remapped-rows=LIST  one csv row per GPU: timestamp, gpu_name, gpu_bus_id, gpu_serial,\n"
    "                      gpu_uuid, remapped_rows.correctable, .uncorrectable, .pending, .failure\n"
    "      --query-retired-pages=LIST  one csv row per retired page: the GPU's fields,\n"
    "                      retired_pages.address, retired_pages.timestamp, retired_pages.cause\n"
    "      --help-fields   list every field with its unit and description\n"
    "  -h, --help          this help\n";

static const cli_spec spec = {
    .cmd = "query",
    .allowed = OPT_FIELDS | OPT_ID | OPT_FORMAT | OPT_NOHEADER | OPT_NOUNITS | OPT_HELP_FIELDS | OPT_PROCESSES |
               OPT_QUERY_GPU | OPT_QUERY_APPS | OPT_QUERY_ROWS | OPT_LOOP | OPT_FILE,
    .formats = "table,csv,json",
    .usage = usage,
};

typedef struct query_run {
    const cli_opts *o;
    qfields *fields;
    int nrows;
    qrow *rows;
    gpu_sample *samples;
    FILE *out;
    int header; /* print the csv header (the first round of a loop) */
} query_run;

static int print_csv(const query_run *q)
{
    char text[FMT_CELL_LEN];
    int units = !q->o->nounits;
    gw_buf b = {0};
    if (!q->o->noheader && q->header) {
        for (int i = 0; i < q->fields->n; i++) {
            qfield_header(text, sizeof text, &q->fields->f[i], units);
            if (i)
                buf_append(&b, ", ", 2);
            buf_puts(&b, text);
        }
        buf_append(&b, "\n", 1);
    }
    for (int r = 0; r < q->nrows; r++) {
        for (int i = 0; i < q->fields->n; i++) {
            qfield_cell(text, sizeof text, &q->fields->f[i], &q->rows[r], units);
            if (i)
                buf_append(&b, ", ", 2);
            buf_puts(&b, text);
        }
        buf_append(&b, "\n", 1);
    }
    int rc = b.oom || fwrite(b.data ? b.data : "", 1, b.len, q->out) != b.len;
    buf_release(&b);
    return rc;
}

static int print_json(const query_run *q)
{
    cJSON *arr = cJSON_CreateArray();
    for (int r = 0; arr && r < q->nrows; r++) {
        cJSON *obj = cJSON_CreateObject();
        for (int i = 0; i < q->fields->n; i++)
            cJSON_AddItemToObject(obj, qfield_name(&q->fields->f[i]), qfield_json(&q->fields->f[i], &q->rows[r]));
        if (q->rows[r].sample->status == GPU_LOST)
            cJSON_AddTrueToObject(obj, "gpu_lost");
        cJSON_AddItemToArray(arr, obj);
    }
    int rc = arr ? json_print_array(q->out, arr) : -1;
    cJSON_Delete(arr);
    return rc == 0 ? 0 : 1;
}

/* One line per GPU; with many fields one line per field and a column per GPU. */
static int print_table(const query_run *q)
{
    char text[FMT_CELL_LEN];
    int units = !q->o->nounits, nf = q->fields->n;
    int wide = nf > TABLE_WIDE_FIELDS;
    table t;
    if (table_init(&t, wide ? q->nrows + 1 : nf) != 0)
        return 1;
    if (wide) {
        if (!q->o->noheader) {
            table_add(&t, "field");
            for (int r = 0; r < q->nrows; r++) {
                snprintf(text, sizeof text, "GPU %d", q->rows[r].info->index);
                table_add(&t, text);
            }
        }
        for (int i = 0; i < nf; i++) {
            table_add(&t, qfield_name(&q->fields->f[i]));
            for (int r = 0; r < q->nrows; r++) {
                qfield_cell(text, sizeof text, &q->fields->f[i], &q->rows[r], units);
                table_add(&t, text);
            }
        }
    } else {
        for (int i = 0; i < nf; i++)
            table_align_right(&t, i, qfield_is_numeric(&q->fields->f[i]));
        for (int i = 0; i < nf && !q->o->noheader; i++)
            table_add(&t, qfield_name(&q->fields->f[i]));
        for (int r = 0; r < q->nrows; r++)
            for (int i = 0; i < nf; i++) {
                qfield_cell(text, sizeof text, &q->fields->f[i], &q->rows[r], units);
                table_add(&t, text);
            }
    }
    table_print(&t, q->out);
    table_free(&t);
    return 0;
}

static int query_gpus(sampler *s, const unsigned char *sel, const cli_opts *o, qfields *fields, FILE *out, int header)
{
    query_run q = {.o = o, .fields = fields, .out = out, .header = header};
    q.rows = calloc((size_t)s->count + 1, sizeof *q.rows);
    q.samples = calloc((size_t)s->count + 1, sizeof *q.samples);
    int rc = 1;
    if (q.rows && q.samples) {
        metric_set want;
        qfields_want(fields, &want);
        for (int g = 0; g < s->count; g++) {
            if (!sel[g])
                continue;
            sampler_read(s, g, &want, &q.samples[q.nrows]);
            q.rows[q.nrows] = (qrow){&s->gpus[g].info, &q.samples[q.nrows], s->count};
            q.nrows++;
        }
        if (o->format == OUT_CSV)
            rc = print_csv(&q);
        else if (o->format == OUT_JSON)
            rc = print_json(&q);
        else
            rc = print_table(&q);
    }
    free(q.rows);
    free(q.samples);
    return rc;
}

/* One round: the GPUs' fields or the processes. */
static int query_once(sampler *s, const unsigned char *sel, const cli_opts *o, qfields *fields, const proc_fields *pf,
                      FILE *out, int first)
{
    int rc = o->rows_kind   ? query_rows(s, sel, o, out, first)
             : o->processes ? query_processes(s, sel, o, pf, out, first)
                            : query_gpus(s, sel, o, fields, out, first);
    if (fflush(out) != 0)
        rc = 1;
    return rc;
}

/* Once, or every o->loop_s seconds until SIGINT/SIGTERM or a failed write (a closed pipe). */
static int query_rounds(sampler *s, const unsigned char *sel, const cli_opts *o, qfields *fields, const proc_fields *pf)
{
    FILE *out = stdout;
    if (o->file && !(out = fopen(o->file, "w"))) {
        fprintf(stderr, "gpuwatch %s: -f: cannot write '%s': %s\n", spec.cmd, o->file, strerror(errno));
        return 1;
    }
    int rc = query_once(s, sel, o, fields, pf, out, 1);
    if (o->loop_s > 0 && rc == 0) {
        ticker t;
        ticker_start(&t, o->loop_s);
        while (rc == 0 && ticker_wait(&t) == 0)
            rc = query_once(s, sel, o, fields, pf, out, 0);
        if (ticker_stopped())
            rc = 0; /* interrupted: the end of a loop, as with nvidia-smi */
    }
    if (out != stdout && fclose(out) != 0)
        rc = 1;
    return rc;
}

int cmd_query(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(&spec, argc, argv, &o);
    if (rc != CLI_RUN)
        return rc == CLI_HELP ? 0 : GW_EXIT_USAGE;
    if (o.help_fields) {
        help_fields_print(stdout);
        return 0;
    }
    if (o.rows_kind && (o.processes || o.fields)) {
        cli_usage_error(spec.cmd, "%s goes alone (one list a run)",
                        o.rows_kind == 'r' ? "--query-remapped-rows" : "--query-retired-pages");
        return GW_EXIT_USAGE;
    }
    if (o.rows_kind && query_rows_check(spec.cmd, &o) != 0)
        return GW_EXIT_USAGE;
    if (o.processes && o.fields) {
        if (o.apps)
            cli_usage_error(spec.cmd, "--query-gpu and --query-compute-apps do not go together (one list a run)");
        else
            cli_usage_error(spec.cmd, "--processes lists fixed columns; --fields does not apply");
        return GW_EXIT_USAGE;
    }
    /* nvidia-smi's spellings bring nvidia-smi's output: csv unless --format says otherwise */
    if (o.smi_spelling && !o.format_given)
        o.format = OUT_CSV;
    static qfields fields;
    static proc_fields pf;
    if (!o.processes && !o.rows_kind && qfields_parse(spec.cmd, o.fields ? o.fields : QF_DEFAULT, &fields) != 0)
        return GW_EXIT_USAGE;
    if (o.processes && proc_fields_parse(spec.cmd, o.apps ? o.apps : PROC_FIELDS_DEFAULT, &pf) != 0)
        return GW_EXIT_USAGE;
    if (o.loop_s > 0)
        ticker_install_signals(); /* before anything is read: an early Ctrl-C still ends the loop cleanly */
    sampler s;
    if ((rc = session_open(&s, spec.cmd, 1)) != 0)
        return rc;
    unsigned char *sel = calloc((size_t)s.count + 1, 1);
    if (!sel)
        rc = 1;
    else if (session_select(&s, spec.cmd, o.ids, sel) != 0)
        rc = GW_EXIT_USAGE;
    else
        rc = query_rounds(&s, sel, &o, &fields, &pf);
    free(sel);
    sampler_close(&s);
    return rc;
}
