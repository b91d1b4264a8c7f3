/* sample_codec.c - lossless delta coding of gpu_samples (see sample_codec.h).
 *
 * One coded sample: a flags byte (status changed, presence changed), zigzag varint of the time
 * delta, [varint status], [each presence word XOR the previous, as varints], the number of changed
 * values, then per changed value varint(skip * 16 + mode) and one varint, where skip counts the
 * unchanged present metrics before it. Mode 0-7: the varint is x >> 8*mode, x the XOR of the
 * double's bits with the metric's last present value (mode: its trailing zero bytes). Mode 8 + s:
 * both values are integers at scale s (numcode.h) and the varint is the zigzag of their change.
 * A value that did not change costs nothing; NaN and every other bit pattern round-trip exactly. */
#include "sample_codec.h"
#include <string.h>
#include "numcode.h"

#define F_STATUS 1
#define F_PRESENT 2
#define NWORDS ((int)(sizeof(metric_set) / sizeof(uint64_t)))

void scodec_reset(gpu_sample *state)
{
    memset(state, 0, sizeof *state);
}

size_t scodec_put(unsigned char *out, gpu_sample *state, const gpu_sample *s)
{
    size_t n = 1;
    unsigned char flags = 0;
    int64_t dt = (int64_t)(s->t_us - state->t_us);
    n += num_put_varint(out + n, ((uint64_t)dt << 1) ^ (uint64_t)(dt >> 63));
    if (s->status != state->status) {
        flags |= F_STATUS;
        n += num_put_varint(out + n, (uint32_t)s->status);
    }
    if (memcmp(&s->present, &state->present, sizeof s->present) != 0) {
        flags |= F_PRESENT;
        for (int w = 0; w < NWORDS; w++)
            n += num_put_varint(out + n, s->present.w[w] ^ state->present.w[w]);
    }
    out[0] = flags;
    /* Changed values go to a scratch area first: their count is written before them. */
    unsigned char vals[M_COUNT * 13];
    size_t nv = 0;
    unsigned changed = 0, skip = 0;
    for (int id = 0; id < M_COUNT; id++) {
        if (!sample_has(s, (metric_id)id))
            continue;
        uint64_t x = num_bits(s->v[id]) ^ num_bits(state->v[id]);
        if (!x) {
            skip++;
            continue;
        }
        int64_t kp, kc;
        int sc = num_pick(state->v[id], s->v[id], &kp, &kc);
        if (sc >= 0) {
            nv += num_put_varint(vals + nv, (uint64_t)skip * 16 + 8 + (uint64_t)sc);
            nv += num_put_varint(vals + nv, num_zigzag(kc - kp));
        } else {
            int k = 0;
            while (!(x & 0xff)) {
                x >>= 8;
                k++;
            }
            nv += num_put_varint(vals + nv, (uint64_t)skip * 16 + (uint64_t)k);
            nv += num_put_varint(vals + nv, x);
        }
        changed++;
        skip = 0;
        state->v[id] = s->v[id];
    }
    n += num_put_varint(out + n, changed);
    memcpy(out + n, vals, nv);
    n += nv;
    state->t_us = s->t_us;
    state->status = s->status;
    state->present = s->present;
    return n;
}

size_t scodec_get(const unsigned char *in, size_t len, gpu_sample *state, gpu_sample *out)
{
    size_t pos = 1;
    uint64_t v;
    if (len < 1)
        return 0;
    unsigned char flags = in[0];
    if (num_get_varint(in, len, &pos, &v))
        return 0;
    state->t_us += (uint64_t)(int64_t)((v >> 1) ^ (~(v & 1) + 1));
    if (flags & F_STATUS) {
        if (num_get_varint(in, len, &pos, &v))
            return 0;
        state->status = (gpu_status)v;
    }
    if (flags & F_PRESENT)
        for (int w = 0; w < NWORDS; w++) {
            if (num_get_varint(in, len, &pos, &v))
                return 0;
            state->present.w[w] ^= v;
        }
    uint64_t changed;
    if (num_get_varint(in, len, &pos, &changed))
        return 0;
    int id = -1;
    for (uint64_t c = 0; c < changed; c++) {
        uint64_t head, x;
        if (num_get_varint(in, len, &pos, &head) || num_get_varint(in, len, &pos, &x))
            return 0;
        /* Move to the next present metric, then past `skip` more. */
        for (uint64_t left = head / 16 + 1; left; left--) {
            do
                id++;
            while (id < M_COUNT && !sample_has(state, (metric_id)id));
            if (id >= M_COUNT)
                return 0;
        }
        unsigned mode = (unsigned)(head % 16);
        if (mode < 8) {
            state->v[id] = num_double(num_bits(state->v[id]) ^ (x << (8 * mode)));
        } else {
            int64_t kp;
            if (mode - 8 >= NUM_SCALES || num_scaled(state->v[id], (int)mode - 8, &kp) != 0)
                return 0;
            state->v[id] = (double)(kp + num_unzigzag(x)) / num_scale((int)mode - 8);
        }
    }
    out->t_us = state->t_us;
    out->status = state->status;
    out->present = state->present;
    for (int i = 0; i < M_COUNT; i++)
        out->v[i] = sample_has(state, (metric_id)i) ? state->v[i] : 0;
    return pos;
}
