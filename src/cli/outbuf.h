/* outbuf.h - the CLI's text output on the core buffer (buf.h): a command formats a whole sample
 * into one gw_buf, then writes it once. Adds padding and the single write. */
#ifndef GPUWATCH_OUTBUF_H
#define GPUWATCH_OUTBUF_H

#include "buf.h"

void ob_pad(gw_buf *b, const char *s, int width); /* width > 0 right-aligns, < 0 left-aligns */
/* Writes everything to fd (retrying short writes) and empties the buffer. Returns 0, or -1 on error. */
int ob_flush(gw_buf *b, int fd);

#endif
