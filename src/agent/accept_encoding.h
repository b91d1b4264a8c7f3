/* accept_encoding.h - does a request's Accept-Encoding header allow a gzip response? */
#ifndef GPUWATCH_ACCEPT_ENCODING_H
#define GPUWATCH_ACCEPT_ENCODING_H

/* 1 when `gzip` (or `*`, with gzip not refused) has a q-value above 0; 0 otherwise, and for NULL. */
int accept_gzip(const char *header);

#endif
