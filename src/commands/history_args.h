/* history_args.h - the options the history commands share (history, events, history export, jobs
 * and diagnose read the same file): the file (--db), the range (--since | --from --to) and the GPUs
 * (--gpu), each checked as the one parser checks values (args.h), and the GPUs against those the
 * file recorded. */
#ifndef GPUWATCH_HISTORY_ARGS_H
#define GPUWATCH_HISTORY_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include "args.h"
#include "gpu_list.h"
#include "store.h"

typedef struct history_args {
    const char *db;   /* --db PATH, NULL: history_locate's choice */
    const char *gpus; /* --gpu LIST, NULL: all */
    int64_t since_us, from_us, to_us;
} history_args;

/* The rows of these options in a command's table, for the history_args at member of type. */
#define HISTORY_ARGS_ROWS(type, member)                                                     \
    {"--db", GW_OPT_PATH, .off = offsetof(type, member.db)},                                \
        {"--since", GW_OPT_TIME, .off = offsetof(type, member.since_us)},                   \
        {"--from", GW_OPT_TIME, .off = offsetof(type, member.from_us)},                     \
        {"--to", GW_OPT_TIME, .off = offsetof(type, member.to_us)},                         \
    {                                                                                       \
        "--gpu", GW_OPT_CUSTOM, .off = offsetof(type, member.gpus), .check = gpu_list_check \
    }

/* The range of --since or --from / --to (each defaulting: the last default_s seconds, up to now).
 * GW_ARGS_RUN, or GW_ARGS_USAGE after one line (--since with --from, a start after the end). */
int history_args_range(const gw_args *a, const history_args *h, double default_s, int64_t *from_us, int64_t *to_us);

/* The history file of --db (history_locate.h), opened read-only; NULL after a message on stderr.
 * path receives its name (n bytes). */
store *history_args_open(const history_args *h, char *path, size_t n);

/* The GPUs of --gpu among those the file recorded, into sel[HQ_MAX_GPUS] (all when --gpu was not
 * given). GW_ARGS_RUN, or GW_ARGS_USAGE after "gpuwatch CMD: --gpu: no GPU '99' (8 GPUs: 0-7)". */
int history_args_gpus(const gw_args *a, const history_args *h, store *st, unsigned char *sel);

#endif
