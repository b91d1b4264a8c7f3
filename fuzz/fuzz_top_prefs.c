/* fuzz_top_prefs.c - top's preferences file (top.yaml, prefs.c): read as top reads it at start; a
 * file it accepts is written back as top saves it and read again, which must give the same
 * preferences. Input: the file. */
#include "common.h"
#include "errlist.h"
#include "top_ui.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_quiet();
    return 0;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-5 * fmax(fabs(a), fabs(b));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("top.yaml", data, size);
    if (!path)
        return 0;
    top_prefs p;
    errlist errs = {0};
    if (top_prefs_read(path, &p, &errs) == 0) {
        gw_buf b;
        buf_init(&b);
        top_prefs q;
        errlist again = {0};
        const char *back = top_prefs_text(&p, &b) == 0 ? fuzz_file("top2.yaml", b.data, b.len) : NULL;
        if (back && top_prefs_read(back, &q, &again) != 0) {
            fprintf(stderr, "fuzz_top_prefs: top.yaml as top writes it is refused: %s\n", again.n ? again.msg[0] : "");
            abort();
        }
        if (back && (p.layout != q.layout || p.chart != q.chart || p.sort_col != q.sort_col ||
                     p.sort_desc != q.sort_desc || p.ascii != q.ascii || p.color != q.color ||
                     p.diag.enabled != q.diag.enabled || !near(p.interval_s, q.interval_s) ||
                     !near(p.th.temp_warn, q.th.temp_warn) || !near(p.th.hbm_crit, q.th.hbm_crit))) {
            fprintf(stderr, "fuzz_top_prefs: written and read back, the preferences changed\n");
            abort();
        }
        errlist_free(&again);
        buf_release(&b);
    }
    errlist_free(&errs);
    return 0;
}
