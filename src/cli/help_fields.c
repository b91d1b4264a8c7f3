/* help_fields.c - prints the metric catalog: for `query --help-fields` grouped by field prefix, and
 * for --help-query-gpu in nvidia-smi's layout (each field in quotes with its aliases, then its
 * description). */
#include "help_fields.h"
#include <string.h>
#include "catalog.h"
#include "query_fields.h"
#include "smi_fields.h"

/* Length of the group part of a field name ("memory" of "memory.used"); 0 = no dot. */
static size_t group_len(const char *field)
{
    const char *dot = strchr(field, '.');
    return dot ? (size_t)(dot - field) : 0;
}

static int same_group(const char *a, const char *b)
{
    size_t la = group_len(a), lb = group_len(b);
    return la == lb && strncmp(a, b, la) == 0;
}

static void print_field(FILE *f, const metric_def *d)
{
    char name[160], unit[16] = "";
    snprintf(name, sizeof name, "%s%s%s", d->field, d->aliases ? " or " : "", d->aliases ? d->aliases : "");
    for (char *c = name; *c; c++) /* aliases are comma separated in the catalog */
        if (*c == ',')
            *c = '/';
    if (d->unit)
        snprintf(unit, sizeof unit, "[%s]", d->unit);
    fprintf(f, "  %-46s %-8s %s\n", name, unit, d->help);
}

void help_fields_print(FILE *f)
{
    fprintf(f, "Fields for `gpuwatch query --fields F,F,...` (nvidia-smi --query-gpu names).\n"
               "\"all\" = every field except gpm.*: those rates need two readings 100 ms apart, so a query\n"
               "reads them only when they are named. Units are those of csv headers; --nounits drops them.\n"
               "Absent values print [N/A].\n\n"
               "general\n");
    for (size_t i = 0; i < sizeof qfield_pseudo / sizeof qfield_pseudo[0]; i++)
        fprintf(f, "  %-46s %-8s %s\n", qfield_pseudo[i].name, "", qfield_pseudo[i].help);
    unsigned char done[M_COUNT] = {0};
    for (int g = 0; g < M_COUNT; g++) {
        if (done[g])
            continue;
        const char *lead = metric_catalog[g].field;
        if (group_len(lead))
            fprintf(f, "\n%.*s\n", (int)group_len(lead), lead);
        for (int id = g; id < M_COUNT; id++)
            if (!done[id] && same_group(metric_catalog[id].field, lead)) {
                print_field(f, &metric_catalog[id]);
                done[id] = 1;
            }
    }
    fprintf(f, "\nnvidia-smi fields gpuwatch does not read (they print [N/A], with nvidia-smi's header)\n");
    for (int i = 0; i < smi_na_count; i++) {
        char name[160];
        const smi_na_field *n = &smi_na_fields[i];
        snprintf(name, sizeof name, "%s%s%s", n->name, n->alias ? " or " : "", n->alias ? n->alias : "");
        if (n->unit)
            fprintf(f, "  %-46s [%s]\n", name, n->unit);
        else
            fprintf(f, "  %s\n", name);
    }
}

/* "name" or "alias" or ... (the catalog's aliases are comma separated). */
static void quoted_names(FILE *f, const char *name, const char *aliases)
{
    fprintf(f, "\"%s\"", name);
    for (const char *a = aliases; a && *a;) {
        const char *end = strchr(a, ',');
        int len = end ? (int)(end - a) : (int)strlen(a);
        fprintf(f, " or \"%.*s\"", len, a);
        a = end ? end + 1 : a + len;
    }
    fputc('\n', f);
}

void help_fields_print_smi(FILE *f)
{
    fprintf(f, "List of valid properties to query for the switch \"--query-gpu\":\n\n");
    for (size_t i = 0; i < sizeof qfield_pseudo / sizeof qfield_pseudo[0]; i++) {
        quoted_names(f, qfield_pseudo[i].name, NULL);
        fprintf(f, "%s\n\n", qfield_pseudo[i].help);
    }
    for (int id = 0; id < M_COUNT; id++) {
        const metric_def *d = &metric_catalog[id];
        quoted_names(f, d->field, d->aliases);
        fprintf(f, "%s\n\n", d->help);
    }
    fprintf(f, "Section about nvidia-smi fields gpuwatch does not read properties\n"
               "They resolve and print nvidia-smi's header (with its unit) and the value [N/A].\n\n");
    for (int i = 0; i < smi_na_count; i++) {
        quoted_names(f, smi_na_fields[i].name, smi_na_fields[i].alias);
        fprintf(f, "Not read by gpuwatch: [N/A].\n\n");
    }
}
