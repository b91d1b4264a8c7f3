/* session.c - backend opening with the exit-3 error line and simulation banner; --id selection; the
 * rounds of a report command (-f, -l). */
#include "session.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "options.h"
#include "ticker.h"

int session_open(sampler *s, const char *cmd, int banner)
{
    char err[256] = "";
    if (sampler_open(s, err, sizeof err) != BK_OK) {
        fprintf(stderr, "gpuwatch%s%s: %s\n", *cmd ? " " : "", cmd, err[0] ? err : "cannot open the GPU backend");
        return GW_EXIT_BACKEND;
    }
    if (banner && s->versions.simulated) {
        const char *scenario = getenv("GPUSIM_SCENARIO");
        fprintf(stderr, "SIMULATED GPUs (gpusim: %s)\n", scenario ? scenario : "default scenario");
    }
    return 0;
}

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

static int select_by_name(const sampler *s, const char *tok, size_t len, unsigned char *sel)
{
    int found = 0;
    for (int g = 0; g < s->count; g++) {
        const gpu_info *in = &s->gpus[g].info;
        int uuid = mset_has(&in->str_present, M_UUID) && strlen(in->str[M_UUID]) == len &&
                   strncasecmp(in->str[M_UUID], tok, len) == 0;
        int bus = mset_has(&in->str_present, M_PCI_BUS_ID) && bus_id_matches(in->str[M_PCI_BUS_ID], tok, len);
        if (uuid || bus) {
            sel[g] = 1;
            found = 1;
        }
    }
    return found;
}

/* "3" or "2-5"; -1 when tok is not that shape, -2 when out of range. */
static int select_by_index(const sampler *s, const char *tok, size_t len, unsigned char *sel)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, tok, len);
    buf[len] = 0;
    char *end;
    long a = strtol(buf, &end, 10), b = a;
    if (end == buf || a < 0)
        return -1;
    if (*end == '-') {
        char *p = end + 1;
        b = strtol(p, &end, 10);
        if (end == p || b < a)
            return -1;
    }
    if (*end)
        return -1;
    if (b >= s->count)
        return -2;
    for (long i = a; i <= b; i++)
        sel[i] = 1;
    return 0;
}

int session_select(const sampler *s, const char *cmd, const char *ids, unsigned char *sel)
{
    memset(sel, ids ? 0 : 1, (size_t)s->count);
    if (!ids)
        return 0;
    if (!*ids)
        return cli_usage_error(cmd, "--id: empty GPU list");
    for (const char *p = ids; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (!select_by_name(s, p, len, sel)) {
            int rc = select_by_index(s, p, len, sel);
            if (rc == -2)
                return cli_usage_error(cmd, "--id: no GPU '%.*s' (%d GPU%s: 0-%d)", (int)len, p, s->count,
                                       s->count == 1 ? "" : "s", s->count - 1);
            if (rc != 0)
                return cli_usage_error(cmd, "--id: '%.*s' is not a GPU index, range, UUID or PCI bus id", (int)len, p);
        }
        p = end ? end + 1 : p + len;
    }
    return 0;
}

int session_rounds(const char *cmd, const cli_opts *o, session_round_fn round, void *ctx)
{
    if (o->loop_s > 0)
        ticker_install_signals(); /* before anything is read: an early Ctrl-C still ends the loop cleanly */
    sampler s;
    int rc = session_open(&s, cmd, 1);
    if (rc != 0)
        return rc;
    unsigned char *sel = calloc((size_t)s.count + 1, 1);
    FILE *out = stdout;
    if (!sel) {
        rc = 1;
    } else if (session_select(&s, cmd, o->ids, sel) != 0) {
        rc = GW_EXIT_USAGE;
    } else if (o->file && !(out = fopen(o->file, "w"))) {
        fprintf(stderr, "gpuwatch%s%s: -f: cannot write '%s': %s\n", *cmd ? " " : "", cmd, o->file, strerror(errno));
        out = stdout;
        rc = 1;
    } else {
        rc = round(&s, sel, out, ctx);
        if (o->loop_s > 0 && rc == 0) {
            ticker t;
            ticker_start(&t, o->loop_s);
            while (rc == 0 && ticker_wait(&t) == 0)
                rc = round(&s, sel, out, ctx);
            if (ticker_stopped())
                rc = 0;
        }
    }
    if (out != stdout && fclose(out) != 0)
        rc = 1;
    free(sel);
    sampler_close(&s);
    return rc;
}
