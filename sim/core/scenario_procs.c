/* scenario_procs.c - parses a gpu entry's `processes:` list (pid, name, type, memory and
 * utilization curves, lifetime). */
#include "scenario_internal.h"
#include "gen_parse.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const PROC_KEYS[] = {"pid",        "pid_stride", "name", "user", "container", "command", "type",
                                        "memory_mib", "sm",         "mem",  "enc",  "dec",       "pcie",    "start",
                                        "end",        "hang",       "gi",   "ci",   NULL};

void proc_free(sim_proc *p)
{
    gen_free(p->memory_mib);
    gen_free(p->sm);
    gen_free(p->mem);
    gen_free(p->enc);
    gen_free(p->dec);
    gen_free(p->pcie_rx);
    gen_free(p->pcie_tx);
}

static int parse_pid(gw_doc *d, const yaml_node_t *v, sim_proc *p)
{
    const char *s = doc_text(v);
    long l;
    if (s && strcmp(s, "self") == 0) {
        p->pid_kind = PID_SELF;
        return 0;
    }
    if (s && strcmp(s, "parent") == 0) {
        p->pid_kind = PID_PARENT;
        return 0;
    }
    if (s && (s[0] < '0' || s[0] > '9'))
        return doc_error(d, v, "expected a pid number, 'self' or 'parent', got '%s'", s);
    if (doc_int(d, v, NULL, 1, 4194304, &l))
        return -1;
    p->pid_kind = PID_NUMBER;
    p->pid = (unsigned)l;
    return 0;
}

static int parse_type(gw_doc *d, const yaml_node_t *v, sim_proc *p)
{
    const char *s = doc_text(v);
    if (s && strcmp(s, "C") == 0)
        p->type = SIM_PROC_COMPUTE;
    else if (s && strcmp(s, "G") == 0)
        p->type = SIM_PROC_GRAPHICS;
    else if (s && strcmp(s, "C+G") == 0)
        p->type = SIM_PROC_COMPUTE | SIM_PROC_GRAPHICS;
    else
        return doc_error(d, v, "expected a process type C, G or C+G, got '%s'", s ? s : "");
    return 0;
}

/* An optional generator key; *out stays NULL when absent. */
static int gen_key(gw_doc *d, const yaml_node_t *n, const char *key, gen_ctx *ctx, sim_gen **out)
{
    yaml_node_t *v = doc_get(d, n, key);
    if (!v)
        return 0;
    *out = gen_parse(d, v, ctx);
    return *out ? 0 : -1;
}

/* One direction of `pcie:`: a generator in GB/s (or in % with unit: "%"), or "N%" of the link. */
static int pcie_rate(gw_doc *d, const yaml_node_t *v, int pct_unit, gen_ctx *ctx, sim_gen **out, int *pct)
{
    const char *s = doc_text(v);
    size_t len = s ? strlen(s) : 0;
    *pct = pct_unit;
    if (len > 1 && s[len - 1] == '%') {
        char num[64];
        char *end;
        snprintf(num, sizeof num, "%.*s", (int)(len - 1), s);
        double x = strtod(num, &end);
        if (end == num || *end || !(x >= 0))
            return doc_error(d, v, "expected a rate in GB/s or a share of the link such as 50%%, got '%s'", s);
        *out = calloc(1, sizeof **out);
        if (!*out)
            return doc_error(d, v, "out of memory");
        (*out)->kind = GEN_CONST;
        (*out)->u.constant = x;
        *pct = 1;
        return 0;
    }
    *out = gen_parse(d, v, ctx);
    return *out ? 0 : -1;
}

/* `pcie: {rx: 12, tx: 3}` (GB/s), `{rx: 80%}` (of the link) or `{rx: ..., unit: "%"}`. */
static int parse_pcie(gw_doc *d, const yaml_node_t *n, sim_proc *p, gen_ctx *ctx)
{
    static const char *const keys[] = {"rx", "tx", "unit", NULL};
    yaml_node_t *v;
    int pct = 0;
    if (doc_check_map(d, n, "pcie", keys))
        return -1;
    if ((v = doc_get(d, n, "unit"))) {
        const char *u = doc_text(v);
        if (u && strcmp(u, "%") == 0)
            pct = 1;
        else if (!u || strcmp(u, "GB/s") != 0)
            return doc_error(d, v, "expected unit GB/s or %%, got '%s'", u ? u : "");
    }
    if ((v = doc_get(d, n, "rx")) && pcie_rate(d, v, pct, ctx, &p->pcie_rx, &p->pcie_rx_pct))
        return -1;
    if ((v = doc_get(d, n, "tx")) && pcie_rate(d, v, pct, ctx, &p->pcie_tx, &p->pcie_tx_pct))
        return -1;
    return 0;
}

