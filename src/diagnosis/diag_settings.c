/* diag_settings.c - reading and writing the `diagnosis:` settings (see diag_settings.h). */
#include "diag_settings.h"
#include "util.h"
#include <stdio.h>
#include <string.h>

void diag_settings_defaults(diag_settings *s)
{
    s->enabled = 1;
    s->window_s = 30 * 60;
    s->interval_s = 60;
    diag_config_defaults(&s->cfg);
}

/* One threshold: name is "detector.threshold". */
static void set_threshold(gw_doc *d, const doc_node *n, const char *name, diag_settings *s)
{
    char what[160];
    snprintf(what, sizeof what, "diagnosis.thresholds.%s", name);
    double v;
    if (doc_number(d, n, what, &v) != 0)
        return;
    int rc = diag_config_set(&s->cfg, name, v);
    if (rc == -1)
        doc_error(d, n, "%s: no such threshold (gpuwatch diagnose --help-thresholds lists them)", what);
    for (int i = 0; rc == -2 && i < diag_config_count(); i++) {
        const diag_param *p = diag_config_param(i);
        if (strcmp(p->name, name) == 0)
            doc_error(d, n, "%s: %g is outside %g..%g", what, v, p->min, p->max);
    }
}

static void read_thresholds(gw_doc *d, const doc_node *t, diag_settings *s)
{
    if (doc_check_map(d, t, "diagnosis.thresholds", NULL) != 0)
        return;
    for (int i = 0; i < doc_map_len(t); i++) {
        const char *k = doc_text(doc_map_key(d, t, i));
        doc_node *v = doc_map_value(d, t, i);
        if (!k)
            continue;
        if (!doc_is_map(v)) { /* flat: "input_stall.p95_util: 75" */
            set_threshold(d, v, k, s);
            continue;
        }
        for (int j = 0; j < doc_map_len(v); j++) { /* nested: "input_stall: {p95_util: 75}" */
            const char *sub = doc_text(doc_map_key(d, v, j));
            char name[128];
            snprintf(name, sizeof name, "%s.%s", k, sub ? sub : "");
            set_threshold(d, doc_map_value(d, v, j), name, s);
        }
    }
}

int diag_settings_read(gw_doc *d, const doc_node *section, diag_settings *s)
{
    static const char *const keys[] = {"enabled", "window", "interval", "thresholds", NULL};
    int before = d->errs->n;
    diag_settings_defaults(s);
    if (doc_is_null(section) || doc_check_map(d, section, "diagnosis", keys) != 0)
        return d->errs->n > before ? -1 : 0;
    doc_opt_bool(d, section, "diagnosis", "enabled", &s->enabled);
    if (doc_opt_duration(d, section, "diagnosis", "window", &s->window_s) == 0 &&
        (s->window_s < 60 || s->window_s > 7 * 86400))
        doc_error(d, doc_get(d, section, "window"), "diagnosis.window: between 1m and 7d");
    if (doc_opt_duration(d, section, "diagnosis", "interval", &s->interval_s) == 0 &&
        (s->interval_s < 1 || s->interval_s > 86400))
        doc_error(d, doc_get(d, section, "interval"), "diagnosis.interval: between 1s and 1d");
    doc_node *t = doc_get(d, section, "thresholds");
    if (!doc_is_null(t))
        read_thresholds(d, t, s);
    return d->errs->n > before ? -1 : 0;
}

int diag_settings_write(const diag_settings *s, gw_buf *b)
{
    char window[32], every[32];
    gw_format_duration(s->window_s, window, sizeof window);
    gw_format_duration(s->interval_s, every, sizeof every);
    buf_printf(b, "  enabled: %s\n  window: %s\n  interval: %s\n", s->enabled ? "true" : "false", window, every);
    int first = 1;
    for (int i = 0; i < diag_config_count(); i++) {
        const diag_param *q = diag_config_param(i);
        double v;
        if (diag_config_get(&s->cfg, q->name, &v) != 0 || v == q->def)
            continue; /* only the thresholds set */
        if (first)
            buf_puts(b, "  thresholds:\n");
        first = 0;
        buf_printf(b, "    %s: %.10g\n", q->name, v);
    }
    return b->oom ? -1 : 0;
}
