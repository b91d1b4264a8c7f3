/* bitio.c - byte buffer, varints and bit-level writer/reader used by the chunk codec. */
#include "history/bitio.h"
#include <stdlib.h>
#include <string.h>

void hb_free(hbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void hb_reset(hbuf *b) { b->len = 0; b->oom = 0; }

static int hb_reserve(hbuf *b, size_t extra)
{
    if (b->oom)
        return -1;
    if (b->len + extra <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) { b->oom = 1; return -1; }
    b->p = p;
    b->cap = cap;
    return 0;
}

void hb_put(hbuf *b, const void *src, size_t n)
{
    if (n == 0 || hb_reserve(b, n) != 0)
        return;
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

void hb_put_byte(hbuf *b, uint8_t v)
{
    if (b->len < b->cap) { b->p[b->len++] = v; return; }
    if (hb_reserve(b, 1) == 0)
        b->p[b->len++] = v;
}

void hb_put_varint(hbuf *b, uint64_t v)
{
    uint8_t tmp[10];
    int n = 0;
    do {
        tmp[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) tmp[n] |= 0x80;
        n++;
    } while (v);
    hb_put(b, tmp, (size_t)n);
}

void hb_put_u64(hbuf *b, uint64_t v)
{
    uint8_t tmp[8];
    for (int i = 0; i < 8; i++)
        tmp[i] = (uint8_t)(v >> (8 * i));
    hb_put(b, tmp, 8);
}

uint8_t hrd_byte(hrd *r)
{
    if (r->pos >= r->len) { r->bad = 1; return 0; }
    return r->p[r->pos++];
}

uint64_t hrd_varint(hrd *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        uint8_t c = hrd_byte(r);
        if (r->bad) return 0;
        if (shift < 64) v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) return v;
    }
    r->bad = 1;
    return 0;
}

uint64_t hrd_u64(hrd *r)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)hrd_byte(r) << (8 * i);
    return v;
}

void hbw_init(hbit_writer *w, hbuf *out)
{
    w->out = out;
    w->acc = 0;
    w->nacc = 0;
}

void hbw_put(hbit_writer *w, uint64_t v, int nbits)
{
    while (nbits > 0) {
        int take = nbits > 32 ? 32 : nbits;   /* keeps acc (< 8 bits pending) from overflowing */
        nbits -= take;
        uint64_t part = (v >> nbits) & ((1ull << take) - 1);
        w->acc = (w->acc << take) | part;
        w->nacc += take;
        while (w->nacc >= 8) {
            w->nacc -= 8;
            hb_put_byte(w->out, (uint8_t)(w->acc >> w->nacc));
        }
        w->acc &= (1ull << w->nacc) - 1;
    }
}

void hbw_flush(hbit_writer *w)
{
    if (w->nacc > 0)
        hb_put_byte(w->out, (uint8_t)(w->acc << (8 - w->nacc)));
    w->acc = 0;
    w->nacc = 0;
}

void hbr_init(hbit_reader *r, hrd *in)
{
    r->in = in;
    r->acc = 0;
    r->nacc = 0;
}

uint64_t hbr_get(hbit_reader *r, int nbits)
{
    uint64_t v = 0;
    while (nbits > 0) {
        if (r->nacc == 0) {
            r->acc = hrd_byte(r->in);
            if (r->in->bad) return 0;
            r->nacc = 8;
        }
        int take = nbits < r->nacc ? nbits : r->nacc;
        r->nacc -= take;
        nbits -= take;
        v = (v << take) | ((r->acc >> r->nacc) & ((1ull << take) - 1));
    }
    return v;
}

int hbr_bit(hbit_reader *r) { return (int)hbr_get(r, 1); }

void hbr_done(hbit_reader *r) { r->nacc = 0; }
