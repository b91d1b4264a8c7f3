/* fuzz_history_file.c - a real history file with bytes changed, opened read-only as the commands
 * open it: range queries from raw chunks, roll-ups and both (hq_run), the recorded range handed back
 * (history_read_range: samples, processes, events) and `gpuwatch history check`. The file is built
 * once (tests/support/hfile.c: two GPUs, 25 minutes, killed while recording); the input is a list
 * of patches, each 4 bytes of offset (little-endian, modulo the file size), one byte of length and
 * that many bytes written there. */
#include "common.h"
#include "hfile.h"
#include "history.h"
#include "history_check.h"
#include "history_read.h"
#include "query.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0 1764673200000000ll
#define SECONDS 1500

static uint8_t *base;
static size_t base_len;
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_quiet();
    devnull = fopen("/dev/null", "w");
    char path[4200];
    snprintf(path, sizeof path, "%s/base.db", fuzz_dir());
    FILE *f = hfile_build(path, 2, T0, SECONDS) == 0 ? fopen(path, "rb") : NULL;
    if (!f) {
        fprintf(stderr, "fuzz_history_file: cannot build the history file\n");
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    base_len = (size_t)ftell(f);
    rewind(f);
    base = malloc(base_len);
    if (!base || fread(base, 1, base_len, f) != base_len)
        exit(1);
    fclose(f);
    unlink(path);
    return 0;
}

static void on_sample(void *ctx, int gpu, const gpu_info *info, const gpu_sample *s)
{
    (void)ctx, (void)gpu, (void)info, (void)s;
}

static void queries(store *st)
{
    static const metric_id metrics[] = {M_POWER_DRAW, M_UTIL_GPU, M_TEMP_GPU};
    for (int i = 0; i < 4; i++) {
        hq_request rq = {.metrics = metrics,
                         .nmetrics = 3,
                         .from_us = T0 - (i == 3 ? 3600ll * 1000000 : 0),
                         .to_us = T0 + SECONDS * 1000000ll,
                         .step_us = i == 0   ? 0
                                    : i == 1 ? 10000000
                                             : 60000000,
                         .agg = (hq_agg)i,
                         .source = i == 0   ? HQ_RAW
                                   : i == 2 ? HQ_ROLLUP
                                            : HQ_AUTO};
        hq_result res;
        char err[300];
        if (hq_run(st, &rq, &res, err, sizeof err) == 0)
            hq_free(&res);
    }
    hq_request rq = {
        .metrics = metrics + 1, .nmetrics = 1, .pid = 4242, .from_us = T0, .to_us = T0 + SECONDS * 1000000ll};
    hq_result res;
    char err[300];
    if (hq_run(st, &rq, &res, err, sizeof err) == 0)
        hq_free(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *file = malloc(base_len);
    if (!file)
        return 0;
    memcpy(file, base, base_len);
    while (size >= 5) {
        size_t off = (data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 | (size_t)data[3] << 24) % base_len;
        size_t len = data[4];
        data += 5, size -= 5;
        if (len > size)
            len = size;
        if (len > base_len - off)
            len = base_len - off;
        memcpy(file + off, data, len);
        data += len, size -= len;
    }
    const char *path = fuzz_file("h.db", file, base_len);
    free(file);
    if (!path)
        return 0;
    char side[4200];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    char err[512];
    store *st = store_open(path, 1, err, sizeof err);
    if (st) {
        queries(st);
        store_close(st);
    }
    history_reader r = {.on_sample = on_sample};
    unsigned char sel[64] = {1}; /* every metric of GPU 0, across the last seal: sealed and open */
    history_read_range(path, T0 + 1190 * 1000000ll, T0 + 1210 * 1000000ll, sel, &r, err, sizeof err);
    history_check(path, devnull);
    return 0;
}
