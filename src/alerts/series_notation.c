/* series_notation.c - expanding promtool's input series notation (see series_notation.h). */
#include "series_notation.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for more values at once (growing by one per value made "1x1000000" quadratic: seconds),
 * and never past SERIES_MAX_VALUES in all. Returns 0, -1 past the limit, or SERIES_OOM. */
static int reserve(series_values *s, long more)
{
    if (more > SERIES_MAX_VALUES - s->n)
        return -1;
    if (more <= 0)
        return 0; /* realloc to 0 bytes would free the arrays ("_x0 _x0") */
    double *nv = realloc(s->v, (size_t)(s->n + more) * sizeof *nv);
    if (nv)
        s->v = nv;
    unsigned char *np = nv ? realloc(s->present, (size_t)(s->n + more)) : NULL;
    if (!np)
        return SERIES_OOM;
    s->present = np;
    return 0;
}

/* Appends a value to room made by reserve. */
static void push(series_values *s, double v, int present)
{
    s->v[s->n] = v;
    s->present[s->n] = (unsigned char)present;
    s->n++;
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
    int rc;
    if (strcmp(t, "_") == 0 || strcmp(t, "stale") == 0) {
        if ((rc = reserve(s, 1)) != 0)
            return rc;
        push(s, 0, 0);
        return 0;
    }
    if (strncmp(t, "_x", 2) == 0) {
        const char *e = count(t + 2, &n);
        if (!e || *e)
            return -1;
        if ((rc = reserve(s, n)) != 0)
            return rc;
        for (long i = 0; i < n; i++)
            push(s, 0, 0);
        return 0;
    }
    double a, b = 0;
    const char *p = number(t, &a);
    if (!p)
        return -1;
    if (*p == 0) {
        if ((rc = reserve(s, 1)) != 0)
            return rc;
        push(s, a, 1);
        return 0;
    }
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
    if ((rc = reserve(s, n + 1)) != 0)
        return rc;
    for (long i = 0; i <= n; i++)
        push(s, a + b * (double)i, 1);
    return 0;
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
                snprintf(err, errlen, "bad value '%.*s' (use a, axn, a+bxn, a-bxn, _, _xn; at most %d values)",
                         (int)(len < 60 ? len : 60), p, SERIES_MAX_VALUES);
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
