/* template.c - compiling and expanding annotation templates (a small subset of Go templates). */
#include "template.h"
#include "util.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Returns 0, or -1 when out of memory (t is as it was). */
static int add_seg(tmpl *t, int kind, const char *text, size_t len, const char *fmt)
{
    tmpl_seg *p = realloc(t->segs, (size_t)(t->n + 1) * sizeof *p);
    if (!p)
        return -1;
    t->segs = p;
    tmpl_seg s = {kind, strndup(text, len), fmt ? strdup(fmt) : NULL};
    if (!s.text || (fmt && !s.fmt)) {
        free(s.text);
        free(s.fmt);
        return -1;
    }
    t->segs[t->n++] = s;
    return 0;
}

#define TMPL_MAX_WIDTH 64 /* the widest printf width or precision a template may ask for */
#define OOM -2            /* parse_ref / parse_action: out of memory (-1: not a valid action) */

/* A printf format with exactly one conversion among d i f F e E g G s v x and %% escapes. */
static int format_ok(const char *f)
{
    int conversions = 0;
    for (const char *p = f; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        p++;
        while (*p && strchr("-+ #0", *p))
            p++;
        /* width and precision are bounded: "%999999999d" would have printf build gigabytes */
        int width = 0, prec = 0;
        while (isdigit((unsigned char)*p) && width <= TMPL_MAX_WIDTH)
            width = width * 10 + (*p++ - '0');
        if (*p == '.') {
            p++;
            while (isdigit((unsigned char)*p) && prec <= TMPL_MAX_WIDTH)
                prec = prec * 10 + (*p++ - '0');
        }
        if (width > TMPL_MAX_WIDTH || prec > TMPL_MAX_WIDTH)
            return 0;
        if (!*p || !strchr("difFeEgGsvx", *p))
            return 0;
        conversions++;
    }
    return conversions == 1;
}

/* Skips blanks; returns the next token's start and sets *len (a quoted string is one token). */
static const char *token(const char *p, const char *end, size_t *len)
{
    while (p < end && isspace((unsigned char)*p))
        p++;
    const char *q = p;
    if (q < end && *q == '"') {
        q++;
        while (q < end && *q != '"')
            q += (*q == '\\' && q + 1 < end) ? 2 : 1;
        if (q < end)
            q++;
    } else {
        while (q < end && !isspace((unsigned char)*q))
            q++;
    }
    *len = (size_t)(q - p);
    return p;
}

/* One reference to data: $value, .Value, $labels.NAME, .Labels.NAME. Returns 0, -1 if p is none, or OOM. */
static int parse_ref(tmpl *t, const char *p, size_t n, const char *fmt)
{
    if ((n == 6 && memcmp(p, "$value", 6) == 0) || (n == 6 && memcmp(p, ".Value", 6) == 0))
        return add_seg(t, TS_VALUE, "", 0, fmt) == 0 ? 0 : OOM;
    const char *pre[] = {"$labels.", ".Labels."};
    for (int i = 0; i < 2; i++) {
        size_t m = strlen(pre[i]);
        if (n > m && memcmp(p, pre[i], m) == 0) {
            for (size_t k = m; k < n; k++)
                if (!isalnum((unsigned char)p[k]) && p[k] != '_')
                    return -1;
            return add_seg(t, TS_LABEL, p + m, n - m, fmt) == 0 ? 0 : OOM;
        }
    }
    return -1;
}

/* Returns 0, -1 with a message in err, or OOM. */
static int parse_action(tmpl *t, const char *p, const char *end, char *err, size_t errlen)
{
    size_t n1, n2, n3;
    const char *t1 = token(p, end, &n1);
    const char *t2 = token(t1 + n1, end, &n2);
    if (n1 == 6 && memcmp(t1, "printf", 6) == 0) {
        const char *t3 = token(t2 + n2, end, &n3);
        if (n2 < 2 || t2[0] != '"' || t2[n2 - 1] != '"' || n3 == 0) {
            snprintf(err, errlen, "printf needs a quoted format and one argument");
            return -1;
        }
        size_t rest;
        token(t3 + n3, end, &rest);
        char fmt[64];
        if (n2 - 2 >= sizeof fmt || rest) {
            snprintf(err, errlen, "printf takes one short format and one argument");
            return -1;
        }
        memcpy(fmt, t2 + 1, n2 - 2);
        fmt[n2 - 2] = 0;
        if (!format_ok(fmt)) {
            snprintf(err, errlen,
                     "printf format \"%s\" must hold exactly one of %%d %%f %%e %%g %%s %%v %%x "
                     "(width and precision at most %d)",
                     fmt, TMPL_MAX_WIDTH);
            return -1;
        }
        int rc = parse_ref(t, t3, n3, fmt);
        if (rc == -1)
            snprintf(err, errlen, "printf argument must be $value or $labels.NAME");
        return rc;
    }
    int rc = -1;
    if (n1 == 8 && memcmp(t1, "humanize", 8) == 0 && n2)
        rc = parse_ref(t, t2, n2, "humanize");
    else if (n1 == 18 && memcmp(t1, "humanizePercentage", 18) == 0 && n2 == 6 && memcmp(t2, "$value", 6) == 0)
        rc = add_seg(t, TS_PERCENT, "", 0, "%.4g%%") == 0 ? 0 : OOM;
    else if (n1 && n2 == 0)
        rc = parse_ref(t, t1, n1, NULL);
    if (rc == -1)
        snprintf(err, errlen,
                 "unsupported template action \"{{%.*s}}\" (use $value, $labels.NAME, printf \"FMT\" $value)",
                 (int)(end - p), p);
    return rc;
}

