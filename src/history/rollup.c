/* rollup.c - computes, merges and encodes 1-minute roll-ups (minute timeline + five value columns). */
#include "rollup.h"
#include "codec.h"
#include "store.h"
#include <stdlib.h>

static int64_t minute_of(int64_t t)
{
    return t - (((t % MINUTE_US) + MINUTE_US) % MINUTE_US);
}

size_t rollup_minutes(const int64_t *t, const double *v, const uint8_t *present, size_t n, rmin *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (present && !present[i])
            continue;
        int64_t mt = minute_of(t[i]);
        if (m == 0 || out[m - 1].t != mt) {
            out[m++] = (rmin){mt, 1, v[i], v[i], v[i], v[i]};
            continue;
        }
        rmin *r = &out[m - 1];
        r->n += 1;
        if (v[i] < r->min)
            r->min = v[i];
        if (v[i] > r->max)
            r->max = v[i];
        r->sum += v[i];
        r->last = v[i];
    }
    return m;
}

size_t rollup_merge(const rmin *a, size_t na, const rmin *b, size_t nb, rmin *out)
{
    size_t i = 0, j = 0, m = 0;
    while (i < na || j < nb) {
        if (j >= nb || (i < na && a[i].t < b[j].t)) {
            out[m++] = a[i++];
            continue;
        }
        if (i >= na || b[j].t < a[i].t) {
            out[m++] = b[j++];
            continue;
        }
        rmin r = a[i++];
        const rmin *o = &b[j++];
        r.n += o->n;
        if (o->min < r.min)
            r.min = o->min;
        if (o->max > r.max)
            r.max = o->max;
        r.sum += o->sum;
        r.last = o->last;
        out[m++] = r;
    }
    return m;
}

void rollup_encode(gw_buf *out, const rmin *r, size_t n)
{
    int64_t *t = malloc((n ? n : 1) * sizeof *t);
    double *col = malloc((n ? n : 1) * sizeof *col);
    if (!t || !col) {
        out->oom = 1;
        free(t);
        free(col);
        return;
    }
    for (size_t i = 0; i < n; i++)
        t[i] = r[i].t;
    codec_put_times(out, t, n);
    for (int c = 0; c < 5; c++) {
        for (size_t i = 0; i < n; i++)
            col[i] = c == 0 ? r[i].n : c == 1 ? r[i].min : c == 2 ? r[i].max : c == 3 ? r[i].sum : r[i].last;
        codec_put_column(out, col, NULL, n);
    }
    free(t);
    free(col);
}

int rollup_decode(const uint8_t *p, size_t len, rmin **out, size_t *n)
{
    byte_cursor rd = {p, len, 0, 0};
    size_t cnt = codec_peek_count(&rd);
    if (cnt > CODEC_MAX_COUNT)
        return -1; /* more minutes than bits: corrupt */
    rmin *r = malloc((cnt ? cnt : 1) * sizeof *r);
    int64_t *t = malloc((cnt ? cnt : 1) * sizeof *t);
    double *col = malloc((cnt ? cnt : 1) * sizeof *col);
    int rc = -1;
    size_t got = 0;
    if (!r || !t || !col || codec_get_times(&rd, t, cnt, &got) != 0 || got != cnt)
        goto out;
    for (size_t i = 0; i < cnt; i++)
        r[i].t = t[i];
    for (int c = 0; c < 5; c++) {
        if (codec_get_column(&rd, col, NULL, cnt) != 0)
            goto out;
        for (size_t i = 0; i < cnt; i++) {
            double *dst = c == 0 ? &r[i].n : c == 1 ? &r[i].min : c == 2 ? &r[i].max : c == 3 ? &r[i].sum : &r[i].last;
            *dst = col[i];
        }
    }
    rc = 0;
out:
    free(t);
    free(col);
    if (rc == 0) {
        *out = r;
        *n = cnt;
    } else
        free(r);
    return rc;
}
