/* smi_emit.h - the writer of the -q report, in nvidia-smi's text layout (sections indented four
 * spaces a level, the ':' of every value at one column) or as its XML (-x: the element of each
 * line nested as the sections are). The report says what to write; this says how. */
#ifndef GPUWATCH_SMI_EMIT_H
#define GPUWATCH_SMI_EMIT_H

#include "buf.h"

#define SMI_EMIT_DEPTH 8

typedef struct smi_emit {
    gw_buf *b;
    int xml;
    int col;                         /* text: the ':' column (55; 42 in a process's lines) */
    int n;                           /* XML: the open sections */
    int depth[SMI_EMIT_DEPTH];       /* ... their depths */
    const char *tag[SMI_EMIT_DEPTH]; /* ... their elements */
} smi_emit;

void smi_emit_init(smi_emit *e, gw_buf *b, int xml);
/* The document's head: the banner (text) or the XML declaration, DOCTYPE and root; then the
 * timestamp, versions and the number of GPUs. */
void smi_emit_head(smi_emit *e, const char *timestamp, const char *driver, const char *cuda, int ngpus);
/* One GPU: "GPU <bus id>" (text) or <gpu id="..."> ... </gpu>. */
void smi_emit_gpu_begin(smi_emit *e, const char *bus_id);
void smi_emit_gpu_end(smi_emit *e);
void smi_emit_tail(smi_emit *e);
/* A section at depth (1: under the GPU), holding the lines that follow at deeper depths. */
void smi_emit_section(smi_emit *e, int depth, const char *label, const char *tag);
/* A value line. tag "a/b" is an element a holding b (XML only). value is outside text: cleaned
 * and, in XML, escaped. */
void smi_emit_value(smi_emit *e, int depth, const char *label, const char *tag, const char *value);
/* A section with no lines, said as one value ("Processes : None"; XML: an empty element). */
void smi_emit_empty(smi_emit *e, int depth, const char *label, const char *tag, const char *text);

#endif
