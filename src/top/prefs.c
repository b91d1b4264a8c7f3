/* prefs.c - top's preferences file, $XDG_CONFIG_HOME/gpuwatch/top.yaml (~/.config/gpuwatch/top.yaml):
 * the choices a user makes with keys (interval, layout, charts, sort, colours, ASCII) and the ones
 * worth writing down once (temperature thresholds, top's diagnosis settings). Read through the
 * document layer at start: a problem is reported as FILE:LINE:COL and the file's values are left
 * out as a whole (the defaults apply). Written whole when a key changes a preference: to a
 * temporary file renamed over the old one, so a reader never sees half a file. */
#include "top_ui.h"
#include "buf.h"
#include "doc.h"
#include "util.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const layout_names[] = {"auto", "full", "compact"};
static const char *const chart_names[] = {"selected", "all", "off"};

void top_prefs_defaults(top_prefs *p)
{
    memset(p, 0, sizeof *p);
    p->interval_s = 1;
    p->layout = LAYOUT_AUTO;
    p->chart = CHART_SELECTED;
    p->sort_col = PC_GPUMEM;
    p->sort_desc = 1;
    p->th = (top_thresholds){80, 90, 95, 105};
    p->color = 1;
    diag_settings_defaults(&p->diag);
}

int top_prefs_path(char *out, size_t n)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int len;
    if (xdg && xdg[0] == '/') /* a relative XDG_CONFIG_HOME is to be ignored (XDG base directories) */
        len = snprintf(out, n, "%s/gpuwatch/top.yaml", xdg);
    else if (home && home[0])
        len = snprintf(out, n, "%s/.config/gpuwatch/top.yaml", home);
    else
        return -1;
    return len > 0 && (size_t)len < n ? 0 : -1;
}

const char *top_sort_name(proc_col c, char *out, size_t n)
{
    snprintf(out, n, "%s", proc_col_names[c]);
    for (char *s = out; *s; s++)
        *s = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
    return out;
}

/* One of names[] at key; -1 (reported) when it is something else. 0 when the key is absent. */
static int opt_choice(gw_doc *d, const doc_node *root, const char *key, const char *const *names, int count, int *out)
{
    doc_node *v = doc_get(d, root, key);
    if (doc_is_null(v))
        return 0;
    const char *s = doc_string(d, v, key);
    if (!s)
        return -1;
    for (int i = 0; i < count; i++)
        if (strcasecmp(s, names[i]) == 0) {
            *out = i;
            return 0;
        }
    char list[200] = "";
    for (int i = 0; i < count; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? (i == count - 1 ? " or " : ", ") : "",
                 names[i]);
    return doc_error(d, v, "%s: expected %s, got '%s'", key, list, s);
}

static void opt_temp(gw_doc *d, const doc_node *root, const char *key, double *out)
{
    double v = *out;
    if (doc_opt_number(d, root, NULL, key, &v) != 0)
        return;
    if (v < 0 || v > 200) {
        doc_error(d, doc_get(d, root, key), "%s: expected degrees C from 0 to 200, got '%g'", key, v);
        return;
    }
    *out = v;
}

