/* pmon_format.c - pmon's plain/csv/JSON lines from a process (or an idle/lost GPU). */
#include "pmon_format.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include "format.h"
#include "lead.h"
#include "util.h"

enum { C_SM, C_MEM, C_ENC, C_DEC, C_JPG, C_OFA, C_FB, C_CCPM, C_NUM };
static const char *num_names[C_NUM] = {"sm", "mem", "enc", "dec", "jpg", "ofa", "fb", "ccpm"};
static const char *num_units[C_NUM] = {"%", "%", "%", "%", "%", "%", "MB", "MB"};

#define USER_W 10
#define CONTAINER_W 20
#define COMMAND_W 15

const char *pmon_type(unsigned type)
{
    if (type & PROC_MPS)
        return type & PROC_COMPUTE ? "M+C" : "M";
    if ((type & PROC_COMPUTE) && (type & PROC_GRAPHICS))
        return "C+G";
    if (type & PROC_COMPUTE)
        return "C";
    if (type & PROC_GRAPHICS)
        return "G";
    return "-";
}

static void pmon_command(char *buf, size_t n, const gpu_proc *p)
{
    const char *name = p->name[0] ? p->name : p->cmdline;
    char first[256];
    if (!p->name[0]) { /* argv[0] of the command line */
        snprintf(first, sizeof first, "%s", name);
        char *space = strchr(first, ' ');
        if (space)
            *space = 0;
        name = first;
    }
    const char *slash = strrchr(name, '/');
    if (slash && slash[1])
        name = slash + 1;
    gw_strlcpy(buf, *name ? name : "-", n < COMMAND_W + 1 ? n : COMMAND_W + 1);
}

/* A cell value; 0 when there is none ('-'). */
static int num_value(const gpu_proc *p, int col, long long *out)
{
    if (!p)
        return 0;
    switch (col) {
    case C_SM:
        if (!p->has_sm)
            return 0;
        *out = (long long)p->sm_util;
        return 1;
    case C_MEM:
        if (!p->has_memutil)
            return 0;
        *out = (long long)p->mem_util;
        return 1;
    case C_ENC:
        if (!p->has_enc)
            return 0;
        *out = (long long)p->enc_util;
        return 1;
    case C_DEC:
        if (!p->has_dec)
            return 0;
        *out = (long long)p->dec_util;
        return 1;
    case C_FB:
        if (!p->has_mem)
            return 0;
        *out = (long long)p->mem_mib;
        return 1;
    default: return 0;
    }
}

void pmon_layout_init(pmon_layout *l, const char *letters, int date, int time)
{
    memset(l, 0, sizeof *l);
    l->date = date;
    l->time = time;
    for (int c = 0; c < C_NUM; c++)
        if (strchr(letters, c < C_FB ? 'u' : 'm'))
            l->cols[l->ncols++] = c;
}

/* A text column without spaces (so lines split on whitespace), "-" when empty. */
static void word(char *buf, size_t n, const char *s)
{
    snprintf(buf, n, "%s", s && *s ? s : "-");
    for (char *c = buf; *c; c++)
        if (*c == ' ' || *c == '\t')
            *c = '_';
}

void pmon_plain_header(const pmon_layout *l, gw_buf *b)
{
    for (int line = LEAD_HEADER1; line <= LEAD_HEADER2; line++) {
        lead_add(b, l->date, l->time, line, 0, NULL);
        ob_pad(b, line == LEAD_HEADER1 ? "pid" : "#", 12);
        buf_puts(b, " ");
        ob_pad(b, line == LEAD_HEADER1 ? "type" : "C/G", 6);
        for (int k = 0; k < l->ncols; k++) {
            buf_puts(b, " ");
            ob_pad(b, line == LEAD_HEADER1 ? num_names[l->cols[k]] : num_units[l->cols[k]], 6);
        }
        buf_puts(b, "    ");
        ob_pad(b, line == LEAD_HEADER1 ? "user" : "name", -USER_W);
        buf_puts(b, " ");
        ob_pad(b, line == LEAD_HEADER1 ? "container" : "id", -CONTAINER_W);
        buf_puts(b, line == LEAD_HEADER1 ? "    command \n" : "    name \n");
    }
}

