/* labels.c - sorted label sets (see labels.h). */
#include "labels.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(labels *l)
{
    if (l->n < l->cap)
        return 0;
    int cap = l->cap ? l->cap * 2 : 8;
    label *p = realloc(l->v, (size_t)cap * sizeof *p);
    if (!p)
        return -1;
    l->v = p;
    l->cap = cap;
    return 0;
}

/* The pair's two strings, both or neither. */
static int pair_dup(label *p, const char *name, const char *value)
{
    p->name = strdup(name ? name : "");
    p->value = strdup(value ? value : "");
    if (p->name && p->value)
        return 0;
    free(p->name);
    free(p->value);
    return -1;
}

int labels_set(labels *l, const char *name, const char *value)
{
    int i = 0;
    while (i < l->n && strcmp(l->v[i].name, name) < 0)
        i++;
    int found = i < l->n && strcmp(l->v[i].name, name) == 0;
    if (!value || !*value) {
        if (found) {
            free(l->v[i].name);
            free(l->v[i].value);
            memmove(&l->v[i], &l->v[i + 1], (size_t)(l->n - i - 1) * sizeof *l->v);
            l->n--;
        }
        return 0;
    }
    if (found) {
        char *v = strdup(value);
        if (!v)
            return -1;
        free(l->v[i].value);
        l->v[i].value = v;
        return 0;
    }
    label p;
    if (grow(l) != 0 || pair_dup(&p, name, value) != 0)
        return -1;
    memmove(&l->v[i + 1], &l->v[i], (size_t)(l->n - i) * sizeof *l->v);
    l->v[i] = p;
    l->n++;
    return 0;
}

int labels_append(labels *l, const char *name, const char *value)
{
    if (grow(l) != 0 || pair_dup(&l->v[l->n], name, value) != 0)
        return -1;
    l->n++;
    return 0;
}

const char *labels_get(const labels *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i].name, name) == 0)
            return l->v[i].value;
    return NULL;
}

int labels_copy(labels *dst, const labels *src)
{
    memset(dst, 0, sizeof *dst);
    for (int i = 0; i < src->n; i++)
        if (labels_append(dst, src->v[i].name, src->v[i].value) != 0) {
            labels_free(dst);
            return -1;
        }
    return 0;
}

void labels_free(labels *l)
{
    for (int i = 0; i < l->n; i++) {
        free(l->v[i].name);
        free(l->v[i].value);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

int labels_equal(const labels *a, const labels *b)
{
    if (a->n != b->n)
        return 0;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->v[i].name, b->v[i].name) != 0 || strcmp(a->v[i].value, b->v[i].value) != 0)
            return 0;
    return 1;
}

char *labels_format(const labels *l, char *buf, size_t n)
{
    size_t off = 0;
    off += (size_t)snprintf(buf, n, "{");
    for (int i = 0; i < l->n && off < n; i++)
        off += (size_t)snprintf(buf + off, n - off, "%s%s=\"%s\"", i ? ", " : "", l->v[i].name, l->v[i].value);
    if (off < n)
        snprintf(buf + off, n - off, "}");
    return buf;
}
