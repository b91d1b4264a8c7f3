/* buf.c - a growable byte buffer (see buf.h), shared by the exporter, the JSON API and the CLI printers. */
#include "buf.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(gw_buf *b)
{
    memset(b, 0, sizeof *b);
}

void buf_release(gw_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void buf_clear(gw_buf *b)
{
    b->len = 0;
    b->oom = 0;
    if (b->data)
        b->data[0] = 0;
}

int buf_reserve(gw_buf *b, size_t extra)
{
    if (b->oom)
        return -1;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

void buf_append_slow(gw_buf *b, const char *s, size_t n)
{
    if (buf_reserve(b, n) != 0)
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void buf_printf(gw_buf *b, const char *fmt, ...)
{
    /* Straight into the spare room (at least 256 bytes of it); a second pass only when it did not
     * fit. (vsnprintf into a too-small buffer takes a slow path that costs more than the copy.) */
    if (buf_reserve(b, 256) != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    size_t room = b->cap - b->len;
    int n = vsnprintf(b->data + b->len, room, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->data[b->len] = 0;
        return;
    }
    if ((size_t)n >= room) {
        if (buf_reserve(b, (size_t)n) != 0) {
            b->data[b->len] = 0;
            return;
        }
        va_start(ap, fmt);
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}
