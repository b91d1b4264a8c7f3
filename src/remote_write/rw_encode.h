/* rw_encode.h - one remote-write request from entries: Remote-Write 1.0's prometheus.WriteRequest
 * or 2.0's io.prometheus.write.v2.Request (with its symbol table and each series' type and help),
 * packed by protobuf-c and compressed with snappy's block format, as both versions require. A
 * series' samples go together, in the order the entries give them (their time order). */
#ifndef GPUWATCH_RW_ENCODE_H
#define GPUWATCH_RW_ENCODE_H

#include <stddef.h>
#include "buf.h"
#include "rw_series.h"

typedef struct rw_encoded {
    size_t samples;   /* encoded (entries whose series was forgotten are left out) */
    size_t series;    /* distinct series */
    size_t raw_bytes; /* the message before compression */
} rw_encoded;

/* Encodes the n entries as one request of version (1 or 2) into out (cleared first). The table's
 * lock must be held. Returns 0, or -1 when memory ran out. */
int rw_encode(rw_table *t, const rw_entry *e, size_t n, int version, gw_buf *out, rw_encoded *info);

#endif
