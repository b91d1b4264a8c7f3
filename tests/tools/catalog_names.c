/* catalog_names.c - the metric catalog's exporter names for the end-to-end tests, one numeric
 * metric a line: field, native name, native scale, dcgm name, dcgm scale, kind ("-" for none).
 * The tests compare what a receiver got with the history (which names metrics by field). */
#include <stdio.h>
#include "catalog.h"

int main(void)
{
    for (int id = M_STR_END; id < M_COUNT; id++) {
        const metric_def *d = catalog_get((metric_id)id);
        printf("%s\t%s\t%.17g\t%s\t%.17g\t%s\n", d->field, d->prom ? d->prom : "-", d->prom_scale ? d->prom_scale : 1,
               d->dcgm ? d->dcgm : "-", d->dcgm_scale ? d->dcgm_scale : 1, d->kind == MK_COUNTER ? "counter" : "gauge");
    }
    return 0;
}
