/* alerts.c - the alert lines top shows in both modes (the local alert rules' through its pipeline,
 * local_plugins.c; a remote agent's /api/v1/alerts): sorted by state (firing before pending) then
 * severity, a pending one saying when it would fire. */
#include "top_model.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- alert lines ---- */

void top_alert_set(top_alert *a, const char *name, const char *severity, const char *state, const char *summary,
                   int64_t active_at_us, int64_t for_us)
{
    memset(a, 0, sizeof *a);
    if (severity && strcmp(severity, "critical") == 0)
        a->level = 2;
    else if (severity && strcmp(severity, "warning") == 0)
        a->level = 1;
    a->firing = !(state && strcmp(state, "pending") == 0);
    a->active_at_us = active_at_us;
    a->for_us = for_us;
    snprintf(a->name, sizeof a->name, "%s", name ? name : "?");
    snprintf(a->summary, sizeof a->summary, "%s", summary ? summary : "");
}

static int worse_first(const void *pa, const void *pb)
{
    const top_alert *a = pa, *b = pb;
    if (a->firing != b->firing)
        return b->firing - a->firing;
    if (a->level != b->level)
        return b->level - a->level;
    int r = strcmp(a->name, b->name);
    return r ? r : strcmp(a->summary, b->summary);
}

void top_alerts_sort(top_alert *a, int n)
{
    qsort(a, (size_t)n, sizeof *a, worse_first);
}

/* 45s, 4m10s, 1h05m */
static void short_duration(int64_t us, char *out, size_t n)
{
    long long s = us / 1000000;
    if (s >= 3600)
        snprintf(out, n, "%lldh%02lldm", s / 3600, s / 60 % 60);
    else if (s >= 60)
        snprintf(out, n, "%lldm%02llds", s / 60, s % 60);
    else
        snprintf(out, n, "%llds", s);
}

void top_alert_text(const top_alert *a, int64_t now_us, char *out, size_t n)
{
    static const char *tags[] = {"INFO", "WARN", "CRIT"};
    const char *tag = tags[a->level < 0 ? 0 : a->level > 2 ? 2 : a->level];
    const char *sep = a->summary[0] ? ": " : "";
    if (a->firing) {
        snprintf(out, n, "%s %s%s%s", tag, a->name, sep, a->summary);
        return;
    }
    char when[80], d[24];
    int64_t pending = a->active_at_us && now_us > a->active_at_us ? now_us - a->active_at_us : 0;
    if (a->for_us >= 0) {
        int64_t left = a->for_us - pending;
        short_duration(left, d, sizeof d);
        if (left >= 1000000)
            snprintf(when, sizeof when, "would fire in %s", d);
        else
            snprintf(when, sizeof when, "would fire at the next evaluation");
    } else if (a->active_at_us) {
        short_duration(pending, d, sizeof d);
        snprintf(when, sizeof when, "pending for %s, not firing yet", d);
    } else {
        snprintf(when, sizeof when, "not firing yet");
    }
    snprintf(out, n, "pending %s %s (%s)%s%s", tag, a->name, when, sep, a->summary);
}
