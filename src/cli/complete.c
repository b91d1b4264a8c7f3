/* complete.c - the word lists behind shell completion (`gpuwatch --complete WHAT`): field names
 * from the catalog, compute-app fields, -q sections and output formats, one a line, so that the
 * bash and zsh scripts (completions/) never carry a copy of them. */
#include "complete.h"
#include <string.h>
#include "catalog.h"
#include "query_fields.h"
#include "query_procs.h"
#include "smi_fields.h"
#include "smi_report.h"

static void print_list(FILE *f, const char *list)
{
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        fprintf(f, "%.*s\n", (int)len, p);
        p = end ? end + 1 : NULL;
    }
}

static void fields(FILE *f)
{
    for (size_t i = 0; i < sizeof qfield_pseudo / sizeof qfield_pseudo[0]; i++)
        fprintf(f, "%s\n", qfield_pseudo[i].name);
    for (int id = 0; id < M_COUNT; id++) {
        const metric_def *d = catalog_get((metric_id)id);
        fprintf(f, "%s\n", d->field);
        print_list(f, d->aliases);
    }
    for (int i = 0; i < smi_na_count; i++) {
        fprintf(f, "%s\n", smi_na_fields[i].name);
        if (smi_na_fields[i].alias)
            fprintf(f, "%s\n", smi_na_fields[i].alias);
    }
}

/* --format values: the command's formats, and csv with nvidia-smi's noheader/nounits. */
static void formats(FILE *f, const char *cmd)
{
    static const char *const csv[] = {"csv", "csv,noheader", "csv,nounits", "csv,noheader,nounits"};
    if (cmd && strcmp(cmd, "query") == 0)
        print_list(f, "table,json");
    else if (cmd && (strcmp(cmd, "dmon") == 0 || strcmp(cmd, "pmon") == 0))
        print_list(f, "plain,json");
    for (size_t i = 0; i < sizeof csv / sizeof csv[0]; i++)
        fprintf(f, "%s\n", csv[i]);
}

int complete_words(const char *what, const char *cmd, FILE *f)
{
    if (strcmp(what, "fields") == 0)
        fields(f);
    else if (strcmp(what, "apps-fields") == 0)
        proc_fields_names(f);
    else if (strcmp(what, "sections") == 0)
        smi_report_sections(f);
    else if (strcmp(what, "formats") == 0)
        formats(f, cmd);
    else
        return -1;
    return 0;
}
