/* xid_tally.c - XID errors per code from consecutive samples (see xid_tally.h). */
#include "xid_tally.h"
#include <string.h>

static void count_on(xid_tally *t, unsigned code, double n)
{
    int i = 0;
    while (i < t->n && t->code[i] != code)
        i++;
    if (i == t->n) {
        if (t->n == XID_TALLY_MAX)
            i = XID_TALLY_MAX - 1;
        else
            t->code[t->n++] = code;
    }
    t->total[i] += n;
}

void xid_tally_add(xid_tally *t, const gpu_sample *s)
{
    double count, last;
    if (!sample_get(s, M_XID_COUNT, &count))
        return;
    double grew = t->primed && count >= t->count ? count - t->count : count;
    if (t->primed && count < t->count) { /* counting started over */
        memset(t->total, 0, sizeof t->total);
        t->n = 0;
    }
    t->primed = 1;
    t->count = count;
    if (grew > 0 && sample_get(s, M_XID_LAST, &last) && last > 0)
        count_on(t, (unsigned)last, grew);
}
