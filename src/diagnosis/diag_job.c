/* diag_job.c - which processes form one job across GPUs: the same user, container and command
 * (the command line with a rank argument such as --local_rank=3 taken out, or the process name
 * when the command line is not visible). */
#include "diag_internal.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Copies cmd without the separators and digits that follow "rank" ("--local_rank=3", "RANK 3"). */
static void strip_rank(const char *cmd, char *out, size_t n)
{
    size_t k = 0;
    for (const char *p = cmd; *p && k + 1 < n; p++) {
        int after_rank = k >= 4 && strncasecmp(out + k - 4, "rank", 4) == 0;
        if (after_rank && (*p == '=' || *p == ' ' || *p == ':' || isdigit((unsigned char)*p)))
            continue;
        out[k++] = *p;
    }
    out[k] = 0;
}

void diag_job_key(const diag_proc *p, char *out, size_t n)
{
    char cmd[256];
    strip_rank(p->cmdline[0] ? p->cmdline : p->name, cmd, sizeof cmd);
    snprintf(out, n, "%s|%s|%s", p->user, p->container, cmd);
}
