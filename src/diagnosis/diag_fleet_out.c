/* diag_fleet_out.c - a fleet's report as JSON and as text (diag_fleet_json, diag_fleet_text). */
#include "diag_fleet.h"
#include "diag_render.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_time(cJSON *o, const char *key, uint64_t t_us)
{
    char s[40];
    diag_format_time(t_us, s, sizeof s);
    cJSON_AddStringToObject(o, key, s);
}

/* A list separated by "; " as a JSON array of strings. */
static void add_list(cJSON *o, const char *key, const char *list)
{
    cJSON *arr = cJSON_AddArrayToObject(o, key);
    char buf[1200];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *tok = strtok_r(buf, ";", &save); arr && tok; tok = strtok_r(NULL, ";", &save)) {
        while (*tok == ' ')
            tok++;
        cJSON_AddItemToArray(arr, cJSON_CreateString(tok));
    }
}

char *diag_fleet_json(const diag_fleet *fl, int pretty)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    add_time(root, "from", fl->from_us);
    add_time(root, "to", fl->to_us);
    cJSON_AddNumberToObject(root, "hosts", fl->hosts_read);
    cJSON_AddNumberToObject(root, "gpus", fl->ngpus);
    cJSON_AddNumberToObject(root, "gpu_hours_lost", round(diag_fleet_gpu_hours(fl) * 1000) / 1000);
    add_list(root, "missing", fl->missing);
    add_list(root, "not_run", fl->not_run);
    cJSON *arr = cJSON_AddArrayToObject(root, "findings");
    for (int i = 0; arr && i < fl->n; i++) {
        cJSON *item = diag_finding_to_json(&fl->f[i].f);
        if (!item)
            continue;
        cJSON_AddStringToObject(item, "host", fl->hosts[fl->f[i].host]);
        cJSON_AddNumberToObject(item, "gpu_hours_lost", round(fl->f[i].gpu_hours * 1000) / 1000);
        cJSON_AddItemToArray(arr, item);
    }
    char *cj = pretty ? cJSON_Print(root) : cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!cj)
        return NULL;
    char *out = strdup(cj);
    cJSON_free(cj);
    return out;
}

void diag_fleet_text(const diag_fleet *fl, gw_buf *out, unsigned flags)
{
    int counts[3] = {0};
    for (int i = 0; i < fl->n; i++)
        counts[fl->f[i].f.severity]++;
    buf_printf(out,
               "fleet: %d host%s, %d GPU%s, %d finding%s (%d critical, %d warning, %d info), %.2f GPU-hours lost\n",
               fl->hosts_read, fl->hosts_read == 1 ? "" : "s", fl->ngpus, fl->ngpus == 1 ? "" : "s", fl->n,
               fl->n == 1 ? "" : "s", counts[DIAG_CRITICAL], counts[DIAG_WARNING], counts[DIAG_INFO],
               diag_fleet_gpu_hours(fl));
    if (fl->missing[0])
        buf_printf(out, "missing series: %s\n", fl->missing);
    if (fl->not_run[0])
        buf_printf(out, "not run: %s\n", fl->not_run);
    if (fl->n == 0)
        buf_puts(out, "\nNo findings: nothing in this range needs attention.\n");
    for (int i = 0; i < fl->n; i++) {
        const diag_fleet_finding *ff = &fl->f[i];
        buf_printf(out, "\n%s, GPU", fl->hosts[ff->host]);
        for (int k = 0; k < ff->f.n_gpus; k++)
            buf_printf(out, "%s%d", k ? "," : " ", ff->f.gpus[k]);
        buf_printf(out, ": %.2f GPU-hours lost\n", ff->gpu_hours);
        diag_finding_put_text(out, &ff->f, flags);
    }
}
