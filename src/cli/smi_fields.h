/* smi_fields.h - nvidia-smi --query-gpu fields that gpuwatch knows by name but does not read: they
 * resolve, print nvidia-smi's header and [N/A] (see smi_fields.c for which and why). */
#ifndef GPUWATCH_SMI_FIELDS_H
#define GPUWATCH_SMI_FIELDS_H

typedef struct smi_na_field {
    const char *name;
    const char *alias; /* one other accepted name (printed as name, as nvidia-smi does), or NULL */
    const char *unit;  /* of the csv header ("W", "%", "ms"), or NULL */
} smi_na_field;

extern const smi_na_field smi_na_fields[];
extern const int smi_na_count;

/* By name or alias; NULL when not one of them. */
const smi_na_field *smi_na_find(const char *name);

#endif
