/* history_args.c - the history commands' shared options: range, file, GPUs (history_args.h). */
#include "history_args.h"
#include <stdio.h>
#include "history_locate.h"
#include "query.h"
#include "util.h"

int history_args_range(const gw_args *a, const history_args *h, double default_s, int64_t *from_us, int64_t *to_us)
{
    int since = gw_args_given(a, "--since"), from = gw_args_given(a, "--from");
    if (since && from)
        return gw_usage_error(a->cmd, "--since: give --since or --from, not both");
    *to_us = gw_args_given(a, "--to") ? h->to_us : (int64_t)gw_now_us();
    *from_us = since ? h->since_us : from ? h->from_us : *to_us - (int64_t)(default_s * 1e6);
    if (*from_us > *to_us)
        return gw_usage_error(a->cmd, "%s: the range is empty: the start is after the end (--to)",
                              since ? "--since" : "--from");
    return GW_ARGS_RUN;
}

store *history_args_open(const history_args *h, char *path, size_t n)
{
    history_locate(h->db, path, n);
    return history_open_read(path);
}

int history_args_gpus(const gw_args *a, const history_args *h, store *st, unsigned char *sel)
{
    static hq_gpu_names names[HQ_MAX_GPUS];
    gpu_ident ids[HQ_MAX_GPUS];
    char why[256];
    int n = h->gpus ? hq_gpu_names_read(st, names) : HQ_MAX_GPUS;
    if (n <= 0)
        n = HQ_MAX_GPUS; /* none recorded (nothing to show then), or a list that cannot be read to its end */
    for (int g = 0; g < n && h->gpus; g++)
        ids[g] = (gpu_ident){names[g].uuid, names[g].bus_id};
    if (gpu_list_select(h->gpus, n, h->gpus ? ids : NULL, sel, why, sizeof why) != 0)
        return gw_usage_error(a->cmd, "--gpu: %s", why);
    for (int g = n; g < HQ_MAX_GPUS; g++)
        sel[g] = 0;
    return GW_ARGS_RUN;
}
