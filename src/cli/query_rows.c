/* query_rows.c - --query-remapped-rows and --query-retired-pages (query_rows.h). A GPU without row
 * remapping prints [N/A] in the remapped-row columns; a GPU that does not retire pages (row remapping
 * replaced it on Ampere and later) prints one row per cause with [N/A] address and time, as
 * nvidia-smi does on an H100. pending and failure print 0 or 1 here (Yes/No in --query-gpu), as
 * nvidia-smi's. */
#include "query_rows.h"
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "format.h"
#include "suggest.h"
#include "util.h"

#define ROWS_MAX_FIELDS 32
#define PAGES_MAX 1024

enum {
    F_TIMESTAMP,
    F_GPU_NAME,
    F_GPU_BUS_ID,
    F_GPU_SERIAL,
    F_GPU_UUID,
    F_COR,
    F_UNC,
    F_PENDING,
    F_FAILURE,
    F_ADDR,
    F_PAGE_TIME,
    F_CAUSE,
    F_N
};

static const struct {
    const char *name;
    char kind; /* 0 both, 'r' remapped rows, 'p' retired pages */
    const char *help;
} cols[F_N] = {
    [F_TIMESTAMP] = {"timestamp", 0, "The time of the query, \"YYYY/MM/DD HH:MM:SS.msec\" (local time)."},
    [F_GPU_NAME] = {"gpu_name", 0, "The product name of the GPU."},
    [F_GPU_BUS_ID] = {"gpu_bus_id", 0, "PCI bus id of the GPU, domain:bus:device.function in hex."},
    [F_GPU_SERIAL] = {"gpu_serial", 0, "Serial number of the GPU's board ([N/A] on GeForce)."},
    [F_GPU_UUID] = {"gpu_uuid", 0, "UUID of the GPU."},
    [F_COR] = {"remapped_rows.correctable", 'r', "Rows remapped for correctable errors."},
    [F_UNC] = {"remapped_rows.uncorrectable", 'r', "Rows remapped for uncorrectable errors."},
    [F_PENDING] = {"remapped_rows.pending", 'r', "1 when a remapping waits for the GPU's reset, else 0."},
    [F_FAILURE] = {"remapped_rows.failure", 'r', "1 when a remapping failed (no spare row left), else 0."},
    [F_ADDR] = {"retired_pages.address", 'p', "Address of a retired page."},
    [F_PAGE_TIME] = {"retired_pages.timestamp", 'p', "When the page was retired."},
    [F_CAUSE] = {"retired_pages.cause", 'p',
                 "Why: Single Bit ECC (multiple single bit errors) or Double Bit ECC (a double bit error)."},
};

static int in_kind(int c, int kind)
{
    return !cols[c].kind || cols[c].kind == kind;
}

static const char *option_name(int kind)
{
    return kind == 'r' ? "--query-remapped-rows" : "--query-retired-pages";
}

/* The field ids of list; -1 after a usage error. */
static int parse(const char *cmd, int kind, const char *list, int *ids)
{
    int n = 0;
    if (!list || !*list) {
        cli_usage_error(cmd, "%s: empty field list", option_name(kind));
        return -1;
    }
    for (const char *next = list; *next;) {
        size_t len;
        const char *p = cli_list_item(&next, &len);
        int c = 0;
        while (c < F_N && !(in_kind(c, kind) && strlen(cols[c].name) == len && strncmp(cols[c].name, p, len) == 0))
            c++;
        if (c == F_N) {
            char word[GW_SUGGEST_LEN], hint[GW_SUGGEST_LEN + 32];
            snprintf(word, sizeof word, "%.*s", (int)len, p);
            gw_suggest s;
            gw_suggest_init(&s, word);
            for (int k = 0; k < F_N; k++)
                if (in_kind(k, kind))
                    gw_suggest_add(&s, cols[k].name);
            cli_usage_error(cmd, "field \"%s\" is not a valid field to query for %s%s", word, option_name(kind),
                            gw_suggest_suffix(&s, hint, sizeof hint));
            return -1;
        }
        if (n >= ROWS_MAX_FIELDS) {
            cli_usage_error(cmd, "%s: more than %d fields", option_name(kind), ROWS_MAX_FIELDS);
            return -1;
        }
        ids[n++] = c;
    }
    return n;
}

int query_rows_check(const char *cmd, const cli_opts *o)
{
    int ids[ROWS_MAX_FIELDS];
    return parse(cmd, o->rows_kind, o->rows, ids) < 0 ? CLI_USAGE : 0;
}

