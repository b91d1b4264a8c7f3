/* outbuf.c - growable text buffer with printf-style appends and one write per flush. */
#include "cli/outbuf.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int reserve(outbuf *b, size_t extra)
{
    if (b->failed)
        return -1;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void ob_reset(outbuf *b)
{
    b->len = 0;
    b->failed = 0;
    if (b->p)
        b->p[0] = 0;
}

void ob_free(outbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void ob_addn(outbuf *b, const char *s, size_t n)
{
    if (reserve(b, n) != 0)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

void ob_add(outbuf *b, const char *s) { ob_addn(b, s, strlen(s)); }

void ob_addf(outbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (int pass = 0; pass < 2; pass++) {
        size_t room = b->cap > b->len ? b->cap - b->len : 0;
        va_start(ap, fmt);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if ((size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        if (reserve(b, (size_t)n) != 0)
            return;
    }
}

void ob_pad(outbuf *b, const char *s, int width)
{
    size_t len = strlen(s);
    size_t w = (size_t)(width < 0 ? -width : width);
    size_t pad = len < w ? w - len : 0;
    if (reserve(b, len + pad) != 0)
        return;
    if (width < 0)
        memcpy(b->p + b->len, s, len);
    memset(b->p + b->len + (width < 0 ? len : 0), ' ', pad);
    if (width >= 0)
        memcpy(b->p + b->len + pad, s, len);
    b->len += len + pad;
    b->p[b->len] = 0;
}

int ob_flush(outbuf *b, int fd)
{
    size_t off = 0;
    int rc = b->failed ? -1 : 0;
    while (off < b->len) {
        ssize_t w = write(fd, b->p + off, b->len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            rc = -1;
            break;
        }
        off += (size_t)w;
    }
    ob_reset(b);
    return rc;
}
