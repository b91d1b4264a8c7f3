/* query_fields.c - parsing --fields against the catalog, and each field's header, cell and JSON value. */
#include "query_fields.h"
#include <stdio.h>
#include <string.h>
#include "format.h"
#include "options.h"
#include "smi_fields.h"

const char QF_DEFAULT[] = "index,name,pstate,temperature.gpu,utilization.gpu,utilization.memory,"
                          "memory.used,memory.total,power.draw,power.limit";

const qpseudo qfield_pseudo[2] = {
    {"timestamp", "The time of the query, \"YYYY/MM/DD HH:MM:SS.msec\" (local time)."},
    {"count", "The number of GPUs in the system."},
};

void qfields_offer_names(gw_suggest *s)
{
    catalog_offer_names(s);
    for (size_t i = 0; i < sizeof qfield_pseudo / sizeof qfield_pseudo[0]; i++)
        gw_suggest_add(s, qfield_pseudo[i].name);
    for (int i = 0; i < smi_na_count; i++) {
        gw_suggest_add(s, smi_na_fields[i].name);
        gw_suggest_add(s, smi_na_fields[i].alias);
    }
}

static int unknown_field(const char *cmd, const char *name)
{
    char hint[GW_SUGGEST_LEN + 32];
    gw_suggest s;
    gw_suggest_init(&s, name);
    qfields_offer_names(&s);
    return cli_usage_error(cmd, "field \"%s\" is not a valid field to query%s (see --help-fields)", name,
                           gw_suggest_suffix(&s, hint, sizeof hint));
}

static int add(qfields *q, qfield f)
{
    if (q->n >= QF_MAX)
        return -1;
    q->f[q->n++] = f;
    return 0;
}

int qfields_parse(const char *cmd, const char *list, qfields *out)
{
    out->n = 0;
    if (!list || !*list)
        return cli_usage_error(cmd, "--fields: empty field list");
    if (strcmp(list, "all") == 0) {
        /* GPM rates need two readings 100 ms apart: a snapshot names them to pay for the wait. */
        for (int id = 0; id < M_COUNT; id++)
            if (!(catalog_get((metric_id)id)->flags & MF_GPM))
                add(out, (qfield){QF_METRIC, catalog_get((metric_id)id), NULL});
        return 0;
    }
    for (const char *next = list; *next;) {
        size_t len;
        const char *p = cli_list_item(&next, &len);
        char name[128];
        if (len == 0 || len >= sizeof name)
            return cli_usage_error(cmd, "--fields: empty or too long field name in '%s'", list);
        memcpy(name, p, len);
        name[len] = 0;
        qfield f = {QF_METRIC, catalog_find(name), NULL};
        if (!f.d) {
            if (strcmp(name, qfield_pseudo[0].name) == 0)
                f.kind = QF_TIMESTAMP;
            else if (strcmp(name, qfield_pseudo[1].name) == 0)
                f.kind = QF_COUNT;
            else if ((f.na = smi_na_find(name)) != NULL)
                f.kind = QF_NA;
            else
                return unknown_field(cmd, name);
        }
        if (add(out, f) != 0)
            return cli_usage_error(cmd, "--fields: more than %d fields", QF_MAX);
    }
    return 0;
}

void qfields_want(const qfields *q, metric_set *want)
{
    memset(want, 0, sizeof *want);
    for (int i = 0; i < q->n; i++) {
        const metric_def *d = q->f[i].d;
        if (q->f[i].kind != QF_METRIC || metric_is_string(d->id) || d->id == M_INDEX)
            continue;
        mset_add(want, (d->flags & MF_BIT) ? d->parent : d->id);
    }
}

const char *qfield_name(const qfield *f)
{
    if (f->kind == QF_TIMESTAMP)
        return qfield_pseudo[0].name;
    if (f->kind == QF_COUNT)
        return qfield_pseudo[1].name;
    if (f->kind == QF_NA)
        return f->na->name;
    return f->d->field;
}

int qfield_is_numeric(const qfield *f)
{
    if (f->kind == QF_COUNT)
        return 1;
    if (f->kind == QF_TIMESTAMP || f->kind == QF_NA)
        return 0;
    metric_fmt m = f->d->fmt;
    return m == MF_INT || m == MF_FLOOR || m == MF_FIXED1 || m == MF_FIXED2;
}

void qfield_header(char *buf, size_t n, const qfield *f, int with_unit)
{
    if (f->kind == QF_METRIC)
        fmt_header(buf, n, f->d, with_unit);
    else if (f->kind == QF_NA && with_unit && f->na->unit)
        snprintf(buf, n, "%s [%s]", f->na->name, f->na->unit);
    else
        snprintf(buf, n, "%s", qfield_name(f));
}

void qfield_cell(char *buf, size_t n, const qfield *f, const qrow *r, int with_unit)
{
    if (f->kind == QF_TIMESTAMP)
        fmt_timestamp(buf, n, r->sample->t_us);
    else if (f->kind == QF_COUNT)
        snprintf(buf, n, "%d", r->count);
    else if (f->kind == QF_NA)
        snprintf(buf, n, "%s", r->sample->status == GPU_LOST ? FMT_LOST : FMT_NA);
    else
        fmt_cell(buf, n, f->d, r->info, r->sample, with_unit);
}

cJSON *qfield_json(const qfield *f, const qrow *r)
{
    char text[64];
    if (f->kind == QF_TIMESTAMP) {
        fmt_timestamp(text, sizeof text, r->sample->t_us);
        return cJSON_CreateString(text);
    }
    if (f->kind == QF_COUNT)
        return cJSON_CreateNumber(r->count);
    if (f->kind == QF_NA)
        return cJSON_CreateNull();
    return fmt_json(f->d, r->info, r->sample);
}
