/* text.c - decoding and cleaning outside text (see text.h). */
#include "text.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

size_t gw_utf8_next(const char *s, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] < 0x80) {
        *cp = u[0];
        return 1;
    }
    int len = u[0] >= 0xF0 && u[0] < 0xF5 ? 4 : u[0] >= 0xE0 && u[0] < 0xF0 ? 3 : u[0] >= 0xC2 && u[0] < 0xE0 ? 2 : 0;
    uint32_t c = len == 4 ? u[0] & 0x07u : len == 3 ? u[0] & 0x0Fu : u[0] & 0x1Fu;
    for (int i = 1; i < len; i++) {
        if ((u[i] & 0xC0) != 0x80) {
            len = 0; /* cut short (a NUL ends it too) */
            break;
        }
        c = c << 6 | (u[i] & 0x3Fu);
    }
    if (!len || (len == 3 && (c < 0x800 || (c >= 0xD800 && c < 0xE000))) ||
        (len == 4 && (c < 0x10000 || c > 0x10FFFF))) {
        *cp = 0xFFFD; /* not UTF-8: one replacement character per byte */
        return 1;
    }
    *cp = c;
    return (size_t)len;
}

size_t gw_utf8_put(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

int gw_locale_utf8(void)
{
    const char *vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return strcasestr(v, "utf-8") || strcasestr(v, "utf8");
    }
    return 0;
}

static int is_control(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp < 0xA0);
}

char *gw_clean_text(char *s)
{
    char *out = s;
    for (const char *in = s; *in;) {
        uint32_t cp;
        size_t len = gw_utf8_next(in, &cp);
        int bad = is_control(cp) || (cp == 0xFFFD && len == 1 && (unsigned char)*in >= 0x80);
        if (bad) {
            *out++ = '?';
        } else {
            memmove(out, in, len);
            out += len;
        }
        in += len;
    }
    *out = 0;
    return s;
}

int gw_text_is_clean(const char *s)
{
    while (*s) {
        uint32_t cp;
        size_t len = gw_utf8_next(s, &cp);
        if ((is_control(cp) && cp != '\t') || (cp == 0xFFFD && len == 1 && (unsigned char)*s >= 0x80))
            return 0;
        s += len;
    }
    return 1;
}
