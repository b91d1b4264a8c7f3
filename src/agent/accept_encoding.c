/* accept_encoding.c - Accept-Encoding parsing: comma-separated codings, case-insensitive, optional ;q=. */
#include "accept_encoding.h"
#include <stddef.h>
#include <strings.h>

static int is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* The q-value of one parameter list ("; q=0.5; x=y"), as 1 (above 0) or 0; 1 when absent. A value
 * with no digit is ignored; otherwise it is zero exactly when every digit is 0 ("0", "0.000"). */
static int q_of(const char *p, const char *end)
{
    int q = 1;
    while (p < end) {
        while (p < end && (*p == ';' || is_space(*p)))
            p++;
        if (p + 1 < end && (*p == 'q' || *p == 'Q') && p[1] == '=') {
            int digits = 0, nonzero = 0;
            for (p += 2; p < end && *p != ';'; p++) {
                if (*p >= '0' && *p <= '9') {
                    digits = 1;
                    nonzero |= *p != '0';
                }
            }
            if (digits)
                q = nonzero;
        }
        while (p < end && *p != ';')
            p++;
    }
    return q;
}

int accept_gzip(const char *header)
{
    if (!header)
        return 0;
    int gzip = -1, star = -1; /* -1: not listed; else its q as 0 / 1 */
    const char *p = header;
    while (*p) {
        const char *end = p;
        while (*end && *end != ',')
            end++;
        while (p < end && is_space(*p))
            p++;
        const char *name = p;
        while (p < end && *p != ';' && !is_space(*p))
            p++;
        size_t n = (size_t)(p - name);
        int q = q_of(p, end);
        if ((n == 4 && strncasecmp(name, "gzip", 4) == 0) || (n == 6 && strncasecmp(name, "x-gzip", 6) == 0))
            gzip = gzip == 0 ? 0 : q; /* an explicit refusal wins */
        else if (n == 1 && *name == '*')
            star = q;
        p = *end ? end + 1 : end;
    }
    return gzip >= 0 ? gzip : star > 0;
}
