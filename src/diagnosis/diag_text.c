/* diag_text.c - the report for people: findings grouped by GPU (groups ordered by their worst
 * finding), each with severity, detector, time range, summary, evidence, a one-line chart of its
 * signal (Unicode blocks, or ASCII) and advice. */
#include "diag_report.h"
#include "diag_render.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_GROUPS 256
#define LINE_WIDTH 100

static const char *const blocks[8] = {"\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};
static const char ascii_levels[8] = {'_', '.', '-', ':', '=', '+', '*', '#'};

static void group_name(const diag_finding *f, char *out, size_t n)
{
    if (f->n_gpus == 0) {
        snprintf(out, n, "host");
        return;
    }
    size_t len = (size_t)snprintf(out, n, "%s ", f->n_gpus > 1 ? "GPUs" : "GPU");
    for (int i = 0; i < f->n_gpus && len < n; i++)
        len += (size_t)snprintf(out + len, n - len, "%s%d", i ? "," : "", f->gpus[i]);
}

/* The heading of a group: its GPUs and, for one GPU, its name. */
static void put_heading(gw_buf *b, const char *group, const diag_report *r)
{
    buf_printf(b, "\n%s", group);
    for (int i = 0; i < r->n; i++) {
        char name[64];
        group_name(&r->f[i], name, sizeof name);
        const diag_evidence *e = diag_finding_get(&r->f[i], "gpu_name");
        if (r->f[i].n_gpus == 1 && e && strcmp(name, group) == 0) {
            buf_printf(b, "  %s", e->str);
            break;
        }
    }
    buf_putc(b, '\n');
}

static void put_duration(gw_buf *b, double s)
{
    if (s < 120)
        buf_printf(b, "%.0f s", s);
    else if (s < 7200)
        buf_printf(b, "%.0f min", s / 60);
    else
        buf_printf(b, "%.1f h", s / 3600);
}

static void put_number(gw_buf *b, double v)
{
    double a = fabs(v);
    if (!isfinite(v))
        buf_puts(b, "n/a");
    else if (a >= 100 || v == floor(v))
        buf_printf(b, "%.0f", v);
    else if (a >= 10)
        buf_printf(b, "%.1f", v);
    else
        buf_printf(b, "%.2f", v);
}

static void put_evidence(gw_buf *b, const diag_finding *f)
{
    size_t line_start = b->len;
    buf_puts(b, "    evidence:");
    for (int i = 0; i < f->n_evidence; i++) {
        const diag_evidence *e = &f->evidence[i];
        if (strcmp(e->key, "gpu_name") == 0)
            continue; /* in the group's heading */
        if (b->len - line_start > LINE_WIDTH) {
            buf_puts(b, "\n             ");
            line_start = b->len - 13;
        }
        buf_printf(b, " %s=", e->key);
        if (e->is_str) {
            buf_puts(b, e->str);
        } else {
            put_number(b, e->num);
            if (e->unit[0])
                buf_printf(b, "%s%s", strcmp(e->unit, "%") == 0 ? "" : " ", e->unit);
        }
    }
    buf_putc(b, '\n');
}

static void put_chart(gw_buf *b, const diag_chart *ch, unsigned flags)
{
    if (ch->n == 0 || (flags & DIAG_TEXT_NO_CHART))
        return;
    buf_printf(b, "    %s", ch->metric);
    if (ch->unit[0])
        buf_printf(b, " (%s)", ch->unit);
    buf_puts(b, " ");
    put_number(b, ch->lo);
    buf_puts(b, "..");
    put_number(b, ch->hi);
    buf_puts(b, " |");
    double span = ch->hi - ch->lo;
    for (int i = 0; i < ch->n; i++) {
        double x = span > 0 ? (ch->v[i] - ch->lo) / span : 0.5;
        int k = (int)floor(x * 8);
        k = k < 0 ? 0 : (k > 7 ? 7 : k);
        if (flags & DIAG_TEXT_ASCII)
            buf_putc(b, ascii_levels[k]);
        else
            buf_puts(b, blocks[k]);
    }
    buf_puts(b, "|\n");
}

void diag_finding_put_text(gw_buf *b, const diag_finding *f, unsigned flags)
{
    char from[40], to[40];
    diag_format_time(f->from_us, from, sizeof from);
    diag_format_time(f->to_us, to, sizeof to);
    char sev[16];
    snprintf(sev, sizeof sev, "%s", diag_severity_name(f->severity));
    for (char *p = sev; *p; p++)
        *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
    buf_printf(b, "  %-8s %s  %s .. %s (", sev, f->detector, from, to);
    put_duration(b, (double)(f->to_us - f->from_us) / 1e6);
    buf_puts(b, ")\n");
    buf_printf(b, "    %s\n", f->summary);
    if (f->n_pids > 0) {
        buf_puts(b, "    pids:");
        for (int i = 0; i < f->n_pids; i++)
            buf_printf(b, " %u", f->pids[i]);
        buf_putc(b, '\n');
    }
    if (f->n_evidence > 0)
        put_evidence(b, f);
    put_chart(b, &f->chart, flags);
    for (int i = 0; i < f->n_advice; i++)
        buf_printf(b, "    - %s\n", f->advice[i]);
}

void diag_report_text(const diag_report *r, gw_buf *out, unsigned flags)
{
    int counts[3] = {0};
    for (int i = 0; i < r->n; i++)
        counts[r->f[i].severity]++;
    if (r->n == 0) {
        buf_puts(out, "No findings: nothing in this window needs attention.\n");
        return;
    }
    buf_printf(out, "%d finding%s (%d critical, %d warning, %d info)\n", r->n, r->n == 1 ? "" : "s",
               counts[DIAG_CRITICAL], counts[DIAG_WARNING], counts[DIAG_INFO]);
    /* groups in the order of their worst finding: the report is sorted worst first */
    char names[MAX_GROUPS][64];
    int n_groups = 0;
    for (int i = 0; i < r->n && n_groups < MAX_GROUPS; i++) {
        char name[64];
        group_name(&r->f[i], name, sizeof name);
        int k = 0;
        while (k < n_groups && strcmp(names[k], name) != 0)
            k++;
        if (k == n_groups)
            snprintf(names[n_groups++], sizeof names[0], "%s", name);
    }
    for (int g = 0; g < n_groups; g++) {
        put_heading(out, names[g], r);
        for (int i = 0; i < r->n; i++) {
            char name[64];
            group_name(&r->f[i], name, sizeof name);
            if (strcmp(name, names[g]) == 0)
                diag_finding_put_text(out, &r->f[i], flags);
        }
    }
}
