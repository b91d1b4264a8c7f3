/* engine_carry.c - what an engine hands on: its alerts to the engine rebuilt at a reload (those of
 * every rule whose identity did not change), its state as records for the history, and that state
 * back after a restart (docs/alerts.md, "Reload and restart"). */
#include "engine.h"
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* A rule of an engine with its identity; taken: matched with a rule of the other engine, claimed:
 * counted as the earlier version of a changed rule. */
typedef struct rule_slot {
    char key[RULE_KEY_MAX];
    int g, r;
    int taken, claimed;
} rule_slot;

/* Every rule of e, in group then rule order (*n of them); NULL when out of memory. */
static rule_slot *rule_slots(const alert_engine *e, int *n)
{
    rule_slot *s = calloc((size_t)ruleset_count(&e->rs) + 1, sizeof *s);
    *n = 0;
    for (int g = 0; s && g < e->rs.ngroups; g++)
        for (int r = 0; r < e->rs.groups[g].nrules; r++) {
            rule_key(&e->rs.groups[g], &e->rs.groups[g].rules[r], s[*n].key, sizeof s[*n].key);
            s[*n].g = g;
            s[(*n)++].r = r;
        }
    return s;
}

static rule_rt *slot_rt(alert_engine *e, const rule_slot *s)
{
    return &e->rt[s->g].rules[s->r];
}

static int same_name(const alert_engine *a, const rule_slot *sa, const alert_engine *b, const rule_slot *sb)
{
    const rule_group *ga = &a->rs.groups[sa->g], *gb = &b->rs.groups[sb->g];
    return strcmp(ga->name, gb->name) == 0 && strcmp(ga->rules[sa->r].alert, gb->rules[sb->r].alert) == 0;
}

static int count_active(const rule_rt *rt)
{
    int n = 0;
    for (int i = 0; i < rt->n; i++)
        n += rt->a[i].state != ALERT_INACTIVE;
    return n;
}

/* Puts alert a (of a rule that is gone, taken from it) among e's retired alerts: a firing one is
 * resolved at now, a resolved one kept as it is, a pending one dropped. e->retired has room for it.
 * Returns 1 when a firing alert was resolved. */
static int retire(alert_engine *e, active_alert *a, int64_t now)
{
    if (a->state == ALERT_PENDING) {
        active_alert_free(a);
        return 0;
    }
    int resolved = a->state == ALERT_FIRING;
    if (resolved) {
        a->state = ALERT_INACTIVE;
        a->resolved_at = now;
        a->keep_firing_since = 0;
        a->changed = 1;
        alert_log_transition(a, "alert resolved", GW_LOG_INFO);
    }
    e->retired.a[e->retired.n++] = *a;
    e->retired_due = 0;
    return resolved;
}

/* Counts the rules of to and from that found no match: a rule of to is changed when a rule of from
 * left over has its group and name, else new; the rules of from left over after that are removed. */
static void classify(rule_slot *sf, int nf, const alert_engine *from, const rule_slot *st, int nt,
                     const alert_engine *to, alert_carry_counts *c)
{
    for (int j = 0; j < nt; j++) {
        if (st[j].taken)
            continue;
        int i = 0;
        while (i < nf && (sf[i].taken || sf[i].claimed || !same_name(from, &sf[i], to, &st[j])))
            i++;
        if (i < nf)
            sf[i].claimed = 1;
        c->rules_changed += i < nf;
        c->rules_new += i == nf;
    }
    for (int i = 0; i < nf; i++)
        c->rules_removed += !sf[i].taken && !sf[i].claimed;
}

int alert_engine_take_over(alert_engine *to, alert_engine *from, int64_t now_us, alert_carry_counts *c)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_lock(&from->mu);
    pthread_mutex_lock(&to->mu);
    int nf = 0, nt = 0, rc = -1;
    rule_slot *sf = rule_slots(from, &nf), *st = rule_slots(to, &nt);
    int most = to->retired.n + from->retired.n; /* every alert of from may be retired */
    for (int i = 0; sf && i < nf; i++)
        most += slot_rt(from, &sf[i])->n;
    if (!sf || !st || rule_rt_reserve(&to->retired, most) != 0)
        goto out;
    for (int j = 0; j < nt; j++)
        for (int i = 0; i < nf && !st[j].taken; i++) {
            if (sf[i].taken || strcmp(sf[i].key, st[j].key) != 0)
                continue;
            rule_rt moved = *slot_rt(from, &sf[i]); /* swapped: from frees what to held, if anything */
            *slot_rt(from, &sf[i]) = *slot_rt(to, &st[j]);
            *slot_rt(to, &st[j]) = moved;
            sf[i].taken = st[j].taken = 1;
            c->rules_kept++;
            c->alerts_kept += count_active(&moved);
        }
    classify(sf, nf, from, st, nt, to, c);
    for (int i = 0; i < nf; i++) {
        rule_rt *rt = slot_rt(from, &sf[i]);
        for (int k = 0; !sf[i].taken && k < rt->n; k++)
            c->alerts_resolved += retire(to, &rt->a[k], now_us);
        if (!sf[i].taken)
            rt->n = 0;
    }
    for (int k = 0; k < from->retired.n; k++)
        to->retired.a[to->retired.n++] = from->retired.a[k];
    from->retired.n = 0;
    to->retired_due = 0;
    free(to->findings.v);
    to->findings = from->findings;
    memset(&from->findings, 0, sizeof from->findings);
    to->states_changed = 1;
    rc = 0;
