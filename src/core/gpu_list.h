/* gpu_list.h - a list of GPUs as every command takes it (--id, -i, --gpu, --only, --exclude): indexes
 * and ranges ("0,2,5-7"), UUIDs and PCI bus ids ("00000000:3B:00.0", or short "3B:00.0" /
 * "0000:3B:00.0", any case), comma separated; checked against the GPUs there are (a machine's, a
 * history file's, a scenario's), with one message for each mistake: "no GPU '99' (8 GPUs: 0-7)". */
#ifndef GPUWATCH_GPU_LIST_H
#define GPUWATCH_GPU_LIST_H

#include <stddef.h>
#include "args.h"

/* What names a GPU besides its index; NULL or "" when unknown. */
typedef struct gpu_ident {
    const char *uuid, *bus_id;
} gpu_ident;

/* Sets sel[0..n) to the GPUs list names among n GPUs (ids[i] names GPU i; ids may be NULL: indexes
 * only). list NULL selects all. Returns 0, or -1 with why filled: "no GPU '99' (8 GPUs: 0-7)",
 * "'x' is not a GPU index, range, UUID or PCI bus id", "empty GPU list". */
int gpu_list_select(const char *list, int n, const gpu_ident *ids, unsigned char *sel, char *why, size_t whylen);

/* The parser's check of a GPU list option (a GW_OPT_CUSTOM row storing const char *): its shape
 * alone, before the GPUs are known; gpu_list_select checks it against them. */
int gpu_list_check(const gw_opt *opt, const char *value, void *out, char *why, size_t n);

#endif
