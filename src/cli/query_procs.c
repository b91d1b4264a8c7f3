/* query_procs.c - the compute-apps listing of `gpuwatch query --processes` (csv, table, json). */
#include "query_procs.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "jsonout.h"
#include "table.h"

#define MAX_PROCS 1024

enum { P_PID, P_NAME, P_UUID, P_MEM, P_USER, P_CONTAINER, P_COLS };
static const char *col_names[P_COLS] = {"pid", "process_name", "gpu_uuid", "used_gpu_memory", "user", "container"};

/* process_name as nvidia-smi shows it: argv[0] (often a path), else the short name. */
static void process_name(char *buf, size_t n, const gpu_proc *p)
{
    if (p->cmdline[0]) {
        snprintf(buf, n, "%s", p->cmdline);
        char *space = strchr(buf, ' ');
        if (space)
            *space = 0;
    } else {
        snprintf(buf, n, "%s", p->name[0] ? p->name : FMT_NA);
    }
}

static void cell(char *buf, size_t n, int col, const gpu_proc *p, const char *uuid, int with_unit)
{
    switch (col) {
    case P_PID: snprintf(buf, n, "%u", p->pid); break;
    case P_NAME: process_name(buf, n, p); break;
    case P_UUID: snprintf(buf, n, "%s", uuid); break;
    case P_MEM:
        if (p->has_mem)
            snprintf(buf, n, with_unit ? "%.0f MiB" : "%.0f", p->mem_mib);
        else
            snprintf(buf, n, "%s", FMT_NA);
        break;
    case P_USER: snprintf(buf, n, "%s", p->user[0] ? p->user : FMT_NA); break;
    default: snprintf(buf, n, "%s", p->container[0] ? p->container : FMT_NA); break;
    }
}

static void header(char *buf, size_t n, int col, int with_unit)
{
    snprintf(buf, n, "%s%s", col_names[col], col == P_MEM && with_unit ? " [MiB]" : "");
}

static cJSON *json_proc(const gpu_proc *p, const char *uuid)
{
    char name[256];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "pid", p->pid);
    process_name(name, sizeof name, p);
    cJSON_AddStringToObject(o, "process_name", name);
    cJSON_AddStringToObject(o, "gpu_uuid", uuid);
    if (p->has_mem)
        cJSON_AddNumberToObject(o, "used_gpu_memory", (double)(long long)p->mem_mib);
    else
        cJSON_AddNullToObject(o, "used_gpu_memory");
    if (p->user[0])
        cJSON_AddStringToObject(o, "user", p->user);
    else
        cJSON_AddNullToObject(o, "user");
    if (p->container[0])
        cJSON_AddStringToObject(o, "container", p->container);
    else
        cJSON_AddNullToObject(o, "container");
    return o;
}

int query_processes(sampler *s, const unsigned char *sel, const cli_opts *o)
{
    gpu_proc *procs = calloc(MAX_PROCS, sizeof *procs);
    cJSON *arr = cJSON_CreateArray();
    table t;
    if (!procs || !arr || table_init(&t, P_COLS) != 0) {
        free(procs);
        cJSON_Delete(arr);
        return 1;
    }
    char text[512];
    int with_unit = !o->nounits;
    table_align_right(&t, P_PID, 1);
    table_align_right(&t, P_MEM, 1);
    if (!o->noheader && o->format != OUT_JSON) {
        for (int c = 0; c < P_COLS; c++) {
            header(text, sizeof text, c, with_unit);
            if (o->format == OUT_CSV)
                fputs(c ? ", " : "", stdout), fputs(text, stdout);
            else
                table_add(&t, text);
        }
        if (o->format == OUT_CSV)
            fputc('\n', stdout);
    }
    for (int g = 0; g < s->count; g++) {
        if (!sel[g])
            continue;
        const gpu_info *in = &s->gpus[g].info;
        const char *uuid = mset_has(&in->str_present, M_UUID) ? in->str[M_UUID] : FMT_NA;
        int n = sampler_read_processes(s, g, procs, MAX_PROCS);
        for (int k = 0; k < n; k++) {
            const gpu_proc *p = &procs[k];
            if (!(p->type & (PROC_COMPUTE | PROC_MPS)))
                continue;
            if (o->format == OUT_JSON) {
                cJSON_AddItemToArray(arr, json_proc(p, uuid));
                continue;
            }
            for (int c = 0; c < P_COLS; c++) {
                cell(text, sizeof text, c, p, uuid, with_unit);
                if (o->format == OUT_CSV)
                    fputs(c ? ", " : "", stdout), fputs(text, stdout);
                else
                    table_add(&t, text);
            }
            if (o->format == OUT_CSV)
                fputc('\n', stdout);
        }
    }
    if (o->format == OUT_JSON) {
        json_print_array(stdout, arr);
    } else if (o->format == OUT_TABLE) {
        table_print(&t, stdout);
    }
    table_free(&t);
    cJSON_Delete(arr);
    free(procs);
    return 0;
}
