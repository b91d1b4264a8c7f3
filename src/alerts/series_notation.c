/* series_notation.c - expanding promtool's input series notation (see series_notation.h). */
#include "series_notation.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Returns 0, or SERIES_OOM (s holds the values before). */
static int push(series_values *s, double v, int present)
{
    double *nv = realloc(s->v, (size_t)(s->n + 1) * sizeof *nv);
    if (nv)
        s->v = nv;
    unsigned char *np = nv ? realloc(s->present, (size_t)(s->n + 1)) : NULL;
    if (!np)
        return SERIES_OOM;
    s->present = np;
    s->v[s->n] = v;
    s->present[s->n] = (unsigned char)present;
    s->n++;
    return 0;
}

/* A decimal number (no hex, so "0x5" is 0 repeated): sign, digits, fraction, exponent. */
static const char *number(const char *p, double *out)
{
    const char *q = p;
    if (*q == '-' || *q == '+')
        q++;
    const char *digits = q;
    while (isdigit((unsigned char)*q))
        q++;
    if (*q == '.') {
        q++;
        while (isdigit((unsigned char)*q))
            q++;
    }
    if (q == digits || (q == digits + 1 && *digits == '.'))
        return NULL;
    if ((*q == 'e' || *q == 'E') &&
        (isdigit((unsigned char)q[1]) || ((q[1] == '-' || q[1] == '+') && isdigit((unsigned char)q[2])))) {
        q += 2;
        while (isdigit((unsigned char)*q))
            q++;
    }
    char buf[64];
    size_t len = (size_t)(q - p);
    if (len >= sizeof buf)
        return NULL;
    memcpy(buf, p, len);
    buf[len] = 0;
    *out = strtod(buf, NULL);
    return q;
}

static const char *count(const char *p, long *n)
{
    if (!isdigit((unsigned char)*p))
        return NULL;
    char *end;
    *n = strtol(p, &end, 10);
    return *n > 1000000 ? NULL : end;
}

/* Returns 0, -1 for a bad token, or SERIES_OOM. */
static int token(series_values *s, const char *t)
{
    long n;
    if (strcmp(t, "_") == 0 || strcmp(t, "stale") == 0)
        return push(s, 0, 0);
    int rc = 0;
    if (strncmp(t, "_x", 2) == 0) {
        const char *e = count(t + 2, &n);
        if (!e || *e)
            return -1;
        for (long i = 0; i < n && rc == 0; i++)
            rc = push(s, 0, 0);
        return rc;
    }
    double a, b = 0;
    const char *p = number(t, &a);
    if (!p)
        return -1;
    if (*p == 0)
        return push(s, a, 1);
    if (*p == '+' || *p == '-') {
        int neg = *p == '-';
        p = number(p + 1, &b);
        if (!p)
            return -1;
        if (neg)
            b = -b;
    }
    if (*p != 'x')
        return -1;
    p = count(p + 1, &n);
    if (!p || *p)
        return -1;
    for (long i = 0; i <= n && rc == 0; i++)
        rc = push(s, a + b * (double)i, 1);
    return rc;
}

int series_expand(const char *text, series_values *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const char *p = text;
    while (*p) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        const char *e = p;
        while (*e && !isspace((unsigned char)*e))
            e++;
        char t[96];
        size_t len = (size_t)(e - p);
        int rc = -1;
        if (len < sizeof t) {
            memcpy(t, p, len);
            t[len] = 0;
            rc = token(out, t);
        }
        if (rc != 0) {
            if (rc == SERIES_OOM)
                snprintf(err, errlen, "out of memory");
            else
                snprintf(err, errlen, "bad value '%.*s' (use a, axn, a+bxn, a-bxn, _, _xn)", (int)(len < 60 ? len : 60),
                         p);
            series_values_free(out);
            return rc;
        }
        p = e;
    }
    return 0;
}

void series_values_free(series_values *s)
{
    free(s->v);
    free(s->present);
    memset(s, 0, sizeof *s);
}