out:
    pthread_mutex_unlock(&to->mu);
    pthread_mutex_unlock(&from->mu);
    free(sf);
    free(st);
    return rc;
}

/* ---- records ---- */

/* l as a JSON object, malloc'ed; NULL when out of memory. */
static char *labels_json(const labels *l)
{
    cJSON *o = cJSON_CreateObject();
    int ok = o != NULL;
    for (int i = 0; ok && i < l->n; i++)
        ok = cJSON_AddStringToObject(o, l->v[i].name, l->v[i].value) != NULL;
    char *s = ok ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return s;
}

/* A label's text, copied ("" when absent). */
static char *label_copy(const labels *l, const char *name)
{
    const char *v = labels_get(l, name);
    return strdup(v ? v : "");
}

/* The gpu label as an index, -1 when absent or not one. */
static int gpu_label(const labels *l)
{
    const char *v = labels_get(l, "gpu");
    char *end;
    long g = v && *v ? strtol(v, &end, 10) : -1;
    return v && *v && !*end && g >= 0 && g < 4096 ? (int)g : -1;
}

/* Fills o from alert a of rule ru, whose identity is key. Returns 0, or -1 when out of memory (o
 * holds what was copied). */
static int record_of(alert_record *o, const active_alert *a, const rule *ru, const char *key)
{
    o->rule = strdup(key);
    o->labels = labels_json(&a->labels);
    o->annotations = labels_json(&a->annotations);
    o->name = label_copy(&a->labels, "alertname");
    o->severity = label_copy(&a->labels, "severity");
    o->summary = label_copy(&a->annotations, "summary");
    o->gpu = gpu_label(&a->labels);
    o->for_us = ru->for_us;
    o->firing = a->state == ALERT_FIRING;
    o->active_at_us = a->active_at;
    o->fired_at_us = a->fired_at;
    o->last_sent_at_us = a->last_sent_at;
    o->valid_until_us = a->valid_until;
    o->keep_firing_since_us = a->keep_firing_since;
    o->value = a->value;
    return o->rule && o->labels && o->annotations && o->name && o->severity && o->summary ? 0 : -1;
}

int alert_engine_records(alert_engine *e, alert_records *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->mu);
    int total = 0;
    for (int g = 0; g < e->rs.ngroups; g++)
        for (int r = 0; r < e->rs.groups[g].nrules; r++)
            total += count_active(&e->rt[g].rules[r]);
    out->alerts = calloc((size_t)total + 1, sizeof *out->alerts);
    out->findings = calloc((size_t)e->findings.n + 1, sizeof *out->findings);
    int rc = out->alerts && out->findings ? 0 : -1;
    for (int g = 0; rc == 0 && g < e->rs.ngroups; g++)
        for (int r = 0; rc == 0 && r < e->rs.groups[g].nrules; r++) {
            const rule_rt *rt = &e->rt[g].rules[r];
            char key[RULE_KEY_MAX];
            if (count_active(rt))
                rule_key(&e->rs.groups[g], &e->rs.groups[g].rules[r], key, sizeof key);
            for (int i = 0; rc == 0 && i < rt->n; i++)
                if (rt->a[i].state != ALERT_INACTIVE)
                    rc = record_of(&out->alerts[out->nalerts++], &rt->a[i], &e->rs.groups[g].rules[r], key);
        }
    for (int i = 0; rc == 0 && i < e->findings.n; i++) {
        finding_record *f = &out->findings[out->nfindings++];
        f->gpu = e->findings.v[i].gpu;
        f->level = e->findings.v[i].level;
        snprintf(f->detector, sizeof f->detector, "%s", e->findings.v[i].detector);
    }
    pthread_mutex_unlock(&e->mu);
    if (rc != 0)
        alert_records_free(out);
    return rc;
}

int alert_engine_take_changes(alert_engine *e)
{
    pthread_mutex_lock(&e->mu);
    int changed = e->states_changed;
    e->states_changed = 0;
    pthread_mutex_unlock(&e->mu);
    return changed;
}

/* ---- a restart ---- */

/* cJSON_Parse, whose NULL means "not JSON" and "out of memory" alike: a text that fails twice is
 * taken as not JSON, unless a copy of it cannot be allocated either (*oom). */
static cJSON *parse_json(const char *text, int *oom)
{
    cJSON *o = cJSON_Parse(text);
    if (!o)
        o = cJSON_Parse(text);
    if (!o) {
        void *probe = malloc(strlen(text) + 64);
        *oom = !probe;
        free(probe);
    }
    return o;
}

/* l (empty) takes the string pairs of a JSON object; as an identity (sorted) or in their order.
 * Returns 0, 1 when the text is not such an object (l empty), -1 when out of memory (l empty). */
