/* smi_emit.c - the -q report's two forms: nvidia-smi's text and its XML (smi_emit.h). */
#include "smi_emit.h"
#include <stdio.h>
#include <string.h>
#include "text.h"
#include "util.h"

#define KEY_COL 55

void smi_emit_init(smi_emit *e, gw_buf *b, int xml)
{
    memset(e, 0, sizeof *e);
    e->b = b;
    e->xml = xml;
    e->col = KEY_COL;
}

static void tabs(gw_buf *b, int n)
{
    for (int i = 0; i < n; i++)
        buf_append(b, "\t", 1);
}

/* Cleaned and escaped outside text. */
static void put_text(smi_emit *e, const char *value)
{
    char clean[512];
    gw_strlcpy(clean, value, sizeof clean);
    gw_clean_text(clean);
    if (!e->xml) {
        buf_puts(e->b, clean);
        return;
    }
    for (const char *p = clean; *p; p++) {
        switch (*p) {
        case '&': buf_puts(e->b, "&amp;"); break;
        case '<': buf_puts(e->b, "&lt;"); break;
        case '>': buf_puts(e->b, "&gt;"); break;
        case '"': buf_puts(e->b, "&quot;"); break;
        case '\'': buf_puts(e->b, "&apos;"); break;
        default: buf_append(e->b, p, 1);
        }
    }
}

/* XML: closes the open sections at depth or deeper. */
static void close_to(smi_emit *e, int depth)
{
    while (e->n > 0 && e->depth[e->n - 1] >= depth) {
        e->n--;
        tabs(e->b, e->depth[e->n] + 1);
        buf_printf(e->b, "</%s>\n", e->tag[e->n]);
    }
}

/* Text: "    Key<padding>: " with the ':' at the column (no value: the line ends). */
static void key(smi_emit *e, int depth, const char *label, int value)
{
    buf_printf(e->b, "%*s%s", depth * 4, "", label);
    int used = depth * 4 + (int)strlen(label);
    if (value)
        buf_printf(e->b, "%*s: ", e->col > used ? e->col - used : 1, "");
    else
        buf_append(e->b, "\n", 1);
}

void smi_emit_head(smi_emit *e, const char *timestamp, const char *driver, const char *cuda, int ngpus)
{
    char n[16];
    snprintf(n, sizeof n, "%d", ngpus);
    if (e->xml) {
        buf_puts(e->b, "<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v13.dtd\">\n"
                       "<nvidia_smi_log>\n");
        smi_emit_value(e, 0, "Timestamp", "timestamp", timestamp);
        smi_emit_value(e, 0, "Driver Version", "driver_version", driver);
        smi_emit_value(e, 0, "CUDA Version", "cuda_version", cuda);
        smi_emit_value(e, 0, "Attached GPUs", "attached_gpus", n);
        return;
    }
    buf_puts(e->b, "\n==============NVSMI LOG==============\n\n");
    smi_emit_value(e, 0, "Timestamp", "timestamp", timestamp);
    smi_emit_value(e, 0, "Driver Version", "driver_version", driver);
    smi_emit_value(e, 0, "CUDA Version", "cuda_version", cuda);
    buf_append(e->b, "\n", 1);
    smi_emit_value(e, 0, "Attached GPUs", "attached_gpus", n);
}

void smi_emit_gpu_begin(smi_emit *e, const char *bus_id)
{
    if (e->xml) {
        buf_puts(e->b, "\t<gpu id=\"");
        put_text(e, bus_id);
        buf_puts(e->b, "\">\n");
    } else {
        buf_puts(e->b, "GPU ");
        put_text(e, bus_id);
        buf_append(e->b, "\n", 1);
    }
}

void smi_emit_gpu_end(smi_emit *e)
{
    if (e->xml) {
        close_to(e, 0);
        buf_puts(e->b, "\t</gpu>\n\n");
    }
}

void smi_emit_tail(smi_emit *e)
{
    buf_puts(e->b, e->xml ? "</nvidia_smi_log>\n" : "\n");
}

void smi_emit_section(smi_emit *e, int depth, const char *label, const char *tag)
{
    if (!e->xml) {
        key(e, depth, label, 0);
        return;
    }
    close_to(e, depth);
    tabs(e->b, depth + 1);
    buf_printf(e->b, "<%s>\n", tag);
    if (e->n < SMI_EMIT_DEPTH) {
        e->depth[e->n] = depth;
        e->tag[e->n++] = tag;
    }
}

void smi_emit_value(smi_emit *e, int depth, const char *label, const char *tag, const char *value)
{
    if (!e->xml) {
        key(e, depth, label, 1);
        put_text(e, value);
        buf_append(e->b, "\n", 1);
        return;
    }
    close_to(e, depth);
    const char *slash = strchr(tag, '/');
    int outer = slash ? (int)(slash - tag) : 0;
    tabs(e->b, depth + 1);
    if (slash) { /* "a/b": <a> <b>value</b> </a> */
        buf_printf(e->b, "<%.*s>\n", outer, tag);
        tabs(e->b, depth + 2);
    }
    const char *inner = slash ? slash + 1 : tag;
    buf_printf(e->b, "<%s>", inner);
    put_text(e, value);
    buf_printf(e->b, "</%s>\n", inner);
    if (slash) {
        tabs(e->b, depth + 1);
        buf_printf(e->b, "</%.*s>\n", outer, tag);
    }
}

void smi_emit_empty(smi_emit *e, int depth, const char *label, const char *tag, const char *text)
{
    if (!e->xml) {
        smi_emit_value(e, depth, label, tag, text);
        return;
    }
    close_to(e, depth);
    tabs(e->b, depth + 1);
    buf_printf(e->b, "<%s>\n", tag);
    tabs(e->b, depth + 1);
    buf_printf(e->b, "</%s>\n", tag);
}