/* `hang: 20m` or `hang: {from: 20m, sm_active: 3}`: from then the process sits in a kernel that
 * never ends (utilization 100 %), keeping only a few SMs busy. */
static int parse_hang(gw_doc *d, const yaml_node_t *v, sim_proc *p)
{
    static const char *const keys[] = {"from", "sm_active", NULL};
    if (!doc_is_map(v))
        return doc_duration(d, v, NULL, &p->hang_from);
    if (doc_check_map(d, v, "hang", keys))
        return -1;
    yaml_node_t *x = doc_get(d, v, "from");
    if (!x)
        return doc_error(d, v, "missing key 'from' (when the process hangs)");
    if (doc_duration(d, x, NULL, &p->hang_from))
        return -1;
    if ((x = doc_get(d, v, "sm_active")) && doc_number(d, x, NULL, &p->hang_sm))
        return -1;
    if (!(p->hang_sm >= 0 && p->hang_sm <= 100))
        return doc_error(d, doc_get(d, v, "sm_active"), "expected a share of SMs from 0 to 100");
    return 0;
}

static int parse_proc(gw_doc *d, const yaml_node_t *n, sim_proc *p, gen_ctx *ctx)
{
    if (doc_check_map(d, n, "process", PROC_KEYS))
        return -1;
    yaml_node_t *v;
    long l;
    p->type = SIM_PROC_COMPUTE;
    p->end = INFINITY;
    p->hang_from = INFINITY;
    p->hang_sm = 3;
    p->gi = p->ci = -1;
    if (!(v = doc_get(d, n, "pid")))
        return doc_error(d, n, "missing key 'pid' (a number, 'self' or 'parent')");
    if (parse_pid(d, v, p))
        return -1;
    if ((v = doc_get(d, n, "pid_stride"))) {
        if (doc_int(d, v, NULL, 0, 1000000, &l))
            return -1;
        p->pid_stride = (unsigned)l;
    }
    if ((v = doc_get(d, n, "name")) && doc_copy(d, v, NULL, p->name, sizeof p->name))
        return -1;
    if ((v = doc_get(d, n, "user")) && doc_copy(d, v, NULL, p->user, sizeof p->user))
        return -1;
    if ((v = doc_get(d, n, "container")) && doc_copy(d, v, NULL, p->container, sizeof p->container))
        return -1;
    if ((v = doc_get(d, n, "command")) && doc_copy(d, v, NULL, p->command, sizeof p->command))
        return -1;
    if ((v = doc_get(d, n, "type")) && parse_type(d, v, p))
        return -1;
    if ((v = doc_get(d, n, "start")) && doc_duration(d, v, NULL, &p->start))
        return -1;
    if ((v = doc_get(d, n, "end")) && doc_duration(d, v, NULL, &p->end))
        return -1;
    if (p->end <= p->start)
        return doc_error(d, doc_get(d, n, "end"), "end must be after start");
    if (gen_key(d, n, "memory_mib", ctx, &p->memory_mib) || gen_key(d, n, "sm", ctx, &p->sm) ||
        gen_key(d, n, "mem", ctx, &p->mem) || gen_key(d, n, "enc", ctx, &p->enc) || gen_key(d, n, "dec", ctx, &p->dec))
        return -1;
    if ((v = doc_get(d, n, "pcie")) && parse_pcie(d, v, p, ctx))
        return -1;
    if ((v = doc_get(d, n, "hang")) && parse_hang(d, v, p))
        return -1;
    if ((v = doc_get(d, n, "gi"))) {
        if (doc_int(d, v, NULL, 0, 1000000, &l))
            return -1;
        p->gi = (int)l;
        p->ci = 0;
    }
    if ((v = doc_get(d, n, "ci"))) {
        if (p->gi < 0)
            return doc_error(d, v, "ci without gi (the MIG device is named by both)");
        if (doc_int(d, v, NULL, 0, 1000000, &l))
            return -1;
        p->ci = (int)l;
    }
    if (!p->name[0])
        snprintf(p->name, sizeof p->name, "%s", "python3");
    return 0;
}

int parse_processes(gw_doc *d, const yaml_node_t *n, sim_gpu_spec *g, gen_ctx *ctx)
{
    int np = doc_seq_len(n);
    if (!doc_is_seq(n))
        return doc_error(d, n, "expected a list of processes");
    if (np == 0)
        return 0;
    g->procs = calloc((size_t)np, sizeof *g->procs);
    if (!g->procs)
        return doc_error(d, n, "out of memory");
    for (int i = 0; i < np; i++) {
        g->nprocs = i + 1;
        if (parse_proc(d, doc_seq_at(d, n, i), &g->procs[i], ctx))
            return -1;
    }
    return 0;
}
