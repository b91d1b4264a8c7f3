/* bitio.h - growable byte buffer, LEB128 varints and an MSB-first bit writer/reader for the codec. */
#ifndef GPUWATCH_BITIO_H
#define GPUWATCH_BITIO_H

#include <stddef.h>
#include <stdint.h>

typedef struct hist_buf {
    uint8_t *p;
    size_t len, cap;
    int oom;                 /* set when an allocation failed; the content is then incomplete */
} hist_buf;

void hbuf_free(hist_buf *b);
void hbuf_reset(hist_buf *b);
void hbuf_put(hist_buf *b, const void *src, size_t n);
void hbuf_put_byte(hist_buf *b, uint8_t v);
void hbuf_put_varint(hist_buf *b, uint64_t v);
void hbuf_put_u64(hist_buf *b, uint64_t v);  /* little endian, 8 bytes */

/* Reading side: a cursor over a byte range; any read past the end sets bad. */
typedef struct gw_rd {
    const uint8_t *p;
    size_t len, pos;
    int bad;
} gw_rd;

uint8_t rd_byte(gw_rd *r);
uint64_t rd_varint(gw_rd *r);
uint64_t rd_u64(gw_rd *r);

/* Bits, most significant first, appended to a hist_buf (whole bytes are flushed as they fill). */
typedef struct bit_writer {
    hist_buf *out;
    uint64_t acc;            /* pending bits, right aligned */
    int nacc;                /* how many (< 8 after each call) */
} bit_writer;

void bw_init(bit_writer *w, hist_buf *out);
void bw_put(bit_writer *w, uint64_t v, int nbits);   /* nbits 0..64 */
void bw_flush(bit_writer *w);                         /* pads the last byte with zeros */

typedef struct bit_reader {
    gw_rd *in;
    uint64_t acc;
    int nacc;
} bit_reader;

void br_init(bit_reader *r, gw_rd *in);
uint64_t br_get(bit_reader *r, int nbits);            /* nbits 0..64; past the end: sets in->bad */
int br_bit(bit_reader *r);
void br_done(bit_reader *r);                          /* drops the rest of the partial byte */

static inline uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t unzigzag(uint64_t z) { return (int64_t)(z >> 1) ^ -(int64_t)(z & 1); }
static inline int bitlen64(uint64_t v) { return v ? 64 - __builtin_clzll(v) : 0; }

#endif
