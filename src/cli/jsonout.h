/* jsonout.h - prints a JSON array with one compact object per line (readable, and easy for jq/grep). */
#ifndef GPUWATCH_JSONOUT_H
#define GPUWATCH_JSONOUT_H

#include <stdio.h>
#include <cjson/cJSON.h>

/* Prints arr as "[\n{...},\n{...}\n]\n". Returns 0, -1 when out of memory. */
int json_print_array(FILE *f, const cJSON *arr);

#endif
