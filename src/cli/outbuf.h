/* outbuf.h - a reusable text buffer: a command formats a whole sample into it, then writes it once. */
#ifndef GPUWATCH_OUTBUF_H
#define GPUWATCH_OUTBUF_H

#include <stddef.h>

typedef struct outbuf {
    char *p;
    size_t len, cap;
    int failed;          /* an allocation failed: further appends are dropped */
} outbuf;

void ob_reset(outbuf *b);                 /* empties it, keeps the memory */
void ob_free(outbuf *b);
void ob_add(outbuf *b, const char *s);
void ob_addn(outbuf *b, const char *s, size_t n);
void ob_addf(outbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ob_pad(outbuf *b, const char *s, int width);   /* width > 0 right-aligns, < 0 left-aligns */
/* Writes everything to fd (retrying short writes) and empties the buffer. Returns 0, or -1 on error. */
int ob_flush(outbuf *b, int fd);

#endif
