/* cmd_events.c - `gpuwatch events`: the recorded events (XID, GPU lost/back, throttling, alerts). */
#include "history.h"
#include "history_commands.h"
#include "history_locate.h"
#include "timeparse.h"
#include "sampler.h"
#include "util.h"
#include <cjson/cJSON.h>
#include <getopt.h>
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

int cmd_events(int argc, char **argv)
{
    static const struct option opts[] = {{"db", required_argument, 0, 'd'},
                                         {"since", required_argument, 0, 's'},
                                         {"from", required_argument, 0, 'f'},
                                         {"to", required_argument, 0, 't'},
                                         {"gpu", required_argument, 0, 'g'},
                                         {"kind", required_argument, 0, 'k'},
                                         {"format", required_argument, 0, 'F'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *db = NULL, *since = NULL, *from = NULL, *to = NULL, *gpus = NULL, *kinds = NULL;
    int json = 0;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 's': since = optarg; break;
        case 'f': from = optarg; break;
        case 't': to = optarg; break;
        case 'g': gpus = optarg; break;
        case 'k': kinds = optarg; break;
        case 'F':
            if (strcmp(optarg, "json") == 0)
                json = 1;
            else if (strcmp(optarg, "table") == 0)
                json = 0;
            else {
                fprintf(stderr, "gpuwatch: --format is table or json\n");
                return GW_EXIT_USAGE;
            }
            break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "gpuwatch: events: bad option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return GW_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gpuwatch: events: unexpected '%s'\n", argv[optind]);
        return GW_EXIT_USAGE;
    }
    unsigned char sel[64];
    if (gpus && gw_parse_index_list(gpus, sel, 64) != 0) {
        fprintf(stderr, "gpuwatch: bad --gpu '%s'\n", gpus);
        return GW_EXIT_USAGE;
    }
    int64_t from_us, to_us;
    if (!since && !from)
        since = "24h";
    if (hcli_range(since, from, to, &from_us, &to_us) != 0)
        return GW_EXIT_USAGE;
    char path[4096];
    history_locate(db, path, sizeof path);
    store *st = history_open_read(path);
    if (!st)
        return 1;
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
        if (!kind || (gpus && (gpu < 0 || gpu >= 64 || !sel[gpu])) || !kind_wanted(kinds, kind))
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
