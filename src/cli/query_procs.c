/* query_procs.c - the compute-apps listing of `gpuwatch query --processes` and
 * `--query-compute-apps=F,...` (csv, table, json). */
#include "query_procs.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "format.h"
#include "jsonout.h"
#include "smi_report.h"
#include "table.h"
#include "util.h"

#define MAX_PROCS 1024

enum {
    P_TIMESTAMP,
    P_GPU_NAME,
    P_GPU_BUS_ID,
    P_GPU_SERIAL,
    P_GPU_UUID,
    P_PID,
    P_NAME,
    P_MEM,
    P_USER,
    P_CONTAINER,
    P_N
};

static const struct {
    const char *name, *alias, *unit, *help;
} cols[P_N] = {
    [P_TIMESTAMP] = {"timestamp", NULL, NULL, "The time of the query, \"YYYY/MM/DD HH:MM:SS.msec\" (local time)."},
    [P_GPU_NAME] = {"gpu_name", NULL, NULL, "The product name of the process's GPU."},
    [P_GPU_BUS_ID] = {"gpu_bus_id", NULL, NULL, "PCI bus id of the GPU, domain:bus:device.function in hex."},
    [P_GPU_SERIAL] = {"gpu_serial", NULL, NULL, "Serial number of the GPU's board ([N/A] on GeForce)."},
    [P_GPU_UUID] = {"gpu_uuid", NULL, NULL, "UUID of the GPU."},
    [P_PID] = {"pid", NULL, NULL, "Process id (in the host's pid namespace)."},
    [P_NAME] = {"process_name", "name", NULL, "The process's argv[0], often a path (as nvidia-smi prints it)."},
    [P_MEM] = {"used_gpu_memory", "used_memory", "MiB", "GPU memory used by the process's contexts."},
    [P_USER] = {"user", NULL, NULL, "Owner of the process (gpuwatch; [N/A] when /proc cannot see it)."},
    [P_CONTAINER] = {"container", NULL, NULL,
                     "Container, Kubernetes pod, Slurm job or systemd unit of the process (gpuwatch)."},
};

void proc_fields_offer_names(gw_suggest *s)
{
    for (int c = 0; c < P_N; c++) {
        gw_suggest_add(s, cols[c].name);
        gw_suggest_add(s, cols[c].alias);
    }
}

void proc_fields_names(FILE *f)
{
    for (int c = 0; c < P_N; c++) {
        fprintf(f, "%s\n", cols[c].name);
        if (cols[c].alias)
            fprintf(f, "%s\n", cols[c].alias);
    }
}

void proc_fields_help_smi(FILE *f)
{
    fprintf(f, "List of valid properties to query for the switch \"--query-compute-apps\":\n\n"
               "Section about Active Compute Processes properties\n"
               "List of processes having compute context on the device (and gpuwatch's user and container).\n\n");
    for (int c = 0; c < P_N; c++) {
        fprintf(f, "\"%s\"", cols[c].name);
        if (cols[c].alias)
            fprintf(f, " or \"%s\"", cols[c].alias);
        fprintf(f, "\n%s\n\n", cols[c].help);
    }
}

void proc_fields_help(FILE *f)
{
    fprintf(f, "Fields for `--query-compute-apps=F,F,...` (compute processes; nvidia-smi's names and\n"
               "aliases, plus user and container). Absent values print [N/A].\n\n");
    for (int c = 0; c < P_N; c++) {
        char name[64], unit[16] = "";
        snprintf(name, sizeof name, "%s%s%s", cols[c].name, cols[c].alias ? " or " : "",
                 cols[c].alias ? cols[c].alias : "");
        if (cols[c].unit)
            snprintf(unit, sizeof unit, "[%s]", cols[c].unit);
        fprintf(f, "  %-30s %-6s %s\n", name, unit, cols[c].help);
    }
}

static int col_by_name(const char *name, size_t len)
{
    for (int c = 0; c < P_N; c++)
        if ((strlen(cols[c].name) == len && strncmp(cols[c].name, name, len) == 0) ||
            (cols[c].alias && strlen(cols[c].alias) == len && strncmp(cols[c].alias, name, len) == 0))
            return c;
    return -1;
}

int proc_fields_parse(const char *cmd, const char *list, proc_fields *out)
{
    out->n = 0;
    if (!list || !*list)
        return cli_usage_error(cmd, "--query-compute-apps: empty field list");
    for (const char *next = list; *next;) {
        size_t len;
        const char *p = cli_list_item(&next, &len);
        int c = col_by_name(p, len);
        if (c < 0) {
            char word[GW_SUGGEST_LEN], hint[GW_SUGGEST_LEN + 32];
            snprintf(word, sizeof word, "%.*s", (int)len, p);
            gw_suggest s;
            gw_suggest_init(&s, word);
            proc_fields_offer_names(&s);
            return cli_usage_error(cmd, "field \"%s\" is not a valid field to query for compute apps%s", word,
                                   gw_suggest_suffix(&s, hint, sizeof hint));
        }
        if (out->n >= PROC_FIELDS_MAX)
            return cli_usage_error(cmd, "--query-compute-apps: more than %d fields", PROC_FIELDS_MAX);
        out->col[out->n++] = c;
    }
    return 0;
}

