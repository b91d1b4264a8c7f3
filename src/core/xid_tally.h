/* xid_tally.h - XID errors counted per code, from a GPU's samples in time order: what xid.count grew
 * by between two samples is put on the code xid.last names (NVML reports each XID as an event; the
 * backend keeps the count and the last code), so that gpuwatch_xid_errors_total{xid} is a counter
 * per code rather than dcgm-exporter's gauge of the last one. Several codes within one sampling
 * interval count on the last of them. */
#ifndef GPUWATCH_XID_TALLY_H
#define GPUWATCH_XID_TALLY_H

#include "sample.h"

#define XID_TALLY_MAX 64 /* distinct codes per GPU; more count on the code of the last slot */

typedef struct xid_tally {
    int primed;   /* a sample with xid.count was seen */
    double count; /* xid.count of that sample */
    int n;
    unsigned code[XID_TALLY_MAX];
    double total[XID_TALLY_MAX]; /* errors of each code since the backend started counting */
} xid_tally;

/* Adds one sample of the GPU (newer than the previous one). The first sample's whole count goes to
 * its last code; a count that went down (the backend restarted) starts over from it. */
void xid_tally_add(xid_tally *t, const gpu_sample *s);

#endif
