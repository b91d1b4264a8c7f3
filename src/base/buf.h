/* buf.h - a growable byte buffer, reused between uses so pages and output lines need no new allocations. */
#ifndef GPUWATCH_BUF_H
#define GPUWATCH_BUF_H

#include <stddef.h>
#include <string.h>

typedef struct gw_buf {
    char *data; /* always NUL-terminated when non-NULL */
    size_t len;
    size_t cap;
    int oom; /* set when an allocation failed; later appends are dropped */
} gw_buf;

void buf_init(gw_buf *b);
void buf_release(gw_buf *b);
void buf_clear(gw_buf *b);                                /* len = 0, keeps the memory */
int buf_reserve(gw_buf *b, size_t extra);                 /* 0 on success */
void buf_append_slow(gw_buf *b, const char *s, size_t n); /* grows, then appends */

/* Appends are inline: the exporter writes thousands of short pieces per page. */
static inline void buf_append(gw_buf *b, const char *s, size_t n)
{
    if (b->oom || b->len + n + 1 > b->cap) {
        buf_append_slow(b, s, n);
        return;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

static inline void buf_puts(gw_buf *b, const char *s)
{
    buf_append(b, s, strlen(s));
}

static inline void buf_putc(gw_buf *b, char c)
{
    if (b->oom || b->len + 2 > b->cap) {
        buf_append_slow(b, &c, 1);
        return;
    }
    b->data[b->len++] = c;
    b->data[b->len] = 0;
}
void buf_printf(gw_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
