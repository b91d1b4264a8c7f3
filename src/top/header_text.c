/* header_text.c - the header line (host, versions, GPU count, time), for the UI and snapshot. */
#include "top_ui.h"
#include <stdio.h>
#include <time.h>

void top_header_text(const top_model *m, char *out, size_t n)
{
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    /* A remote agent does not say which CUDA version its driver supports: left out then. */
    snprintf(out, n, "%s  driver %s%s%s  %d GPU%s  %s", m->host, m->versions.driver[0] ? m->versions.driver : "?",
             m->versions.cuda[0] ? "  CUDA " : "", m->versions.cuda, m->ngpus, m->ngpus == 1 ? "" : "s", when);
}
