/* bundle.c - several coded columns in one blob (see bundle.h).
 *
 * Layout: a version byte (1), the column count (varint), then per column its id (varint) and length
 * (varint; 0 = the same bytes as the column whose index follows as a varint), then the bytes of the
 * columns stored, in order. The directory comes first, so one column is found without reading the
 * others' bytes. */
#include "bundle.h"
#include <string.h>

#define BUNDLE_VERSION 1

void bundle_put(gw_buf *out, int n, const int *ids, const gw_buf *cols)
{
    bytes_put_u8(out, BUNDLE_VERSION);
    bytes_put_varint(out, (uint64_t)n);
    for (int i = 0; i < n; i++) {
        int same = -1;
        for (int j = 0; j < i && same < 0; j++)
            if (cols[j].len == cols[i].len && cols[i].len && memcmp(cols[j].data, cols[i].data, cols[i].len) == 0)
                same = j;
        bytes_put_varint(out, (uint64_t)ids[i]);
        bytes_put_varint(out, same < 0 ? cols[i].len : 0);
        if (same >= 0)
            bytes_put_varint(out, (uint64_t)same);
    }
    for (int i = 0; i < n; i++) {
        int dup = 0;
        for (int j = 0; j < i && !dup; j++)
            dup = cols[j].len == cols[i].len && cols[i].len && memcmp(cols[j].data, cols[i].data, cols[i].len) == 0;
        if (!dup && cols[i].len)
            buf_append(out, cols[i].data, cols[i].len);
    }
}

int bundle_read(const void *blob, size_t len, bundle_col *cols, int max)
{
    byte_cursor in = {blob, len, 0, 0};
    if (cursor_u8(&in) != BUNDLE_VERSION)
        return -1;
    uint64_t n = cursor_varint(&in);
    if (in.bad || n > (uint64_t)max || n > BUNDLE_MAX_COLS)
        return -1;
    size_t ref[BUNDLE_MAX_COLS];
    for (uint64_t i = 0; i < n; i++) {
        uint64_t id = cursor_varint(&in), clen = cursor_varint(&in);
        ref[i] = i;
        if (clen == 0) {
            uint64_t same = cursor_varint(&in);
            if (same >= i)
                return -1;
            ref[i] = (size_t)same;
        }
        cols[i].dbid = (int)id;
        cols[i].len = (size_t)clen;
        if (in.bad || id > 0x7fffffff)
            return -1;
    }
    size_t pos = in.pos;
    for (uint64_t i = 0; i < n; i++) {
        if (ref[i] != i) {
            cols[i].p = cols[ref[i]].p;
            cols[i].len = cols[ref[i]].len;
            continue;
        }
        if (cols[i].len > len - pos)
            return -1;
        cols[i].p = (const uint8_t *)blob + pos;
        pos += cols[i].len;
    }
    return (int)n;
}

int bundle_locate(const void *head, size_t head_len, int dbid, size_t *off, size_t *len)
{
    byte_cursor in = {head, head_len, 0, 0};
    if (cursor_u8(&in) != BUNDLE_VERSION)
        return in.bad ? BUNDLE_SHORT : -1;
    uint64_t n = cursor_varint(&in);
    if (in.bad)
        return BUNDLE_SHORT;
    if (n > BUNDLE_MAX_COLS)
        return -1;
    /* offsets of the stored columns (a copy points at an earlier one's) */
    size_t data = 0, offs[BUNDLE_MAX_COLS], lens[BUNDLE_MAX_COLS];
    int found = -1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t id = cursor_varint(&in), clen = cursor_varint(&in);
        if (clen == 0) {
            uint64_t same = cursor_varint(&in);
            if (!in.bad && same >= i)
                return -1;
            offs[i] = in.bad ? 0 : offs[same];
            lens[i] = in.bad ? 0 : lens[same];
        } else {
            offs[i] = data;
            lens[i] = (size_t)clen;
            data += (size_t)clen;
        }
        if (in.bad)
            return BUNDLE_SHORT;
        if ((int64_t)id == dbid && found < 0)
            found = (int)i;
    }
    if (found < 0)
        return 0;
    *off = in.pos + offs[found];
    *len = lens[found];
    return 1;
}

int bundle_find(const void *blob, size_t len, int dbid, const uint8_t **p, size_t *plen)
{
    size_t off, clen;
    int rc = bundle_locate(blob, len, dbid, &off, &clen);
    if (rc == BUNDLE_SHORT)
        return -1;
    if (rc == 1 && (off > len || clen > len - off))
        return -1;
    if (rc == 1) {
        *p = (const uint8_t *)blob + off;
        *plen = clen;
    }
    return rc;
}
