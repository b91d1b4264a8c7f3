/* fleet_hosts.c - the agents `top --hosts` reads: the comma separated list of --hosts and the lines
 * of --hosts-file (one HOST:PORT a line, '#' comments), bounded in size and count, each address
 * checked as --host checks it, every problem of a file said at once as FILE:LINE:COL. */
#include "top_fleet.h"
#include "files.h"
#include "http_client.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fleet_hosts_add(fleet_hosts *h, const char *addr, const char *where, errlist *errs)
{
    char why[300];
    if (http_client_valid_host(addr, why, sizeof why) != 0) {
        errlist_add(errs, NULL, 0, 0, "%s: %s", where, why);
        return -1;
    }
    if (strlen(addr) >= FLEET_ADDR_LEN) {
        errlist_add(errs, NULL, 0, 0, "%s: an address of at most %d characters expected, got %zu", where,
                    FLEET_ADDR_LEN - 1, strlen(addr));
        return -1;
    }
    for (int i = 0; i < h->n; i++)
        if (strcmp(h->addr[i], addr) == 0) {
            errlist_add(errs, NULL, 0, 0, "%s: %s is listed twice", where, addr);
            return -1;
        }
    if (h->n >= FLEET_MAX_HOSTS) {
        errlist_add(errs, NULL, 0, 0, "%s: more than %d agents (one screen holds at most %d)", where, FLEET_MAX_HOSTS,
                    FLEET_MAX_HOSTS);
        return -1;
    }
    gw_strlcpy(h->addr[h->n++], addr, FLEET_ADDR_LEN);
    return 0;
}

int fleet_hosts_add_list(fleet_hosts *h, const char *list, errlist *errs)
{
    int bad = 0, item = 0;
    const char *p = list;
    do {
        char addr[FLEET_LINE_MAX], where[64];
        size_t len = strcspn(p, ",");
        item++;
        snprintf(where, sizeof where, "item %d", item);
        if (len >= sizeof addr) {
            errlist_add(errs, NULL, 0, 0, "%s: an address of at most %d characters expected", where,
                        FLEET_ADDR_LEN - 1);
            bad = 1;
        } else {
            memcpy(addr, p, len);
            addr[len] = 0;
            bad |= fleet_hosts_add(h, addr, where, errs) != 0;
        }
        p += len;
    } while (*p++ == ',');
    return bad ? -1 : 0;
}

/* s without the blanks around it (in place). */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

int fleet_hosts_parse(fleet_hosts *h, const char *file, const char *text, size_t len, errlist *errs)
{
    int bad = 0, line = 0, before = h->n;
    size_t off = 0;
    if (len > FLEET_FILE_MAX) {
        errlist_add(errs, file, 0, 0, "a hosts file of at most %u bytes expected, got %zu", FLEET_FILE_MAX, len);
        return -1;
    }
    while (off < len) {
        const char *start = text + off;
        const char *nl = memchr(start, '\n', len - off);
        size_t n = nl ? (size_t)(nl - start) : len - off;
        off += n + (nl ? 1 : 0);
        line++;
        char buf[FLEET_LINE_MAX], where[4200];
        snprintf(where, sizeof where, "%s:%d:1", file, line);
        if (n >= sizeof buf) {
            errlist_add(errs, NULL, 0, 0, "%s: a line of at most %d bytes expected, got %zu", where, FLEET_LINE_MAX - 1,
                        n);
            bad = 1;
            continue;
        }
        if (memchr(start, 0, n)) {
            errlist_add(errs, NULL, 0, 0, "%s: a NUL byte: not a text file", where);
            bad = 1;
            continue;
        }
        memcpy(buf, start, n);
        buf[n] = 0;
        buf[strcspn(buf, "#")] = 0;
        char *addr = trim(buf);
        if (!*addr)
            continue;
        snprintf(where, sizeof where, "%s:%d:%d", file, line, (int)(addr - buf) + 1);
        if (fleet_hosts_add(h, addr, where, errs) != 0) {
            bad = 1;
            if (h->n >= FLEET_MAX_HOSTS)
                break; /* one message for a list too long, not one per line */
        }
    }
    if (!bad && h->n == before) {
        errlist_add(errs, file, 0, 0, "no HOST:PORT in the file (one a line, '#' starts a comment)");
        bad = 1;
    }
    return bad ? -1 : 0;
}

int fleet_hosts_read(fleet_hosts *h, const char *path, errlist *errs)
{
    char why[300];
    size_t len = 0;
    char *text = gw_read_file(path, FLEET_FILE_MAX, &len, why, sizeof why);
    if (!text) {
        errlist_add(errs, path, 0, 0, "%s", why);
        return -1;
    }
    int rc = fleet_hosts_parse(h, path, text, len, errs);
    free(text);
    return rc;
}

int fleet_hosts_check(const gw_opt *opt, const char *value, void *out, char *why, size_t n)
{
    errlist errs = {0};
    fleet_hosts *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    int rc = fleet_hosts_add_list(h, value, &errs);
    if (rc != 0)
        snprintf(why, n, "%s", errs.n ? errs.msg[0] : "a list of HOST:PORT expected");
    else
        *(const char **)gw_opt_dst(opt, out) = value;
    errlist_free(&errs);
    free(h);
    return rc;
}
