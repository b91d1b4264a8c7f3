/* jsonout.c - JSON array output, one object per line. */
#include "jsonout.h"

int json_print_array(FILE *f, const cJSON *arr)
{
    int rc = 0;
    fputs("[", f);
    for (const cJSON *it = arr ? arr->child : NULL; it; it = it->next) {
        char *text = cJSON_PrintUnformatted(it);
        if (!text) {
            rc = -1;
            break;
        }
        fprintf(f, "\n%s%s", text, it->next ? "," : "");
        cJSON_free(text);
    }
    fputs(arr && arr->child ? "\n]\n" : "]\n", f);
    return rc;
}