void pmon_plain_row(const pmon_layout *l, gw_buf *b, const pmon_line *line)
{
    const gpu_proc *p = line->proc;
    char text[300];
    snprintf(text, sizeof text, "%d", line->gpu);
    lead_add(b, l->date, l->time, LEAD_ROW, line->t_us, text);
    if (p)
        snprintf(text, sizeof text, "%u", p->pid);
    else
        snprintf(text, sizeof text, "-");
    buf_puts(b, " ");
    ob_pad(b, text, 10);
    buf_puts(b, " ");
    ob_pad(b, p ? pmon_type(p->type) : "-", 5);
    for (int k = 0; k < l->ncols; k++) {
        long long v;
        if (num_value(p, l->cols[k], &v))
            fmt_int(text, v);
        else
            snprintf(text, sizeof text, "-");
        buf_puts(b, " ");
        ob_pad(b, text, 6);
    }
    buf_puts(b, "    ");
    word(text, sizeof text, p ? p->user : NULL);
    ob_pad(b, text, -USER_W);
    buf_puts(b, " ");
    word(text, sizeof text, p ? p->container : NULL);
    ob_pad(b, text, -CONTAINER_W);
    buf_puts(b, "    ");
    char command[COMMAND_W + 1] = "";
    if (p)
        pmon_command(command, sizeof command, p);
    word(text, sizeof text, command);
    ob_pad(b, text, -COMMAND_W);
    buf_puts(b, line->lost ? " " PMON_LOST_MARK "\n" : "\n");
}

void pmon_csv_header(const pmon_layout *l, gw_buf *b, int with_units)
{
    lead_csv_header(b, l->date, l->time);
    buf_puts(b, "gpu, pid, type");
    for (int k = 0; k < l->ncols; k++) {
        buf_puts(b, ", ");
        buf_puts(b, num_names[l->cols[k]]);
        if (with_units)
            buf_printf(b, " [%s]", num_units[l->cols[k]]);
    }
    buf_puts(b, ", user, container, command\n");
}

void pmon_csv_row(const pmon_layout *l, gw_buf *b, const pmon_line *line)
{
    const gpu_proc *p = line->proc;
    char text[300];
    lead_csv_row(b, l->date, l->time, line->t_us);
    if (line->lost) {
        buf_printf(b, "%d", line->gpu);
        for (int k = 0; k < l->ncols + 5; k++)
            buf_puts(b, ", " FMT_LOST);
        buf_puts(b, "\n");
        return;
    }
    if (p)
        buf_printf(b, "%d, %u, %s", line->gpu, p->pid, pmon_type(p->type));
    else
        buf_printf(b, "%d, -, -", line->gpu);
    for (int k = 0; k < l->ncols; k++) {
        long long v;
        if (num_value(p, l->cols[k], &v))
            buf_printf(b, ", %lld", v);
        else
            buf_puts(b, ", -");
    }
    buf_puts(b, ", ");
    buf_puts(b, p && p->user[0] ? p->user : "-");
    buf_puts(b, ", ");
    buf_puts(b, p && p->container[0] ? p->container : "-");
    buf_puts(b, ", ");
    if (p)
        pmon_command(text, sizeof text, p);
    else
        snprintf(text, sizeof text, "-");
    buf_puts(b, text);
    buf_puts(b, "\n");
}

static void add_text(cJSON *o, const char *key, const char *s)
{
    if (s && *s)
        cJSON_AddStringToObject(o, key, s);
    else
        cJSON_AddNullToObject(o, key);
}

void pmon_json_row(const pmon_layout *l, gw_buf *b, const pmon_line *line)
{
    const gpu_proc *p = line->proc;
    char text[300];
    fmt_timestamp(text, sizeof text, line->t_us);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "timestamp", text);
    cJSON_AddNumberToObject(o, "gpu", line->gpu);
    if (p)
        cJSON_AddNumberToObject(o, "pid", p->pid);
    else
        cJSON_AddNullToObject(o, "pid");
    add_text(o, "type", p ? pmon_type(p->type) : NULL);
    for (int k = 0; k < l->ncols; k++) {
        long long v;
        const char *name = num_names[l->cols[k]];
        if (num_value(p, l->cols[k], &v))
            cJSON_AddNumberToObject(o, name, (double)v);
        else
            cJSON_AddNullToObject(o, name);
    }
    add_text(o, "user", p ? p->user : NULL);
    add_text(o, "container", p ? p->container : NULL);
    if (p)
        pmon_command(text, sizeof text, p);
    add_text(o, "command", p ? text : NULL);
    add_text(o, "cmdline", p ? p->cmdline : NULL);
    cJSON_AddBoolToObject(o, "lost", line->lost != 0);
    char *out = cJSON_PrintUnformatted(o);
    if (out) {
        buf_puts(b, out);
        buf_puts(b, "\n");
    }
    cJSON_free(out);
    cJSON_Delete(o);
}
