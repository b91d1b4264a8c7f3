/* gpu_list.c - GPU lists of the command lines (gpu_list.h): indexes, ranges, UUIDs, PCI bus ids. */
#include "gpu_list.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Bus ids compare without case; a short "BB:DD.F" or "DDDD:BB:DD.F" matches the full
 * "DDDDDDDD:BB:DD.F" when what it leaves out is zeros. */
static int bus_id_matches(const char *full, const char *want, size_t len)
{
    size_t flen = strlen(full);
    if (len == 0 || len > flen || strncasecmp(full + flen - len, want, len) != 0)
        return 0;
    size_t rest = flen - len; /* characters of full not given */
    int has_domain = memchr(want, ':', len) != memrchr(want, ':', len);
    if (rest == 0)
        return 1;
    if (!has_domain && full[--rest] != ':') /* "BB:DD.F": what is left is "<domain>:" */
        return 0;
    for (size_t i = 0; i < rest; i++)
        if (full[i] != '0')
            return 0;
    return 1;
}

static int select_by_name(int n, const gpu_ident *ids, const char *tok, size_t len, unsigned char *sel)
{
    int found = 0;
    for (int g = 0; ids && g < n; g++) {
        const char *uuid = ids[g].uuid, *bus = ids[g].bus_id;
        int by_uuid = uuid && *uuid && strlen(uuid) == len && strncasecmp(uuid, tok, len) == 0;
        int by_bus = bus && *bus && bus_id_matches(bus, tok, len);
        if (by_uuid || by_bus) {
            sel[g] = 1;
            found = 1;
        }
    }
    return found;
}

/* "3" or "2-5" into *a, *b; -1 when tok is not that shape. */
static int index_range(const char *tok, size_t len, long *a, long *b)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf || !isdigit((unsigned char)tok[0]))
        return -1;
    memcpy(buf, tok, len);
    buf[len] = 0;
    char *end;
    *a = *b = strtol(buf, &end, 10);
    if (*end == '-') {
        char *p = end + 1;
        if (!isdigit((unsigned char)*p))
            return -1;
        *b = strtol(p, &end, 10);
        if (*b < *a)
            return -1;
    }
    return *end ? -1 : 0;
}

/* A word that could name a GPU by UUID ("GPU-...", "MIG-...": it starts with a letter) or bus id
 * (with a ':'): letters, digits, '-', ':', '.'. */
static int name_shaped(const char *tok, size_t len)
{
    if (len == 0 || (!isalpha((unsigned char)tok[0]) && !memchr(tok, ':', len)))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)tok[i]) && !strchr("-:.", tok[i]))
            return 0;
    return 1;
}

static int not_a_gpu(const char *tok, size_t len, char *why, size_t whylen)
{
    snprintf(why, whylen, "'%.*s' is not a GPU index, range, UUID or PCI bus id", (int)len, tok);
    return -1;
}

int gpu_list_select(const char *list, int n, const gpu_ident *ids, unsigned char *sel, char *why, size_t whylen)
{
    memset(sel, list ? 0 : 1, (size_t)(n > 0 ? n : 0));
    if (!list)
        return 0;
    if (!*list) {
        snprintf(why, whylen, "empty GPU list");
        return -1;
    }
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        long a, b;
        if (select_by_name(n, ids, p, len, sel)) {
        } else if (index_range(p, len, &a, &b) != 0) {
            return not_a_gpu(p, len, why, whylen);
        } else if (b >= n) {
            if (n <= 0)
                snprintf(why, whylen, "no GPU '%.*s' (there is none)", (int)len, p);
            else
                snprintf(why, whylen, "no GPU '%.*s' (%d GPU%s: 0-%d)", (int)len, p, n, n == 1 ? "" : "s", n - 1);
            return -1;
        } else {
            for (long i = a; i <= b; i++)
                sel[i] = 1;
        }
        p = end ? end + 1 : p + len;
    }
    return 0;
}

int gpu_list_check(const gw_opt *opt, const char *value, void *out, char *why, size_t n)
{
    if (!value || !*value) {
        snprintf(why, n, "empty GPU list");
        return -1;
    }
    for (const char *p = value; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        long a, b;
        if (index_range(p, len, &a, &b) != 0 && !name_shaped(p, len))
            return not_a_gpu(p, len, why, n);
        p = end ? end + 1 : p + len;
    }
    *(const char **)gw_opt_dst(opt, out) = value;
    return 0;
}