int tmpl_compile(tmpl *t, const char *src, char *err, size_t errlen, int *err_offset)
{
    memset(t, 0, sizeof *t);
    const char *p = src;
    while (*p) {
        const char *open = strstr(p, "{{");
        if (!open) {
            if (add_seg(t, TS_TEXT, p, strlen(p), NULL) != 0)
                goto oom;
            break;
        }
        if (open > p && add_seg(t, TS_TEXT, p, (size_t)(open - p), NULL) != 0)
            goto oom;
        const char *close = strstr(open + 2, "}}");
        if (!close) {
            snprintf(err, errlen, "unclosed \"{{\" in template");
            *err_offset = (int)(open - src);
            tmpl_free(t);
            return -1;
        }
        const char *a = open + 2, *b = close;
        if (a < b && *a == '-')
            a++; /* {{- and -}} trim markers: accepted, not trimming */
        if (b > a && b[-1] == '-')
            b--;
        int rc = parse_action(t, a, b, err, errlen);
        if (rc == OOM)
            goto oom;
        if (rc != 0) {
            *err_offset = (int)(open - src);
            tmpl_free(t);
            return -1;
        }
        p = close + 2;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    *err_offset = -1;
    tmpl_free(t);
    return -1;
}

/* Appends s to a growing string. Returns 0, or -1 when out of memory (*out is as it was). */
static int append(char **out, size_t *len, const char *s)
{
    size_t m = strlen(s);
    char *p = realloc(*out, *len + m + 1);
    if (!p)
        return -1;
    memcpy(p + *len, s, m + 1);
    *out = p;
    *len += m;
    return 0;
}

/* Prometheus' humanize: 4 significant digits and an SI prefix (1.235M, 12.5m). */
static void humanize(double v, char *buf, size_t n)
{
    static const char *const big[] = {"", "k", "M", "G", "T", "P", "E", "Z", "Y"};
    static const char *const small[] = {"", "m", "u", "n", "p", "f", "a", "z", "y"};
    int i = 0;
    if (v == 0 || isnan(v) || isinf(v)) {
        snprintf(buf, n, "%.4g", v);
        return;
    }
    if (fabs(v) >= 1) {
        while (fabs(v) >= 1000 && i < 8) {
            v /= 1000;
            i++;
        }
        snprintf(buf, n, "%.4g%s", v, big[i]);
    } else {
        while (fabs(v) < 1 && i < 8) {
            v *= 1000;
            i++;
        }
        snprintf(buf, n, "%.4g%s", v, small[i]);
    }
}

static void format_arg(const char *fmt, const char *str, double num, int is_num, char *buf, size_t n)
{
    const char *conv = fmt;
    for (const char *p = fmt; *p; p++)
        if (*p == '%') {
            if (p[1] == '%') {
                p++;
                continue;
            }
            conv = p + strcspn(p + 1, "difFeEgGsvx") + 1;
            break;
        }
    char fmtbuf[72];
    snprintf(fmtbuf, sizeof fmtbuf, "%s", fmt);
    char *c = fmtbuf + (conv - fmt);
    double d = is_num ? num : (str ? strtod(str, NULL) : 0);
    if (*c == 'd' || *c == 'i' || *c == 'x') {
        *c = *c == 'x' ? 'x' : 'd';
        memmove(c + 2, c, strlen(c) + 1);
        c[0] = 'l';
        c[1] = 'l';
        snprintf(buf, n, fmtbuf, (long long)llround(d));
    } else if (*c == 's' || *c == 'v') {
        char v[64];
        if (is_num)
            gw_format_number(num, v, sizeof v);
        *c = 's';
        snprintf(buf, n, fmtbuf, is_num ? v : (str ? str : ""));
    } else {
        snprintf(buf, n, fmtbuf, d);
    }
}

char *tmpl_expand(const tmpl *t, const labels *l, double value)
{
    char *out = NULL;
    size_t len = 0;
    if (append(&out, &len, "") != 0)
        return NULL;
    for (int i = 0; i < t->n; i++) {
        const tmpl_seg *s = &t->segs[i];
        char buf[512];
        if (s->kind == TS_TEXT) {
            if (append(&out, &len, s->text) != 0)
                goto oom;
            continue;
        }
        const char *str = s->kind == TS_LABEL ? labels_get(l, s->text) : NULL;
        if (s->fmt && strcmp(s->fmt, "humanize") == 0)
            humanize(s->kind == TS_VALUE ? value : (str ? strtod(str, NULL) : 0), buf, sizeof buf);
        else if (s->kind == TS_PERCENT)
            format_arg(s->fmt, NULL, value * 100, 1, buf, sizeof buf);
        else if (s->fmt)
            format_arg(s->fmt, str, value, s->kind == TS_VALUE, buf, sizeof buf);
        else if (s->kind == TS_VALUE)
            gw_format_number(value, buf, sizeof buf);
        else
            snprintf(buf, sizeof buf, "%s", str ? str : "");
        if (append(&out, &len, buf) != 0)
            goto oom;
    }
    return out;
oom:
    free(out);
    return NULL;
}

void tmpl_free(tmpl *t)
{
    for (int i = 0; i < t->n; i++) {
        free(t->segs[i].text);
        free(t->segs[i].fmt);
    }
    free(t->segs);
    t->segs = NULL;
    t->n = 0;
}
