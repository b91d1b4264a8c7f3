/* bitio.h - LEB128 varints and an MSB-first bit writer/reader for the codec. */
#ifndef GPUWATCH_BITIO_H
#define GPUWATCH_BITIO_H

#include <stddef.h>
#include <stdint.h>
#include "buf.h"

/* The byte buffer is the core one (src/core/buf.h): buf_release/buf_clear/buf_append.
   These put codec values on top of it. */
void hb_put_byte(gw_buf *b, uint8_t v);
void hb_put_varint(gw_buf *b, uint64_t v);
void hb_put_u64(gw_buf *b, uint64_t v); /* little endian, 8 bytes */

/* Reading side: a cursor over a byte range; any read past the end sets bad. */
typedef struct hrd {
    const uint8_t *p;
    size_t len, pos;
    int bad;
} hrd;

uint8_t hrd_byte(hrd *r);
uint64_t hrd_varint(hrd *r);
uint64_t hrd_u64(hrd *r);

/* Bits, most significant first, appended to a gw_buf (whole bytes are flushed as they fill). */
typedef struct hbit_writer {
    gw_buf *out;
    uint64_t acc; /* pending bits, right aligned */
    int nacc;     /* how many (< 8 after each call) */
} hbit_writer;

void hbw_init(hbit_writer *w, gw_buf *out);
void hbw_put(hbit_writer *w, uint64_t v, int nbits); /* nbits 0..64 */
void hbw_flush(hbit_writer *w);                      /* pads the last byte with zeros */

typedef struct hbit_reader {
    hrd *in;
    uint64_t acc;
    int nacc;
} hbit_reader;

void hbr_init(hbit_reader *r, hrd *in);
uint64_t hbr_get(hbit_reader *r, int nbits); /* nbits 0..64; past the end: sets in->bad */
int hbr_bit(hbit_reader *r);
/* Counts 1 bits up to the 0 that ends them (read too) or up to limit of them. */
int hbr_unary(hbit_reader *r, int limit);
void hbr_done(hbit_reader *r); /* drops the rest of the partial byte (gives back bytes read ahead) */

static inline int bitlen64(uint64_t v)
{
    return v ? 64 - __builtin_clzll(v) : 0;
}

#endif
