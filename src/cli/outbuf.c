/* outbuf.c - padded appends and one write per flush, for the CLI printers (see outbuf.h). */
#include "outbuf.h"
#include <errno.h>
#include <string.h>
#include <unistd.h>

void ob_pad(gw_buf *b, const char *s, int width)
{
    size_t len = strlen(s);
    size_t w = (size_t)(width < 0 ? -width : width);
    size_t pad = len < w ? w - len : 0;
    if (buf_reserve(b, len + pad) != 0)
        return;
    if (width < 0)
        memcpy(b->data + b->len, s, len);
    memset(b->data + b->len + (width < 0 ? len : 0), ' ', pad);
    if (width >= 0)
        memcpy(b->data + b->len + pad, s, len);
    b->len += len + pad;
    b->data[b->len] = 0;
}

int ob_flush(gw_buf *b, int fd)
{
    size_t off = 0;
    int rc = b->oom ? -1 : 0;
    while (off < b->len) {
        ssize_t w = write(fd, b->data + off, b->len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            rc = -1;
            break;
        }
        off += (size_t)w;
    }
    buf_clear(b);
    return rc;
}
