/* spill.c - the older part of an open chunk group that no checkpoint piece holds yet (while the
 * file cannot be written), kept coded instead of raw doubles: per column and HIST_RAW_SLOTS slots, a presence bitmap then per present value a head byte: unchanged (0);
 * the change of its integer at a scale (numcode.h: low nibble 9 + scale, then a zigzag varint);
 * or else its XOR with the previous value as significant bytes (low nibble: their count, high:
 * the zero bytes below them). Byte-oriented, so coding costs little on the sampler thread; decoded
 * whole only to encode a chunk or checkpoint (times use the history codec). */
#include "hist_internal.h"
#include "codec.h"
#include "numcode.h"
#include <stdlib.h>
#include <string.h>

#define SEG_MAX (8 + HIST_RAW_SLOTS * 11)

/* Room for n more bytes in z, growing by a quarter (not buf_reserve's doubling: these buffers live
 * as long as a chunk is open, so slack is memory held). 0 or -1. */
static int reserve(gw_buf *z, size_t n)
{
    if (z->oom)
        return -1;
    if (z->len + n + 1 <= z->cap)
        return 0;
    size_t cap = z->len + n + 1 + (z->len + n) / 4;
    char *d = realloc(z->data, cap);
    if (!d) {
        z->oom = 1;
        return -1;
    }
    z->data = d;
    z->cap = cap;
    return 0;
}

/* Appends one segment of HIST_RAW_SLOTS slots to z. */
static void put_segment(gw_buf *z, const double *v, const uint8_t *pres)
{
    unsigned char seg[SEG_MAX];
    uint64_t map = 0, prev = 0;
    size_t n = 8;
    for (int k = 0; k < HIST_RAW_SLOTS; k++) {
        if (!pres[k])
            continue;
        map |= 1ull << k;
        uint64_t cur = num_bits(v[k]), x = cur ^ prev;
        int64_t kp, kc;
        int sc = x ? num_pick(num_double(prev), v[k], &kp, &kc) : -1;
        prev = cur;
        if (!x) {
            seg[n++] = 0;
            continue;
        }
        if (sc >= 0) {
            seg[n++] = (unsigned char)(9 + sc);
            n += num_put_varint(seg + n, num_zigzag(kc - kp));
            continue;
        }
        int tz = __builtin_ctzll(x) / 8, lz = __builtin_clzll(x) / 8, nb = 8 - tz - lz;
        seg[n++] = (unsigned char)(tz << 4 | nb);
        x >>= 8 * tz;
        for (int b = 0; b < nb; b++, x >>= 8)
            seg[n++] = (unsigned char)x;
    }
    for (int b = 0; b < 8; b++)
        seg[b] = (unsigned char)(map >> (8 * b));
    if (reserve(z, n) == 0)
        buf_append(z, (const char *)seg, n);
}

/* Reads one segment at z[*pos]; returns -1 when the data is cut short. */
static int get_segment(const gw_buf *z, size_t *pos, double *v, uint8_t *pres)
{
    const unsigned char *p = (const unsigned char *)z->data;
    if (*pos + 8 > z->len)
        return -1;
    uint64_t map = 0, prev = 0;
    for (int b = 0; b < 8; b++)
        map |= (uint64_t)p[(*pos)++] << (8 * b);
    for (int k = 0; k < HIST_RAW_SLOTS; k++) {
        pres[k] = (uint8_t)((map >> k) & 1);
        v[k] = 0;
        if (!pres[k])
            continue;
        if (*pos >= z->len)
            return -1;
        unsigned h = p[(*pos)++];
        if ((h & 15) >= 9) {
            int sc = (int)(h & 15) - 9;
            int64_t kp;
            uint64_t u;
            if (num_get_varint(p, z->len, pos, &u) != 0)
                return -1;
            if (sc >= NUM_SCALES || num_scaled(num_double(prev), sc, &kp) != 0)
                return -1;
            v[k] = (double)(kp + num_unzigzag(u)) / num_scale(sc);
            prev = num_bits(v[k]);
            continue;
        }
        int tz = (int)(h >> 4), nb = (int)(h & 15);
        if (nb > 8 || tz + nb > 8 || *pos + (size_t)nb > z->len)
            return -1;
        uint64_t x = 0;
        for (int b = 0; b < nb; b++)
            x |= (uint64_t)p[(*pos)++] << (8 * b);
        prev ^= x << (8 * tz);
        v[k] = num_double(prev);
    }
    return 0;
}

int hist_spill(hgroup *grp)
{
    size_t left = grp->n - grp->zn - HIST_RAW_SLOTS; /* raw slots after the first HIST_RAW_SLOTS */
    codec_put_times(&grp->zt, grp->t, HIST_RAW_SLOTS);
    memmove(grp->t, grp->t + HIST_RAW_SLOTS, left * sizeof *grp->t);
    int oom = grp->zt.oom;
    for (int m = M_STR_END; m < M_COUNT; m++) {
        hcol *c = &grp->col[m];
        if (c->state != HCOL_ARRAY)
            continue;
        put_segment(&c->z, c->v, c->pres);
        memmove(c->v, c->v + HIST_RAW_SLOTS, left * sizeof *c->v);
        memmove(c->pres, c->pres + HIST_RAW_SLOTS, left);
        oom |= c->z.oom;
    }
    grp->zn += HIST_RAW_SLOTS;
    return oom ? -1 : 0;
}

int hist_spill_const(const hgroup *grp, hcol *c)
{
    double v[HIST_RAW_SLOTS];
    uint8_t pres[HIST_RAW_SLOTS];
    buf_clear(&c->z);
    for (size_t s0 = grp->base; s0 < grp->zn; s0 += HIST_RAW_SLOTS) {
        for (size_t k = 0; k < HIST_RAW_SLOTS; k++) {
            size_t slot = s0 + k;
            pres[k] = c->state == HCOL_CONST && slot >= c->from && slot < c->end;
            v[k] = pres[k] ? c->cval : 0;
        }
        put_segment(&c->z, v, pres);
    }
    return c->z.oom ? -1 : 0;
}

int hist_unspill_times(const hgroup *grp, int64_t *t)
{
    byte_cursor in = {(const uint8_t *)grp->zt.data, grp->zt.len, 0, 0};
    for (size_t s0 = grp->base; s0 < grp->zn; s0 += HIST_RAW_SLOTS) {
        size_t got;
        if (codec_get_times(&in, t + s0, HIST_RAW_SLOTS, &got) != 0 || got != HIST_RAW_SLOTS)
            return -1;
    }
    memcpy(t + grp->zn, grp->t, (grp->n - grp->zn) * sizeof *t);
    return 0;
}

int hist_unspill_col(const hgroup *grp, const hcol *c, double *v, uint8_t *pres)
{
    size_t pos = 0;
    for (size_t s0 = grp->base; s0 < grp->zn; s0 += HIST_RAW_SLOTS)
        if (get_segment(&c->z, &pos, v + s0, pres + s0) != 0)
            return -1;
    size_t raw = grp->n - grp->zn;
    memcpy(v + grp->zn, c->v, raw * sizeof *v);
    memcpy(pres + grp->zn, c->pres, raw);
    return 0;
}
