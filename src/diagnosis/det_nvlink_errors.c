/* det_nvlink_errors.c - nvlink_errors: an NVLink link of the GPU is failing, per link: its
 * data-link counters rise (CRC errors, replays: retransmissions, recoveries: the link retrained) or
 * it went down (up earlier in the window, or down while the same link is up on the other GPUs of
 * the same model). The levels are DCGM's NVLink health watch: replays, recoveries and a link down
 * fail (critical), CRC errors fail at 100 per second or more over a minute, fewer warn. */
#include "diag_internal.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    double inc[NVL_NKINDS]; /* counter increases in the window (a reset is not an increase) */
    double crc_per_s;       /* the fastest minute of CRC errors */
    int down, was_up;       /* went down in the window / was up at some point */
    int ever_up;            /* up at any reading */
    uint64_t first, last;   /* when something happened */
} link_state;

static void when(link_state *ls, uint64_t t)
{
    if (!ls->first || t < ls->first)
        ls->first = t;
    if (t > ls->last)
        ls->last = t;
}

/* Increases of a counter kept as a step series, and its fastest minute (per second). */
static double increases(const diag_series *s, double *per_s, link_state *ls)
{
    double inc = 0;
    for (int i = 1; i < s->n; i++) {
        if (s->v[i] <= s->v[i - 1])
            continue; /* a reset (driver reload) */
        inc += s->v[i] - s->v[i - 1];
        when(ls, s->t[i]);
    }
    if (per_s)
        *per_s = diag_counter_max_minute(s, NULL) / 60.0;
    return inc;
}

static void read_link(const diag_gpu *g, int l, link_state *ls)
{
    memset(ls, 0, sizeof *ls);
    const diag_series *st = &g->nvl[l][NVL_STATE];
    for (int i = 0; i < st->n; i++) {
        int up = st->v[i] >= 0.5;
        ls->ever_up |= up;
        if (!up && ls->was_up) {
            ls->down = 1;
            when(ls, st->t[i]);
        }
        ls->was_up |= up;
    }
    for (int k = NVL_CRC; k < NVL_NKINDS; k++)
        ls->inc[k] = increases(&g->nvl[l][k], k == NVL_CRC ? &ls->crc_per_s : NULL, ls);
}

/* A link that never came up while the same link is up on most other GPUs of this model. */
static int down_against_peers(const diag_ctx *c, int gpu, int l)
{
    int peers = 0, up = 0;
    for (int o = 0; o < c->n_views; o++) {
        const diag_gpu *g = c->views[o].g;
        if (o == gpu || !g->known || g->nvl[l][NVL_STATE].n == 0 || strcmp(g->name, c->views[gpu].g->name) != 0)
            continue;
        peers++;
        const diag_series *st = &g->nvl[l][NVL_STATE];
        up += st->v[st->n - 1] >= 0.5;
    }
    return peers > 0 && 2 * up > peers;
}

/* One GPU's bad links, summed. */
typedef struct {
    char links[sizeof(((diag_evidence *)0)->str)]; /* "link 3: went down crc +12; link 5: ..." */
    size_t len;
    double tot[NVL_NKINDS], max_crc, worst_score;
    int n_bad, n_down, critical, worst;
    uint64_t from, to;
} gpu_links;

/* Link l of GPU g into a, when it went down or its errors rose. */
static void add_link(const diag_ctx *c, int g, int l, gpu_links *a)
{
    const diag_config *cfg = c->cfg;
    const diag_gpu *gp = c->views[g].g;
    double min = cfg->nvlink_errors.min_errors;
    link_state ls;
    read_link(gp, l, &ls);
    int up_elsewhere = !ls.ever_up && gp->nvl[l][NVL_STATE].n > 0 && down_against_peers(c, g, l);
    int down = ls.down || up_elsewhere;
    int crc = ls.inc[NVL_CRC] >= min, replay = ls.inc[NVL_REPLAY] >= min, rec = ls.inc[NVL_RECOVERY] >= min;
    if (!down && !crc && !replay && !rec)
        return;
    a->n_bad++;
    a->n_down += down;
    a->critical |= down || replay || rec || ls.crc_per_s >= cfg->nvlink_errors.crc_per_s;
    for (int k = NVL_CRC; k < NVL_NKINDS; k++)
        a->tot[k] += ls.inc[k];
    a->max_crc = fmax(a->max_crc, ls.crc_per_s);
    double score = 1e6 * down + ls.inc[NVL_RECOVERY] * 1e3 + ls.inc[NVL_REPLAY] + ls.inc[NVL_CRC] / 100;
    if (score > a->worst_score) {
        a->worst_score = score;
        a->worst = l;
    }
    if (ls.first && (!a->from || ls.first < a->from))
        a->from = ls.first;
    a->to = ls.last > a->to ? ls.last : a->to;
    char *out = a->links;
    size_t n = sizeof a->links;
    if (a->len < n) {
        a->len += (size_t)snprintf(out + a->len, n - a->len, "%slink %d:", a->len ? "; " : "", l);
        if (down && a->len < n)
            a->len += (size_t)snprintf(out + a->len, n - a->len, " %s",
                                       up_elsewhere ? "down (up on the other GPUs)" : "went down");
        static const char *const name[NVL_NKINDS] = {NULL, "crc", "replay", "recovery"};
        for (int k = NVL_CRC; k < NVL_NKINDS && a->len < n; k++)
            if (ls.inc[k] > 0)
                a->len += (size_t)snprintf(out + a->len, n - a->len, " %s +%.0f", name[k], ls.inc[k]);
    }
}