void query_rows_help(FILE *f, int kind)
{
    fprintf(f, "List of valid properties to query for the switch \"%s\":\n\n", option_name(kind));
    for (int c = 0; c < F_N; c++)
        if (in_kind(c, kind))
            fprintf(f, "\"%s\"\n%s\n\n", cols[c].name, cols[c].help);
}

/* What a row is about: the GPU, its sample (remapped rows) or a page and its cause. */
typedef struct row {
    const gpu_info *gpu;
    const gpu_sample *smp;
    const gpu_list_item *page; /* NULL: the GPU does not retire pages */
    int dbe;
    uint64_t t_us;
} row;

static const char *remap_cell(char *buf, size_t n, const row *r, metric_id id)
{
    double v;
    if (r->smp->status == GPU_LOST)
        return FMT_LOST;
    if (!sample_get(r->smp, id, &v))
        return FMT_NA;
    snprintf(buf, n, "%.0f", v);
    return buf;
}

static const char *cell(char *buf, size_t n, int c, const row *r)
{
    const gpu_info *g = r->gpu;
    metric_id str = c == F_GPU_NAME ? M_NAME : c == F_GPU_BUS_ID ? M_PCI_BUS_ID : c == F_GPU_SERIAL ? M_SERIAL : M_UUID;
    switch (c) {
    case F_TIMESTAMP: fmt_timestamp(buf, n, r->t_us); return buf;
    case F_GPU_NAME:
    case F_GPU_BUS_ID:
    case F_GPU_SERIAL:
    case F_GPU_UUID: return mset_has(&g->str_present, str) ? g->str[str] : FMT_NA;
    case F_COR: return remap_cell(buf, n, r, M_REMAP_COR);
    case F_UNC: return remap_cell(buf, n, r, M_REMAP_UNC);
    case F_PENDING: return remap_cell(buf, n, r, M_REMAP_PENDING);
    case F_FAILURE: return remap_cell(buf, n, r, M_REMAP_FAILURE);
    case F_ADDR:
        if (!r->page)
            return FMT_NA;
        snprintf(buf, n, "0x%016llx", (unsigned long long)r->page->value);
        return buf;
    case F_PAGE_TIME:
        if (!r->page || !r->page->t_us)
            return FMT_NA;
        fmt_timestamp(buf, n, r->page->t_us);
        return buf;
    default: return r->dbe ? "Double Bit ECC" : "Single Bit ECC";
    }
}

static void put_row(gw_buf *b, const int *ids, int nf, const row *r)
{
    char text[96];
    for (int i = 0; i < nf; i++) {
        if (i)
            buf_puts(b, ", ");
        buf_puts(b, cell(text, sizeof text, ids[i], r));
    }
    buf_puts(b, "\n");
}

int query_rows(sampler *s, const unsigned char *sel, const cli_opts *o, FILE *out, int header)
{
    static gpu_sample smp;
    static gpu_list_item pages[PAGES_MAX];
    int ids[ROWS_MAX_FIELDS];
    int nf = parse("query", o->rows_kind, o->rows, ids);
    if (nf < 0)
        return CLI_USAGE;
    gw_buf b = {0};
    if (header && !o->noheader)
        for (int i = 0; i < nf; i++)
            buf_printf(&b, "%s%s", cols[ids[i]].name, i + 1 < nf ? ", " : "\n");
    uint64_t now = gw_now_us();
    metric_set want = {{0}};
    mset_add(&want, M_REMAP_COR);
    mset_add(&want, M_REMAP_UNC);
    mset_add(&want, M_REMAP_PENDING);
    mset_add(&want, M_REMAP_FAILURE);
    for (int g = 0; g < s->count; g++) {
        if (!sel[g])
            continue;
        row r = {.gpu = &s->gpus[g].info, .smp = &smp, .t_us = now};
        if (o->rows_kind == 'r') {
            sampler_read(s, g, &want, &smp);
            put_row(&b, ids, nf, &r);
            continue;
        }
        memset(&smp, 0, sizeof smp);
        for (int dbe = 0; dbe < 2; dbe++) {
            r.dbe = dbe;
            int n = sampler_read_list(s, g, dbe ? GPU_LIST_RETIRED_DBE : GPU_LIST_RETIRED_SBE, 0, pages, PAGES_MAX);
            r.page = NULL;
            if (n < 0)
                put_row(&b, ids, nf, &r);
            for (int k = 0; k < n; k++) {
                r.page = &pages[k];
                put_row(&b, ids, nf, &r);
            }
        }
    }
    int rc = b.oom || (b.len && fwrite(b.data, 1, b.len, out) != b.len);
    buf_release(&b);
    return rc;
}
