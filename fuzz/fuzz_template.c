/* fuzz_template.c - alert annotation templates: tmpl_compile, then tmpl_expand with labels and a
 * value. Input: one byte choosing the value (a table of edge cases, or the next 8 bytes as a double),
 * then the template text. */
#include "common.h"
#include "labels.h"
#include "template.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_quiet();
    return 0;
}

/* printf's width or precision past 4 digits: a known finding left to the alerts engineer (glibc
 * allocates the padded text before snprintf truncates it: gigabytes; docs/reliability.md). Set
 * FUZZ_TEMPLATE_WIDE=1 to let such inputs through. */
static int wide_printf(const char *t)
{
    static int allow = -1;
    if (allow < 0)
        allow = getenv("FUZZ_TEMPLATE_WIDE") != NULL;
    if (allow)
        return 0;
    int digits = 0;
    for (const char *p = t; *p; p++) {
        digits = *p >= '0' && *p <= '9' ? digits + 1 : 0;
        if (digits > 4)
            return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const double values[] = {0, 1, -1, 95.5, 0.25, 1e21, -1e-300, 1e308, 123456789.125, 4e18, -9.3e18};
    if (size < 1)
        return 0;
    double v;
    unsigned pick = data[0];
    data++, size--;
    if (pick < sizeof values / sizeof values[0]) {
        v = values[pick];
    } else if (pick == 0xF0) {
        v = NAN;
    } else if (pick == 0xF1) {
        v = INFINITY;
    } else if (pick == 0xF2) {
        v = -INFINITY;
    } else if (size >= 8) {
        memcpy(&v, data, 8);
        data += 8, size -= 8;
    } else {
        v = pick;
    }
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    if (wide_printf(text)) {
        free(text);
        return 0;
    }
    tmpl t = {0};
    char err[256];
    int off = 0;
    if (tmpl_compile(&t, text, err, sizeof err, &off) == 0) {
        labels l = {0};
        labels_set(&l, "gpu", "3");
        labels_set(&l, "alertname", "Hot");
        labels_set(&l, "value", "1e309");
        labels_set(&l, "pid", "4242");
        free(tmpl_expand(&t, &l, v));
        labels_free(&l);
    }
    tmpl_free(&t);
    free(text);
    return 0;
}
