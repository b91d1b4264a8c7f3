/* engine_view.c - what readers see of the engine: snapshots, the /metrics series, /api/v1/alerts JSON. */
#include "engine.h"
#include "alert_json.h"
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static void free_strs(char **s, int n)
{
    for (int i = 0; s && i < n; i++)
        free(s[i]);
    free(s);
}

/* The names (or values) of l, copied; NULL when out of memory. */
static char **dup_names(const labels *l, int values)
{
    char **out = calloc((size_t)l->n + 1, sizeof *out);
    for (int i = 0; out && i < l->n; i++) {
        out[i] = strdup(values ? l->v[i].value : l->v[i].name);
        if (!out[i]) {
            free_strs(out, i);
            out = NULL;
        }
    }
    return out;
}

int alert_view_fill(alert_view *v, const active_alert *a)
{
    memset(v, 0, sizeof *v);
    const char *name = labels_get(&a->labels, "alertname");
    v->alertname = strdup(name ? name : "");
    v->nlabels = a->labels.n;
    v->label_names = dup_names(&a->labels, 0);
    v->label_values = dup_names(&a->labels, 1);
    v->nannotations = a->annotations.n;
    v->annotation_names = dup_names(&a->annotations, 0);
    v->annotation_values = dup_names(&a->annotations, 1);
    if (!v->alertname || !v->label_names || !v->label_values || !v->annotation_names || !v->annotation_values) {
        alert_view_free(v);
        memset(v, 0, sizeof *v);
        return -1;
    }
    v->state = a->state;
    v->active_at_us = a->active_at;
    v->fired_at_us = a->fired_at;
    v->resolved_at_us = a->resolved_at;
    v->ends_at_us = a->resolved_at ? a->resolved_at : a->valid_until;
    v->value = a->value;
    return 0;
}

void alert_view_free(alert_view *v)
{
    free(v->alertname);
    free_strs(v->label_names, v->nlabels);
    free_strs(v->label_values, v->nlabels);
    free_strs(v->annotation_names, v->nannotations);
    free_strs(v->annotation_values, v->nannotations);
}

void alert_list_free(alert_list *l)
{
    for (int i = 0; i < l->n; i++)
        alert_view_free(&l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

/* Appends a view of each alert of rt to out (room made by the caller). Returns 0, or -1 when out of memory. */
static int fill_views(alert_list *out, const rule_rt *rt)
{
    for (int i = 0; i < rt->n; i++) {
        if (alert_view_fill(&out->v[out->n], &rt->a[i]) != 0)
            return -1;
        out->n++;
    }
    return 0;
}

int alert_engine_snapshot(alert_engine *e, alert_list *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->mu);
    int total = e->retired.n;
    for (int g = 0; g < e->rs.ngroups; g++)
        for (int r = 0; r < e->rs.groups[g].nrules; r++)
            total += e->rt[g].rules[r].n;
    out->v = calloc((size_t)total + 1, sizeof *out->v);
    int rc = out->v ? 0 : -1;
    for (int g = 0; g < e->rs.ngroups && rc == 0; g++)
        for (int r = 0; r < e->rs.groups[g].nrules && rc == 0; r++)
            rc = fill_views(out, &e->rt[g].rules[r]);
    if (rc == 0)
        rc = fill_views(out, &e->retired); /* rules that are gone: their resolved alerts */
    pthread_mutex_unlock(&e->mu);
    if (rc != 0)
        alert_list_free(out);
    return rc;
}

const char *alert_state_name(alert_state s)
{
    return s == ALERT_FIRING ? "firing" : s == ALERT_PENDING ? "pending" : "inactive";
}

static const char *view_label(const alert_view *v, const char *name)
{
    for (int i = 0; i < v->nlabels; i++)
        if (strcmp(v->label_names[i], name) == 0)
            return v->label_values[i];
    return "";
}

/* Label values escaped as the Prometheus text format wants (\\, \", \n). */
static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            fputc('\\', f);
        if (*s == '\n') {
            fputs("\\n", f);
            continue;
        }
        fputc(*s, f);
    }
}

int alert_engine_write_metrics(alert_engine *e, FILE *f)
{
    alert_list l;
    if (alert_engine_snapshot(e, &l) != 0)
        return -1;
    int header = 0;
    for (int i = 0; i < l.n; i++) {
        const alert_view *v = &l.v[i];
        if (v->state == ALERT_INACTIVE)
            continue;
        if (!header++)
            fputs("# HELP gpuwatch_alert Alerts of gpuwatch's local rules that are pending or firing (as Prometheus' "
                  "ALERTS).\n"
                  "# TYPE gpuwatch_alert gauge\n",
                  f);
        const char *keys[] = {"alertname", "gpu", "severity"};
        fputs("gpuwatch_alert{", f);
        for (int k = 0; k < 3; k++) {
            fprintf(f, "%s=\"", keys[k]);
            put_escaped(f, view_label(v, keys[k]));
            fputs("\",", f);
        }
        if (*view_label(v, "pid")) {
            fputs("pid=\"", f);
            put_escaped(f, view_label(v, "pid"));
            fputs("\",", f);
        }
        fprintf(f, "alertstate=\"%s\"} 1\n", alert_state_name(v->state));
    }
    alert_list_free(&l);
    return ferror(f) ? -1 : 0;
}

char *alert_engine_json(alert_engine *e)
{
    alert_list l;
    if (alert_engine_snapshot(e, &l) != 0)
        return NULL;
    cJSON *root = cJSON_CreateObject();
    int ok = cJSON_AddStringToObject(root, "status", "success") != NULL;
    cJSON *data = cJSON_AddObjectToObject(root, "data");
    cJSON *arr = cJSON_AddArrayToObject(data, "alerts");
    cJSON *res = cJSON_AddArrayToObject(data, "resolved");
    ok = ok && arr && res;
    for (int i = 0; ok && i < l.n; i++)
        ok = alert_json_append(l.v[i].state != ALERT_INACTIVE ? arr : res, alert_json_api(&l.v[i]));
    char *s = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    alert_list_free(&l);
    return s;
}
