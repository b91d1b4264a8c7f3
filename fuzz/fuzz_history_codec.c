/* fuzz_history_codec.c - history's decoders on bytes as a damaged file would hand them over: a chunk
 * bundle (bundle_read, bundle_locate, bundle_find) and its columns (codec_get_times,
 * codec_get_column), a process series (timeline then two columns), a roll-up row (rollup_decode),
 * and the ring's sample codec (scodec_get). The first byte picks the decoder. */
#include "bundle.h"
#include "codec.h"
#include "common.h"
#include "rollup.h"
#include "sample_codec.h"
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_quiet();
    return 0;
}

/* A timeline, then ncols value columns of as many slots, as a chunk's reader takes them. */
static void decode_series(const uint8_t *p, size_t len, const uint8_t *cp, size_t clen, int ncols)
{
    byte_cursor tr = {p, len, 0, 0};
    size_t cnt = codec_peek_count(&tr), n = 0;
    if (cnt > CODEC_MAX_COUNT)
        return;
    int64_t *t = malloc((cnt + 1) * sizeof *t);
    double *v = malloc((cnt + 1) * sizeof *v);
    uint8_t *pres = malloc(cnt + 1);
    if (t && v && pres && codec_get_times(&tr, t, cnt, &n) == 0) {
        byte_cursor cr = cp ? (byte_cursor){cp, clen, 0, 0} : tr;
        for (int i = 0; i < ncols && codec_get_column(&cr, v, pres, n) == 0; i++)
            ;
    }
    free(t);
    free(v);
    free(pres);
}

static void decode_bundle(const uint8_t *p, size_t len)
{
    bundle_col cols[BUNDLE_MAX_COLS];
    int n = bundle_read(p, len, cols, BUNDLE_MAX_COLS);
    const uint8_t *tp;
    size_t tlen;
    if (bundle_find(p, len, 0, &tp, &tlen) == 1)
        for (int i = 0; i < n; i++)
            if (cols[i].dbid != 0)
                decode_series(tp, tlen, cols[i].p, cols[i].len, 1);
    for (size_t head = 1; head <= len; head = head * 4 + 3) {
        size_t off, clen;
        bundle_locate(p, head, 0, &off, &clen);
        bundle_locate(p, head, 7, &off, &clen);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned pick = data[0] % 4;
    data++, size--;
    if (pick == 0) {
        decode_bundle(data, size);
    } else if (pick == 1) {
        decode_series(data, size, NULL, 0, 2);
    } else if (pick == 2) {
        rmin *r = NULL;
        size_t n = 0;
        if (rollup_decode(data, size, &r, &n) == 0)
            free(r);
    } else {
        gpu_sample state, s;
        scodec_reset(&state);
        size_t used;
        while (size && (used = scodec_get(data, size, &state, &s)) != 0 && used <= size) {
            data += used;
            size -= used;
        }
    }
    return 0;
}
