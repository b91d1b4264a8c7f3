/* gzip_page.h - gzip for /metrics: the shared GPU part deflated once, each scrape's tail appended as stored blocks. */
#ifndef GPUWATCH_GZIP_PAGE_H
#define GPUWATCH_GZIP_PAGE_H

#include <stddef.h>
#include <stdint.h>

/* The start of a gzip stream: header + raw deflate of `in_len` bytes ending in a sync flush, so the
 * stream stays open and byte-aligned and any number of stored blocks can follow. */
typedef struct gzip_head {
    unsigned char *data; /* malloc'ed */
    size_t len;
    uint32_t crc; /* CRC-32 of the uncompressed bytes */
    size_t in_len;
} gzip_head;

int gzip_head_build(gzip_head *h, const char *in, size_t in_len); /* 0, or -1 (out of memory) */
void gzip_head_release(gzip_head *h);

/* The whole stream: a copy of h's bytes, `tail` as stored blocks (the last one final) and the gzip
 * trailer for the whole body (h's input then tail). malloc'ed; NULL when out of memory. */
unsigned char *gzip_page_build(const gzip_head *h, const char *tail, size_t tail_len, size_t *out_len);

#endif
