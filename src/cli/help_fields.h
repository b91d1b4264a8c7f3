/* help_fields.h - `gpuwatch query --help-fields`: the catalog's fields, units and descriptions. */
#ifndef GPUWATCH_HELP_FIELDS_H
#define GPUWATCH_HELP_FIELDS_H

#include <stdio.h>

/* Prints every field, grouped by its first name component (temperature, memory, ...). */
void help_fields_print(FILE *f);
/* The same fields in nvidia-smi --help-query-gpu's layout: "field" or "alias", then the description. */
void help_fields_print_smi(FILE *f);

#endif