int top_prefs_read(const char *path, top_prefs *p, errlist *errs)
{
    static const char *const keys[] = {"interval",  "layout",    "charts",   "sort",     "sort_order",
                                       "temp_warn", "temp_crit", "hbm_warn", "hbm_crit", "ascii",
                                       "color",     "diagnosis", NULL};
    top_prefs_defaults(p);
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return 0; /* no file yet: the defaults */
    gw_doc d = {0};
    int before = errs->n;
    if (doc_load_file(&d, path, errs) != 0)
        return -1;
    top_prefs r;
    top_prefs_defaults(&r);
    doc_node *root = doc_root(&d);
    if (root && doc_check_map(&d, root, "top.yaml", keys) == 0) {
        if (doc_opt_duration(&d, root, NULL, "interval", &r.interval_s) == 0 &&
            (r.interval_s < 0.1 || r.interval_s > 60))
            doc_error(&d, doc_get(&d, root, "interval"), "interval: expected 0.1s to 60s, got '%g'", r.interval_s);
        int v = (int)r.layout;
        if (opt_choice(&d, root, "layout", layout_names, 3, &v) == 0)
            r.layout = (layout_pref)v;
        v = (int)r.chart;
        if (opt_choice(&d, root, "charts", chart_names, CHART_MODES, &v) == 0)
            r.chart = (chart_mode)v;
        const char *cols[PC_COUNT];
        char names[PC_COUNT][16];
        for (int c = 0; c < PC_COUNT; c++)
            cols[c] = top_sort_name((proc_col)c, names[c], sizeof names[c]);
        v = (int)r.sort_col;
        if (opt_choice(&d, root, "sort", cols, PC_COUNT, &v) == 0)
            r.sort_col = (proc_col)v;
        static const char *const orders[] = {"asc", "desc"};
        opt_choice(&d, root, "sort_order", orders, 2, &r.sort_desc);
        opt_temp(&d, root, "temp_warn", &r.th.temp_warn);
        opt_temp(&d, root, "temp_crit", &r.th.temp_crit);
        opt_temp(&d, root, "hbm_warn", &r.th.hbm_warn);
        opt_temp(&d, root, "hbm_crit", &r.th.hbm_crit);
        if (r.th.temp_warn > r.th.temp_crit)
            doc_error(&d, doc_get(&d, root, "temp_warn"), "temp_warn: %g is above temp_crit %g", r.th.temp_warn,
                      r.th.temp_crit);
        if (r.th.hbm_warn > r.th.hbm_crit)
            doc_error(&d, doc_get(&d, root, "hbm_warn"), "hbm_warn: %g is above hbm_crit %g", r.th.hbm_warn,
                      r.th.hbm_crit);
        doc_opt_bool(&d, root, NULL, "ascii", &r.ascii);
        doc_opt_bool(&d, root, NULL, "color", &r.color);
        diag_settings_read(&d, doc_get(&d, root, "diagnosis"), &r.diag);
    }
    doc_free(&d);
    if (errs->n > before) {
        errlist_sort(errs);
        return -1;
    }
    *p = r;
    return 0;
}

int top_prefs_text(const top_prefs *p, gw_buf *b)
{
    char sort[16], interval[32];
    buf_puts(b, "# gpuwatch top preferences (docs/top.md). top writes this file when a key changes one;\n"
                "# command-line options win over it for one run.\n");
    gw_format_duration(p->interval_s, interval, sizeof interval);
    buf_printf(b, "interval: %s\nlayout: %s         # auto, full or compact\n", interval, layout_names[p->layout]);
    buf_printf(b, "charts: %s       # selected, all or off\n", chart_names[p->chart]);
    buf_printf(b, "sort: %s\nsort_order: %s\n", top_sort_name(p->sort_col, sort, sizeof sort),
               p->sort_desc ? "desc" : "asc");
    buf_printf(b, "temp_warn: %g\ntemp_crit: %g\nhbm_warn: %g\nhbm_crit: %g\n", p->th.temp_warn, p->th.temp_crit,
               p->th.hbm_warn, p->th.hbm_crit);
    buf_printf(b, "ascii: %s\ncolor: %s\n", p->ascii ? "true" : "false", p->color ? "true" : "false");
    buf_puts(b, "diagnosis:           # top's own diagnosis (docs/diagnosis.md)\n");
    diag_settings_write(&p->diag, b);
    return b->oom ? -1 : 0;
}

/* mkdir -p of the folders above path. */
static int make_parents(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *s = dir + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return -1;
        *s = '/';
    }
    return 0;
}

int top_prefs_write(const char *path, const top_prefs *p, char *why, size_t n)
{
    gw_buf b;
    buf_init(&b);
    char real[PATH_MAX], tmp[PATH_MAX + 32];
    if (realpath(path, real)) /* a link (dotfiles kept elsewhere): its target is rewritten, the link stays */
        path = real;
    int rc = -1;
    struct stat sb;
    if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        snprintf(why, n, "%s: not a regular file", path);
        goto out;
    }
    if (top_prefs_text(p, &b) != 0) {
        snprintf(why, n, "out of memory");
        goto out;
    }
    if (make_parents(path) != 0) {
        snprintf(why, n, "%s: %s", path, strerror(errno));
        goto out;
    }
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkostemp(tmp, O_CLOEXEC); /* a new file of ours, never one through a link */
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(why, n, "%s: %s", tmp, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        goto out;
    }
    int bad = fchmod(fd, 0644) != 0;
    bad |= fwrite(b.data, 1, b.len, f) != b.len;
    bad |= fflush(f) != 0 || fsync(fd) != 0; /* on disk before the rename makes it the file */
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        snprintf(why, n, "%s: %s", path, strerror(errno));
        unlink(tmp);
        goto out;
    }
    rc = 0;
out:
    buf_release(&b);
    return rc;
}
