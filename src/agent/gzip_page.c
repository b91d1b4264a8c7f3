/* gzip_page.c - gzip for /metrics: deflate the shared part once, wrap each scrape's tail in stored blocks. */
#include "gzip_page.h"
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define LEVEL 1           /* fastest: the page is rebuilt every sampling round */
#define STORED_MAX 65535u /* the most bytes one stored block holds */

/* RFC 1952 header: magic, CM=deflate, no flags, no mtime, XFL=4 (fastest), OS=3 (Unix). */
static const unsigned char gzip_magic_header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3};

int gzip_head_build(gzip_head *h, const char *in, size_t in_len)
{
    memset(h, 0, sizeof *h);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, LEVEL, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    size_t cap = sizeof gzip_magic_header + deflateBound(&z, (uLong)in_len) + 16;
    unsigned char *out = malloc(cap);
    if (!out) {
        deflateEnd(&z);
        return -1;
    }
    memcpy(out, gzip_magic_header, sizeof gzip_magic_header);
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)in_len;
    z.next_out = out + sizeof gzip_magic_header;
    z.avail_out = (uInt)(cap - sizeof gzip_magic_header);
    /* Z_SYNC_FLUSH, not Z_FINISH: ends on a byte boundary with no final block, so the stream stays
     * open. deflateBound, and 16 bytes for the flush's empty stored block, hold it in one call. */
    int rc = deflate(&z, Z_SYNC_FLUSH);
    size_t len = cap - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_OK || z.avail_in != 0 || z.avail_out == 0) {
        free(out);
        return -1;
    }
    h->data = out;
    h->len = len;
    h->crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), (const Bytef *)in, (uInt)in_len);
    h->in_len = in_len;
    return 0;
}

void gzip_head_release(gzip_head *h)
{
    free(h->data);
    memset(h, 0, sizeof *h);
}

static unsigned char *put_le16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)(v & 0xff);
    p[1] = (unsigned char)(v >> 8);
    return p + 2;
}

static unsigned char *put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
    return p + 4;
}

unsigned char *gzip_page_build(const gzip_head *h, const char *tail, size_t tail_len, size_t *out_len)
{
    size_t blocks = tail_len ? (tail_len + STORED_MAX - 1) / STORED_MAX : 1;
    size_t size = h->len + blocks * 5 + tail_len + 8;
    unsigned char *out = malloc(size), *p = out;
    if (!out)
        return NULL;
    memcpy(p, h->data, h->len);
    p += h->len;
    size_t off = 0;
    for (size_t b = 0; b < blocks; b++) {
        unsigned n = (unsigned)(tail_len - off < STORED_MAX ? tail_len - off : STORED_MAX);
        *p++ = b + 1 == blocks ? 1 : 0; /* BFINAL on the last; BTYPE 00 = stored */
        p = put_le16(p, n);
        p = put_le16(p, ~n & 0xffffu);
        if (n)
            memcpy(p, tail + off, n);
        p += n;
        off += n;
    }
    uint32_t crc = (uint32_t)crc32(h->crc, (const Bytef *)tail, (uInt)tail_len); /* goes on from the head's */
    p = put_le32(p, crc);
    p = put_le32(p, (uint32_t)(h->in_len + tail_len));
    *out_len = (size_t)(p - out);
    return out;
}