static int labels_from_json(labels *l, const char *text, int sorted)
{
    memset(l, 0, sizeof *l);
    int oom = 0;
    cJSON *o = parse_json(text, &oom);
    if (oom)
        return -1;
    int rc = cJSON_IsObject(o) ? 0 : 1;
    const cJSON *items = rc == 0 ? o : NULL, *it;
    cJSON_ArrayForEach(it, items)
    {
        if (!cJSON_IsString(it) || !it->string || !*it->string || !it->valuestring) {
            rc = 1;
            break;
        }
        if ((sorted ? labels_set(l, it->string, it->valuestring) : labels_append(l, it->string, it->valuestring)) !=
            0) {
            rc = -1;
            break;
        }
    }
    cJSON_Delete(o);
    if (rc != 0)
        labels_free(l);
    return rc;
}

/* When a pending alert restored at how->now_us counts as active from: the time it was pending
 * before the outage counts, the outage does not, and it needs at least the grace period (its for,
 * if shorter) after the restart. */
static int64_t restored_active_at(int64_t active_at, int64_t for_us, const alert_restore *how)
{
    int64_t spent = how->last_seen_us - active_at;
    if (spent < 0)
        spent = 0;
    int64_t remaining = for_us - spent, least = how->grace_us < for_us ? how->grace_us : for_us;
    return how->now_us + (remaining > least ? remaining : least) - for_us;
}

/* One record back into e: into its rule's alerts when within the tolerance and the rule is there
 * (the first of that identity without an alert of these labels), else retired. Returns 0, or -1
 * when out of memory. */
static int restore_one(alert_engine *e, const rule_slot *slots, int n, const alert_record *rec,
                       const alert_restore *how, int within, alert_restore_counts *c)
{
    active_alert a;
    memset(&a, 0, sizeof a);
    int rc = labels_from_json(&a.labels, rec->labels, 1);
    if (rc == 0 && labels_from_json(&a.annotations, rec->annotations, 0) < 0)
        rc = -1;
    if (rc != 0 || !labels_get(&a.labels, "alertname")) {
        active_alert_free(&a);
        c->invalid += rc >= 0;
        return rc < 0 ? -1 : 0;
    }
    a.state = rec->firing ? ALERT_FIRING : ALERT_PENDING;
    a.active_at = rec->active_at_us;
    a.fired_at = rec->firing ? rec->fired_at_us : 0;
    a.last_sent_at = rec->last_sent_at_us;
    a.valid_until = rec->valid_until_us;
    a.keep_firing_since = rec->keep_firing_since_us;
    a.value = rec->value;
    rule_rt *rt = NULL;
    const rule *ru = NULL;
    for (int k = 0; within && !rt && k < n; k++)
        if (strcmp(slots[k].key, rec->rule) == 0 && !rule_rt_find(slot_rt(e, &slots[k]), &a.labels)) {
            rt = slot_rt(e, &slots[k]);
            ru = &e->rs.groups[slots[k].g].rules[slots[k].r];
        }
    if (!rt) {
        int resolved = retire(e, &a, how->now_us);
        c->resolved += resolved;
        c->dropped += !resolved;
        return 0;
    }
    if (rule_rt_reserve(rt, rt->n + 1) != 0) {
        active_alert_free(&a);
        return -1;
    }
    if (a.state == ALERT_PENDING)
        a.active_at = restored_active_at(a.active_at, ru->for_us, how);
    c->firing += a.state == ALERT_FIRING;
    c->pending += a.state == ALERT_PENDING;
    rt->a[rt->n++] = a;
    return 0;
}

int alert_engine_restore(alert_engine *e, const alert_records *saved, const alert_restore *how, alert_restore_counts *c)
{
    memset(c, 0, sizeof *c);
    int within = how->last_seen_us > 0 && how->now_us - how->last_seen_us < how->outage_tolerance_us;
    c->too_long = !within;
    pthread_mutex_lock(&e->mu);
    int n = 0;
    rule_slot *slots = rule_slots(e, &n);
    int rc = slots && rule_rt_reserve(&e->retired, e->retired.n + saved->nalerts) == 0 ? 0 : -1;
    for (int i = 0; rc == 0 && i < saved->nalerts; i++)
        rc = restore_one(e, slots, n, &saved->alerts[i], how, within, c);
    for (int i = 0; rc == 0 && within && i < saved->nfindings; i++) {
        const finding_record *fr = &saved->findings[i];
        if (finding_facts_get(&e->findings, fr->gpu, fr->detector, 0))
            continue; /* the diagnosis has said already */
        finding_fact *f = finding_facts_get(&e->findings, fr->gpu, fr->detector, 1);
        if (!f) {
            rc = -1;
            break;
        }
        f->level = fr->level;
        f->until_us = how->now_us + (how->grace_us > 0 ? how->grace_us : 1);
        c->findings++;
    }
    e->states_changed = 1;
    pthread_mutex_unlock(&e->mu);
    free(slots);
    return rc;
}
