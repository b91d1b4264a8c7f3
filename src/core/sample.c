/* sample.c - reading values out of a gpu_sample, including bit metrics derived from a mask. */
#include "sample.h"

int sample_get(const gpu_sample *s, metric_id id, double *out)
{
    const metric_def *d = catalog_get(id);
    if (d->flags & MF_BIT) {
        if (!sample_has(s, d->parent)) {
            *out = 0;
            return 0;
        }
        *out = ((uint64_t)s->v[d->parent] & d->bit) ? 1.0 : 0.0;
        return 1;
    }
    if (metric_is_string(id) || !sample_has(s, id)) {
        *out = 0;
        return 0;
    }
    *out = s->v[id];
    return 1;
}