/* The finding of GPU g's bad links: its evidence, advice and the chart of its worst link. */
static void report(diag_ctx *c, int g, const gpu_links *a)
{
    const diag_config *cfg = c->cfg;
    diag_finding *f = diag_emit(c, "nvlink_errors", a->critical ? DIAG_CRITICAL : DIAG_WARNING, g,
                                a->from ? a->from : c->from_us, a->to > a->from ? a->to : c->to_us);
    if (!f)
        return;
    const double *tot = a->tot;
    f->score = a->n_down * 100 + tot[NVL_RECOVERY] + tot[NVL_REPLAY] / 10 + a->max_crc / 100;
    diag_finding_str(f, "links", "%s", a->links);
    diag_finding_num(f, "link", a->worst, "");
    diag_finding_num(f, "bad_links", a->n_bad, "");
    diag_finding_num(f, "links_down", a->n_down, "");
    diag_finding_num(f, "crc_errors", tot[NVL_CRC], "");
    diag_finding_num(f, "replay_errors", tot[NVL_REPLAY], "");
    diag_finding_num(f, "recovery_errors", tot[NVL_RECOVERY], "");
    diag_finding_num(f, "max_crc_per_s", a->max_crc, "/s");
    diag_finding_summary(f, "GPU %d NVLink errors on %d link(s): %s", g, a->n_bad, a->links);
    diag_finding_advice(f,
                        "nvidia-smi nvlink -e -i %d shows each link's error counters, nvidia-smi nvlink -s -i %d "
                        "which links are up",
                        g, g);
    if (a->critical)
        diag_finding_advice(f, "NVIDIA's action for NVLink errors (XID 74, WORKFLOW_NVLINK_ERR): drain, then reset "
                               "the GPU or reboot the node to retrain the links");
    else
        diag_finding_advice(f,
                            "CRC errors under %.0f per second are corrected by replays (DCGM only warns): watch "
                            "whether they grow",
                            cfg->nvlink_errors.crc_per_s);
    diag_finding_advice(f, "An error at one end can be the far end's: check the GPU or NVSwitch on the same link; "
                           "if the errors return after a reset, the link hardware needs service (RMA)");
    /* the chart: the worst link's counter that rose most, else its state */
    static const char *const kname[NVL_NKINDS] = {"state", "errors.crc", "errors.replay", "errors.recovery"};
    int k = NVL_STATE;
    for (int j = NVL_CRC; j < NVL_NKINDS; j++)
        if (tot[j] > 0 && (k == NVL_STATE || tot[j] > tot[k]))
            k = j;
    char metric[48];
    snprintf(metric, sizeof metric, "nvlink.link%d.%s", a->worst, kname[k]);
    diag_chart_series(f, &c->views[g].g->nvl[a->worst][k], g, metric, "", c->from_us, c->to_us, 0);
}

void det_nvlink_errors(diag_ctx *c)
{
    for (int g = 0; g < c->n_views; g++) {
        const diag_gpu *gp = c->views[g].g;
        if (!gp->known)
            continue;
        gpu_links a = {.worst = -1, .worst_score = -1};
        for (int l = 0; l < NVLINK_NLINKS; l++)
            if (gp->nvl[l][NVL_STATE].n > 0 || gp->nvl[l][NVL_CRC].n > 0)
                add_link(c, g, l, &a);
        if (a.n_bad)
            report(c, g, &a);
    }
}
