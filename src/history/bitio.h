/* bitio.h - LEB128 varints and an MSB-first bit writer/reader for the codec. */
#ifndef GPUWATCH_BITIO_H
#define GPUWATCH_BITIO_H

#include <stddef.h>
#include <stdint.h>
#include "buf.h"

/* The byte buffer is base's (buf.h): buf_release/buf_clear/buf_append. These put codec values on top
   of it. */
void bytes_put_u8(gw_buf *b, uint8_t v);
void bytes_put_varint(gw_buf *b, uint64_t v);
void bytes_put_u64(gw_buf *b, uint64_t v); /* little endian, 8 bytes */

/* Reading side: a cursor over a byte range; any read past the end sets bad. */
typedef struct byte_cursor {
    const uint8_t *p;
    size_t len, pos;
    int bad;
} byte_cursor;

uint8_t cursor_u8(byte_cursor *r);
uint64_t cursor_varint(byte_cursor *r);
uint64_t cursor_u64(byte_cursor *r);

/* Bits, most significant first, appended to a gw_buf (whole bytes are flushed as they fill). */
typedef struct bit_writer {
    gw_buf *out;
    uint64_t acc; /* pending bits, right aligned */
    int nacc;     /* how many (< 8 after each call) */
} bit_writer;

void bit_writer_init(bit_writer *w, gw_buf *out);
void bit_writer_put(bit_writer *w, uint64_t v, int nbits); /* nbits 0..64 */
void bit_writer_flush(bit_writer *w);                      /* pads the last byte with zeros */

typedef struct bit_reader {
    byte_cursor *in;
    uint64_t acc;
    int nacc;
} bit_reader;

void bit_reader_init(bit_reader *r, byte_cursor *in);
uint64_t bit_reader_get(bit_reader *r, int nbits); /* nbits 0..64; past the end: sets in->bad */
int bit_reader_bit(bit_reader *r);
/* Counts 1 bits up to the 0 that ends them (read too) or up to limit of them. */
int bit_reader_unary(bit_reader *r, int limit);
void bit_reader_done(bit_reader *r); /* drops the rest of the partial byte (gives back bytes read ahead) */

static inline int bitlen64(uint64_t v)
{
    return v ? 64 - __builtin_clzll(v) : 0;
}

#endif
