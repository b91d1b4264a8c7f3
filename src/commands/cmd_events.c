/* cmd_events.c - `gpuwatch events`: the recorded events (XID, GPU lost/back, throttling, alerts). */
#include "history.h"
#include "history_commands.h"
#include "history_args.h"
#include "query.h"
#include "timeparse.h"
#include "sampler.h"
#include "util.h"
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuwatch events [--db PATH] [--since 24h | --from T --to T] [--gpu LIST] [--kind K[,K...]]\n"
               "                       [--format table|json]\n\n"
               "Events recorded by the agent: xid, gpu_lost, gpu_back, throttle_start, throttle_end, alert.\n"
               "  --db PATH    history file (as gpuwatch history)\n"
               "  --since T    start (default 24h); --from T --to T a range (RFC 3339, Unix seconds, 2h, -30m)\n"
               "  --gpu LIST   GPU indexes: 0,2,5-7 (default all)\n"
               "  --kind LIST  only these kinds\n"
               "  --format F   table (default) or json\n");
}

static int kind_wanted(const char *kinds, const char *k)
{
    if (!kinds)
        return 1;
    size_t n = strlen(k);
    for (const char *p = kinds; (p = strstr(p, k)); p += n)
        if ((p == kinds || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
            return 1;
    return 0;
}

typedef struct events_opts {
    history_args h;
    const char *kinds;
    int json;
} events_opts;

static const gw_opt rows[] = {
    HISTORY_ARGS_ROWS(events_opts, h),
    {"--kind", GW_OPT_TEXT, .off = offsetof(events_opts, kinds)},
    {"--format", GW_OPT_CHOICE, .off = offsetof(events_opts, json), .choices = "table,json"},
    {0},
};

static const gw_cmd events_cmd = {.name = "events", .opts = rows, .usage_fn = usage};

int cmd_events(int argc, char **argv)
{
    events_opts o = {0};
    gw_args a;
    int rc = gw_args_parse(&events_cmd, argc, argv, &o, &a);
    if (rc != GW_ARGS_RUN)
        return gw_args_exit(rc);
    int json = o.json;
    int64_t from_us, to_us;
    if (history_args_range(&a, &o.h, 86400, &from_us, &to_us) != GW_ARGS_RUN)
        return GW_EXIT_USAGE;
    char path[4096];
    store *st = history_args_open(&o.h, path, sizeof path);
    if (!st)
        return 1;
    unsigned char sel[HQ_MAX_GPUS];
    if (history_args_gpus(&a, &o.h, st, sel) != GW_ARGS_RUN) {
        store_close(st);
        return GW_EXIT_USAGE;
    }
    const char *gpus = o.h.gpus, *kinds = o.kinds;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(store_db(st), "SELECT t, gpu, kind, detail FROM events WHERE t>=? AND t<=? ORDER BY t, id",
                           -1, &q, NULL) != SQLITE_OK) {
        fprintf(stderr, "gpuwatch: cannot read events: %s\n", sqlite3_errmsg(store_db(st)));
        store_close(st);
        return 1;
    }
    sqlite3_bind_int64(q, 1, from_us);
    sqlite3_bind_int64(q, 2, to_us);
    cJSON *arr = json ? cJSON_CreateArray() : NULL;
    int count = 0;
    if (!json)
        printf("%-24s %4s  %-15s %s\n", "time", "gpu", "kind", "detail");
    while (sqlite3_step(q) == SQLITE_ROW) {
        int64_t t = sqlite3_column_int64(q, 0);
        int gpu = sqlite3_column_int(q, 1);
        const char *kind = (const char *)sqlite3_column_text(q, 2), *detail = (const char *)sqlite3_column_text(q, 3);
        if (!kind || (gpus && (gpu < 0 || gpu >= HQ_MAX_GPUS || !sel[gpu])) || !kind_wanted(kinds, kind))
            continue;
        char tb[40];
        tp_format_rfc3339(t, tb, sizeof tb);
        count++;
        if (json) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "time", tb);
            cJSON_AddNumberToObject(e, "unix_seconds", (double)t / 1e6);
            cJSON_AddNumberToObject(e, "gpu", gpu);
            cJSON_AddStringToObject(e, "kind", kind);
            cJSON_AddStringToObject(e, "detail", detail ? detail : "");
            cJSON_AddItemToArray(arr, e);
        } else {
            char g[16] = "-";
            if (gpu >= 0)
                snprintf(g, sizeof g, "%d", gpu);
            printf("%-24s %4s  %-15s %s\n", tb, g, kind, detail ? detail : "");
        }
    }
    sqlite3_finalize(q);
    store_close(st);
    if (json) {
        char *text = cJSON_Print(arr);
        if (text)
            puts(text);
        free(text);
        cJSON_Delete(arr);
    } else if (!count) {
        printf("(no events in this range)\n");
    }
    return 0;
}

void events_options(const char *sub, gw_opt_visit *fn, void *ctx)
{
    gw_args_each_option(&events_cmd, sub, fn, ctx);
}
