/* rw_encode.c - remote-write requests, 1.0 and 2.0, with protobuf-c and snappy (see rw_encode.h). */
#include "rw_encode.h"
#include <snappy-c.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "remote_write_v1.pb-c.h"
#include "remote_write_v2.pb-c.h"

/* The entries in series order, each series' in their own order. */
typedef struct ordered {
    uint32_t series;
    uint32_t at; /* index in the entries */
} ordered;

static int by_series(const void *a, const void *b)
{
    const ordered *x = a, *y = b;
    if (x->series != y->series)
        return x->series < y->series ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* The entries whose series exist, grouped by series: idx (n of them) and the group starts (ngroups
 * + 1 of them, the last one n). Returns 0 or -1. */
static int group(rw_table *t, const rw_entry *e, size_t n, ordered **idx, size_t *nidx, size_t **starts,
                 size_t *ngroups)
{
    *idx = malloc((n ? n : 1) * sizeof **idx);
    *starts = malloc((n + 1) * sizeof **starts);
    if (!*idx || !*starts)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (rw_table_get(t, &e[i]))
            (*idx)[k++] = (ordered){e[i].series, (uint32_t)i};
    qsort(*idx, k, sizeof **idx, by_series);
    size_t g = 0;
    for (size_t i = 0; i < k; i++)
        if (i == 0 || (*idx)[i].series != (*idx)[i - 1].series)
            (*starts)[g++] = i;
    (*starts)[g] = k;
    *nidx = k;
    *ngroups = g;
    return 0;
}

static int64_t to_ms(int64_t t_us)
{
    return t_us >= 0 ? t_us / 1000 : -((-t_us + 999) / 1000);
}

static int compress_into(const uint8_t *raw, size_t len, gw_buf *out)
{
    size_t max = snappy_max_compressed_length(len);
    buf_clear(out);
    if (buf_reserve(out, max + 1) != 0)
        return -1;
    size_t got = max;
    if (snappy_compress((const char *)raw, len, out->data, &got) != SNAPPY_OK)
        return -1;
    out->len = got;
    return 0;
}

static int encode_v1(rw_table *t, const rw_entry *e, const ordered *idx, size_t nidx, const size_t *starts,
                     size_t ngroups, gw_buf *out, rw_encoded *info)
{
    size_t nlabels = 0;
    for (size_t g = 0; g < ngroups; g++)
        nlabels += (size_t)rw_table_get(t, &e[idx[starts[g]].at])->nlabels;
    Prometheus__TimeSeries *ts = calloc(ngroups ? ngroups : 1, sizeof *ts);
    Prometheus__TimeSeries **tsp = calloc(ngroups ? ngroups : 1, sizeof *tsp);
    Prometheus__Label *lab = calloc(nlabels ? nlabels : 1, sizeof *lab);
    Prometheus__Label **labp = calloc(nlabels ? nlabels : 1, sizeof *labp);
    Prometheus__Sample *smp = calloc(nidx ? nidx : 1, sizeof *smp);
    Prometheus__Sample **smpp = calloc(nidx ? nidx : 1, sizeof *smpp);
    uint8_t *raw = NULL;
    int rc = -1;
    if (!ts || !tsp || !lab || !labp || !smp || !smpp)
        goto out;
    size_t li = 0;
    for (size_t g = 0; g < ngroups; g++) {
        const rw_series *s = rw_table_get(t, &e[idx[starts[g]].at]);
        prometheus__time_series__init(&ts[g]);
        tsp[g] = &ts[g];
        ts[g].n_labels = (size_t)s->nlabels;
        ts[g].labels = &labp[li];
        for (int k = 0; k < s->nlabels; k++, li++) {
            prometheus__label__init(&lab[li]);
            lab[li].name = (char *)s->labels[k].name;
            lab[li].value = (char *)s->labels[k].value;
            labp[li] = &lab[li];
        }
        ts[g].n_samples = starts[g + 1] - starts[g];
        ts[g].samples = &smpp[starts[g]];
        for (size_t i = starts[g]; i < starts[g + 1]; i++) {
            prometheus__sample__init(&smp[i]);
            smp[i].value = e[idx[i].at].v;
            smp[i].timestamp = to_ms(e[idx[i].at].t_us);
            smpp[i] = &smp[i];
        }
    }
    Prometheus__WriteRequest req = PROMETHEUS__WRITE_REQUEST__INIT;
    req.n_timeseries = ngroups;
    req.timeseries = tsp;
    size_t len = prometheus__write_request__get_packed_size(&req);
    raw = malloc(len ? len : 1);
    if (!raw)
        goto out;
    prometheus__write_request__pack(&req, raw);
    info->raw_bytes = len;
    rc = compress_into(raw, len, out);
out:
    free(ts), free(tsp), free(lab), free(labp), free(smp), free(smpp), free(raw);
    return rc;
}

/* ---- 2.0: every string once, in a symbol table ---- */

typedef struct symbols {
    const char **text; /* by reference */
    size_t n, cap;
    uint32_t *slots; /* hash -> reference + 1 */
    size_t nslots;
} symbols;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

/* The reference of s (added when new), or UINT32_MAX when out of memory. */
static uint32_t intern(symbols *y, const char *s)
{
    size_t mask = y->nslots - 1;
    for (size_t i = hash_str(s) & mask;; i = (i + 1) & mask) {
        uint32_t r = y->slots[i];
        if (!r) {
            if (y->n == y->cap)
                return UINT32_MAX; /* sized for every string of the request: cannot happen */
            y->text[y->n] = s;
            y->slots[i] = (uint32_t)++y->n;
            return (uint32_t)(y->n - 1);
        }
        if (strcmp(y->text[r - 1], s) == 0)
            return r - 1;
    }
}

static int encode_v2(rw_table *t, const rw_entry *e, const ordered *idx, size_t nidx, const size_t *starts,
                     size_t ngroups, gw_buf *out, rw_encoded *info)
{
    size_t nlabels = 0;
    for (size_t g = 0; g < ngroups; g++)
        nlabels += (size_t)rw_table_get(t, &e[idx[starts[g]].at])->nlabels;
    symbols y = {0};
    y.cap = 2 * nlabels + ngroups + 1;
    y.nslots = 16;
    while (y.nslots < 2 * y.cap)
        y.nslots *= 2;
    y.text = malloc(y.cap * sizeof *y.text);
    y.slots = calloc(y.nslots, sizeof *y.slots);
    Io__Prometheus__Write__V2__TimeSeries *ts = calloc(ngroups ? ngroups : 1, sizeof *ts);
    Io__Prometheus__Write__V2__TimeSeries **tsp = calloc(ngroups ? ngroups : 1, sizeof *tsp);
    Io__Prometheus__Write__V2__Metadata *meta = calloc(ngroups ? ngroups : 1, sizeof *meta);
    uint32_t *refs = malloc((nlabels ? 2 * nlabels : 1) * sizeof *refs);
    Io__Prometheus__Write__V2__Sample *smp = calloc(nidx ? nidx : 1, sizeof *smp);
    Io__Prometheus__Write__V2__Sample **smpp = calloc(nidx ? nidx : 1, sizeof *smpp);
    uint8_t *raw = NULL;
    int rc = -1;
    if (!y.text || !y.slots || !ts || !tsp || !meta || !refs || !smp || !smpp)
        goto out;
    intern(&y, ""); /* symbols[0] is the empty string */
    size_t ri = 0;
    for (size_t g = 0; g < ngroups; g++) {
        const rw_series *s = rw_table_get(t, &e[idx[starts[g]].at]);
        io__prometheus__write__v2__time_series__init(&ts[g]);
        io__prometheus__write__v2__metadata__init(&meta[g]);
        tsp[g] = &ts[g];
        ts[g].labels_refs = &refs[ri];
        ts[g].n_labels_refs = 2 * (size_t)s->nlabels;
        for (int k = 0; k < s->nlabels; k++) {
            refs[ri++] = intern(&y, s->labels[k].name);
            refs[ri++] = intern(&y, s->labels[k].value);
        }
        meta[g].type = s->counter ? IO__PROMETHEUS__WRITE__V2__METADATA__METRIC_TYPE__METRIC_TYPE_COUNTER
                                  : IO__PROMETHEUS__WRITE__V2__METADATA__METRIC_TYPE__METRIC_TYPE_GAUGE;
        meta[g].help_ref = intern(&y, s->help ? s->help : "");
        ts[g].metadata = &meta[g];
        ts[g].n_samples = starts[g + 1] - starts[g];
        ts[g].samples = &smpp[starts[g]];
        for (size_t i = starts[g]; i < starts[g + 1]; i++) {
            io__prometheus__write__v2__sample__init(&smp[i]);
            smp[i].value = e[idx[i].at].v;
            smp[i].timestamp = to_ms(e[idx[i].at].t_us);
            smpp[i] = &smp[i];
        }
    }
    Io__Prometheus__Write__V2__Request req = IO__PROMETHEUS__WRITE__V2__REQUEST__INIT;
    req.n_symbols = y.n;
    req.symbols = (char **)y.text;
    req.n_timeseries = ngroups;
    req.timeseries = tsp;
    size_t len = io__prometheus__write__v2__request__get_packed_size(&req);
    raw = malloc(len ? len : 1);
    if (!raw)
        goto out;
    io__prometheus__write__v2__request__pack(&req, raw);
    info->raw_bytes = len;
    rc = compress_into(raw, len, out);
out:
    free(y.text), free(y.slots), free(ts), free(tsp), free(meta), free(refs), free(smp), free(smpp), free(raw);
    return rc;
}

int rw_encode(rw_table *t, const rw_entry *e, size_t n, int version, gw_buf *out, rw_encoded *info)
{
    memset(info, 0, sizeof *info);
    ordered *idx = NULL;
    size_t *starts = NULL, nidx = 0, ngroups = 0;
    int rc = group(t, e, n, &idx, &nidx, &starts, &ngroups);
    if (rc == 0)
        rc = version == 2 ? encode_v2(t, e, idx, nidx, starts, ngroups, out, info)
                          : encode_v1(t, e, idx, nidx, starts, ngroups, out, info);
    if (rc == 0) {
        info->samples = nidx;
        info->series = ngroups;
    }
    free(idx);
    free(starts);
    return rc;
}
