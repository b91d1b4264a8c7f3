/* bitio.c - varints (on the core byte buffer) and bit-level writer/reader used by the chunk codec. */
#include "bitio.h"
#include "numcode.h"
#include <stdlib.h>
#include <string.h>

void bytes_put_u8(gw_buf *b, uint8_t v)
{
    if (b->len + 1 < b->cap || buf_reserve(b, 1) == 0) { /* room for the byte and the NUL */
        b->data[b->len++] = (char)v;
        b->data[b->len] = 0;
    }
}

void bytes_put_varint(gw_buf *b, uint64_t v)
{
    unsigned char tmp[10];
    buf_append(b, (const char *)tmp, num_put_varint(tmp, v));
}

void bytes_put_u64(gw_buf *b, uint64_t v)
{
    uint8_t tmp[8];
    for (int i = 0; i < 8; i++)
        tmp[i] = (uint8_t)(v >> (8 * i));
    buf_append(b, (const char *)tmp, 8);
}

uint8_t cursor_u8(byte_cursor *r)
{
    if (r->pos >= r->len) {
        r->bad = 1;
        return 0;
    }
    return r->p[r->pos++];
}

uint64_t cursor_varint(byte_cursor *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        uint8_t c = cursor_u8(r);
        if (r->bad)
            return 0;
        if (shift < 64)
            v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    r->bad = 1;
    return 0;
}

uint64_t cursor_u64(byte_cursor *r)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)cursor_u8(r) << (8 * i);
    return v;
}

void bit_writer_init(bit_writer *w, gw_buf *out)
{
    w->out = out;
    w->acc = 0;
    w->nacc = 0;
}

void bit_writer_put(bit_writer *w, uint64_t v, int nbits)
{
    while (nbits > 0) {
        int take = nbits > 32 ? 32 : nbits; /* keeps acc (< 8 bits pending) from overflowing */
        nbits -= take;
        uint64_t part = (v >> nbits) & ((1ull << take) - 1);
        w->acc = (w->acc << take) | part;
        w->nacc += take;
        while (w->nacc >= 8) {
            w->nacc -= 8;
            bytes_put_u8(w->out, (uint8_t)(w->acc >> w->nacc));
        }
        w->acc &= (1ull << w->nacc) - 1;
    }
}

void bit_writer_flush(bit_writer *w)
{
    if (w->nacc > 0)
        bytes_put_u8(w->out, (uint8_t)(w->acc << (8 - w->nacc)));
    w->acc = 0;
    w->nacc = 0;
}

void bit_reader_init(bit_reader *r, byte_cursor *in)
{
    r->in = in;
    r->acc = 0;
    r->nacc = 0;
}

uint64_t bit_reader_get(bit_reader *r, int nbits)
{
    if (nbits <= 0)
        return 0;
    if (nbits > 56) { /* keeps the refill below within 64 bits */
        uint64_t hi = bit_reader_get(r, nbits - 32);
        return (hi << 32) | bit_reader_get(r, 32);
    }
    while (r->nacc < nbits) { /* whole bytes, only as many as needed */
        if (r->in->pos >= r->in->len) {
            r->in->bad = 1;
            return 0;
        }
        r->acc = (r->acc << 8) | r->in->p[r->in->pos++];
        r->nacc += 8;
    }
    r->nacc -= nbits;
    return (r->acc >> r->nacc) & ((1ull << nbits) - 1);
}

int bit_reader_bit(bit_reader *r)
{
    return (int)bit_reader_get(r, 1);
}

int bit_reader_unary(bit_reader *r, int limit)
{
    int q = 0;
    while (q < limit) {
        while (r->nacc <= 48 && r->in->pos < r->in->len) { /* read ahead; bit_reader_done gives whole bytes back */
            r->acc = (r->acc << 8) | r->in->p[r->in->pos++];
            r->nacc += 8;
        }
        if (r->nacc == 0) {
            r->in->bad = 1;
            return q;
        }
        uint64_t bits = r->acc << (64 - r->nacc); /* the unread bits, first at the top */
        int ones = __builtin_clzll(~bits);        /* at most nacc: below them ~bits is all ones */
        if (q + ones >= limit) {
            r->nacc -= limit - q;
            return limit;
        }
        if (ones < r->nacc) {
            r->nacc -= ones + 1; /* and the 0 that ends them */
            return q + ones;
        }
        q += ones;
        r->nacc = 0;
    }
    return q;
}

void bit_reader_done(bit_reader *r)
{
    r->in->pos -= (size_t)(r->nacc / 8); /* bytes read ahead and not used */
    r->nacc = 0;
}