static void process_name(char *buf, size_t n, const gpu_proc *p)
{
    if (!smi_process_name(p, buf, n))
        snprintf(buf, n, "%s", FMT_NA);
}

/* What one row is made of: the process, its GPU's identity and when it was read. */
typedef struct proc_row {
    const gpu_proc *p;
    const gpu_info *gpu;
    uint64_t t_us;
} proc_row;

static const char *gpu_str(const proc_row *r, metric_id id)
{
    return mset_has(&r->gpu->str_present, id) ? r->gpu->str[id] : NULL;
}

/* The cell text; NULL when the value is absent. */
static const char *cell(char *buf, size_t n, int col, const proc_row *r, int with_unit)
{
    const gpu_proc *p = r->p;
    switch (col) {
    case P_TIMESTAMP: fmt_timestamp(buf, n, r->t_us); return buf;
    case P_GPU_NAME: return gpu_str(r, M_NAME);
    case P_GPU_BUS_ID: return gpu_str(r, M_PCI_BUS_ID);
    case P_GPU_SERIAL: return gpu_str(r, M_SERIAL);
    case P_GPU_UUID: return gpu_str(r, M_UUID);
    case P_PID: snprintf(buf, n, "%u", p->pid); return buf;
    case P_NAME: process_name(buf, n, p); return buf;
    case P_MEM:
        if (!p->has_mem)
            return NULL;
        snprintf(buf, n, with_unit ? "%.0f MiB" : "%.0f", p->mem_mib);
        return buf;
    case P_USER: return p->user[0] ? p->user : NULL;
    default: return p->container[0] ? p->container : NULL;
    }
}

static void header(char *buf, size_t n, int col, int with_unit)
{
    if (with_unit && cols[col].unit)
        snprintf(buf, n, "%s [%s]", cols[col].name, cols[col].unit);
    else
        snprintf(buf, n, "%s", cols[col].name);
}

static cJSON *json_proc(const proc_fields *pf, const proc_row *r)
{
    char text[512];
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; o && i < pf->n; i++) {
        int c = pf->col[i];
        cJSON *v;
        if (c == P_PID)
            v = cJSON_CreateNumber(r->p->pid);
        else if (c == P_MEM)
            v = r->p->has_mem ? cJSON_CreateNumber((double)(long long)r->p->mem_mib) : cJSON_CreateNull();
        else {
            const char *s = cell(text, sizeof text, c, r, 0);
            v = s ? cJSON_CreateString(s) : cJSON_CreateNull();
        }
        cJSON_AddItemToObject(o, cols[c].name, v);
    }
    return o;
}

/* One process as a csv line or a table row. */
static void text_row(const proc_fields *pf, const proc_row *r, const cli_opts *o, table *t, gw_buf *b)
{
    char text[512];
    for (int i = 0; i < pf->n; i++) {
        const char *s = cell(text, sizeof text, pf->col[i], r, !o->nounits);
        if (!s)
            s = FMT_NA;
        if (o->format == OUT_CSV) {
            if (i)
                buf_append(b, ", ", 2);
            buf_puts(b, s);
        } else {
            table_add(t, s);
        }
    }
    if (o->format == OUT_CSV)
        buf_append(b, "\n", 1);
}

int query_processes(sampler *s, const unsigned char *sel, const cli_opts *o, const proc_fields *pf, FILE *out,
                    int with_header)
{
    gpu_proc *procs = calloc(MAX_PROCS, sizeof *procs);
    cJSON *arr = cJSON_CreateArray();
    gw_buf b = {0};
    table t;
    if (!procs || !arr || table_init(&t, pf->n) != 0) {
        free(procs);
        cJSON_Delete(arr);
        return 1;
    }
    char text[512];
    for (int i = 0; i < pf->n; i++)
        table_align_right(&t, i, pf->col[i] == P_PID || pf->col[i] == P_MEM);
    if (with_header && !o->noheader && o->format != OUT_JSON) {
        for (int i = 0; i < pf->n; i++) {
            header(text, sizeof text, pf->col[i], !o->nounits);
            if (o->format == OUT_CSV) {
                if (i)
                    buf_append(&b, ", ", 2);
                buf_puts(&b, text);
            } else {
                table_add(&t, text);
            }
        }
        if (o->format == OUT_CSV)
            buf_append(&b, "\n", 1);
    }
    for (int g = 0; g < s->count; g++) {
        if (!sel[g])
            continue;
        int n = sampler_read_processes(s, g, procs, MAX_PROCS);
        proc_row r = {NULL, &s->gpus[g].info, gw_now_us()};
        for (int k = 0; k < n; k++) {
            r.p = &procs[k];
            if (!(r.p->type & (PROC_COMPUTE | PROC_MPS)))
                continue;
            if (o->format == OUT_JSON)
                cJSON_AddItemToArray(arr, json_proc(pf, &r));
            else
                text_row(pf, &r, o, &t, &b);
        }
    }
    int rc = 0;
    if (o->format == OUT_JSON)
        rc = json_print_array(out, arr) != 0;
    else if (o->format == OUT_TABLE)
        table_print(&t, out);
    else
        rc = b.oom || fwrite(b.data ? b.data : "", 1, b.len, out) != b.len;
    buf_release(&b);
    table_free(&t);
    cJSON_Delete(arr);
    free(procs);
    return rc;
}
