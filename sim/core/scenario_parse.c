/* scenario_parse.c - the top level of a scenario file and its `gpus:` entries. Processes,
 * events and faults are parsed in scenario_procs.c and scenario_faults.c. */
#include "scenario.h"
#include "scenario_internal.h"
#include "gen_parse.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const TOP_KEYS[] = {"seed", "description", "driver_version", "nvml_version", "cuda_version",
                                       "gpus", "topology",    "events",         "faults",       NULL};
static const char *const GPU_KEYS[] = {"count",
                                       "preset",
                                       "name",
                                       "uuid",
                                       "serial",
                                       "pci_bus_id",
                                       "vbios_version",
                                       "memory_total_mib",
                                       "memory_reserved_mib",
                                       "power_limit_w",
                                       "idle_power_w",
                                       "numa_node",
                                       "utilization_period",
                                       "pcie_idle_gen",
                                       "locked_clocks_mhz",
                                       "thermal",
                                       "unsupported",
                                       "metrics",
                                       "processes",
                                       "mig",
                                       NULL};

/* Metrics a preset lacks (by its flags) are NOT_SUPPORTED. */
static void preset_unsupported(const sim_preset *p, metric_set *s)
{
    if (!(p->flags & PRESET_FAN))
        mset_add(s, M_FAN_SPEED);
    if (!(p->flags & PRESET_HBM)) {
        mset_add(s, M_TEMP_MEMORY);
        mset_add(s, M_TEMP_MEM_MAX);
    }
    if (!(p->flags & PRESET_SERIAL))
        mset_add(s, M_SERIAL);
    if (!(p->flags & PRESET_MIG))
        mset_add(s, M_MIG_MODE);
    if (!(p->flags & PRESET_MIG))
        mset_add(s, M_MIG_MODE_PEND);
    if (!(p->flags & PRESET_ECC)) {
        static const metric_id ecc[] = {M_ECC_MODE,       M_ECC_MODE_PEND,   M_ECC_SBE_VOL,        M_ECC_DBE_VOL,
                                        M_ECC_SBE_AGG,    M_ECC_DBE_AGG,     M_REMAP_COR,          M_REMAP_UNC,
                                        M_REMAP_PENDING,  M_REMAP_FAILURE,   M_REMAP_COR_INACTIVE, M_REMAP_UNC_INACTIVE,
                                        M_REMAP_HIST_MAX, M_REMAP_HIST_HIGH, M_REMAP_HIST_PARTIAL, M_REMAP_HIST_LOW,
                                        M_REMAP_HIST_NONE};
        for (size_t i = 0; i < sizeof ecc / sizeof ecc[0]; i++)
            mset_add(s, ecc[i]);
    }
    /* per-location ECC: only device memory (= dram) and SRAM on Ampere and later */
    for (int unc = 0; unc < 2; unc++)
        for (int agg = 0; agg < 2; agg++)
            for (int loc = 0; loc < ECC_NLOC; loc++)
                if (!(p->flags & PRESET_ECC) || (loc != 0 && loc != 1 && loc != 7))
                    mset_add(s, (metric_id)ecc_loc_id(unc, agg, loc));
    /* page retirement (Volta and older) or row remapping (Ampere and later), not both */
    static const metric_id retire[] = {M_RETIRED_SBE, M_RETIRED_DBE, M_RETIRED_PENDING};
    static const metric_id remap[] = {M_REMAP_COR,          M_REMAP_UNC,          M_REMAP_PENDING,  M_REMAP_FAILURE,
                                      M_REMAP_COR_INACTIVE, M_REMAP_UNC_INACTIVE, M_REMAP_HIST_MAX, M_REMAP_HIST_HIGH,
                                      M_REMAP_HIST_PARTIAL, M_REMAP_HIST_LOW,     M_REMAP_HIST_NONE};
    for (size_t i = 0; i < sizeof retire / sizeof retire[0] && !(p->flags & PRESET_RETIRE); i++)
        mset_add(s, retire[i]);
    for (size_t i = 0; i < sizeof remap / sizeof remap[0] && (p->flags & PRESET_RETIRE); i++)
        mset_add(s, remap[i]);
    /* what no simulated board has: Windows driver models, GPU operation modes, DRAM encryption, the
     * InfoROM power object */
    static const metric_id never[] = {M_DRIVER_MODEL_CUR, M_DRIVER_MODEL_PEND, M_GOM_CUR,    M_GOM_PEND,
                                      M_DRAM_ENC_CUR,     M_DRAM_ENC_PEND,     M_INFOROM_PWR};
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        mset_add(s, never[i]);
    if (!p->inforom_img)
        mset_add(s, M_INFOROM_IMG);
    if (!p->inforom_oem)
        mset_add(s, M_INFOROM_OEM);
    if (!p->inforom_ecc)
        mset_add(s, M_INFOROM_ECC);
    if (p->brand == 5) { /* GeForce: no T.Limit margin, no C2C (as the RTX 4080 capture) */
        mset_add(s, M_TEMP_TLIMIT);
        mset_add(s, M_C2C_MODE);
    }
    if (!(p->flags & PRESET_GPM))
        for (int m = M_GPM_GR_ACTIVE; m <= M_GPM_NVLINK_RX; m++)
            mset_add(s, (metric_id)m);
    /* NVLink: only the links the board has */
    for (int l = p->nvlinks > 0 ? p->nvlinks : 0; l < NVLINK_NLINKS; l++)
        for (int k = 0; k < NVL_NKINDS; k++)
            mset_add(s, nvlink_id(l, (nvlink_kind)k));
    if (p->nvlinks <= 0)
        for (int m = M_NVLINK_ACTIVE; m <= M_NVLINK_RECOVERY_TOTAL; m++)
            mset_add(s, (metric_id)m);
}

/* "unknown metric 'X' — did you mean 'Y'?", or an example name when nothing is close. */
static int unknown_metric(gw_doc *d, const yaml_node_t *n, const char *name, const char *example)
{
    char best[GW_SUGGEST_LEN];
    if (name && catalog_suggest(name, best, sizeof best))
        return doc_error(d, n, "unknown metric '%s' \xe2\x80\x94 did you mean '%s'?", name, best);
    return doc_error(d, n, "unknown metric '%s' (expected a catalog field name, e.g. %s)", name ? name : "", example);
}

static int parse_unsupported(gw_doc *d, const yaml_node_t *n, sim_gpu_spec *g)
{
    if (!doc_is_seq(n))
        return doc_error(d, n, "expected a list of metric names for unsupported");
    for (int i = 0; i < doc_seq_len(n); i++) {
        yaml_node_t *e = doc_seq_at(d, n, i);
        const char *s = doc_text(e);
        const metric_def *m = s ? catalog_find(s) : NULL;
        if (!m)
            return unknown_metric(d, e, s, "fan.speed");
        mset_add(&g->unsupported, m->id);
    }
    return 0;
}

static int parse_metrics(gw_doc *d, const yaml_node_t *n, sim_gpu_spec *g, gen_ctx *ctx)
{
    if (!doc_is_map(n))
        return doc_error(d, n, "expected a mapping of metric names to generators");
    for (int i = 0; i < doc_map_len(n); i++) {
        yaml_node_t *kn = doc_map_key(d, n, i);
        const char *k = doc_text(kn);
        const metric_def *m = k ? catalog_find(k) : NULL;
        if (!m)
            return unknown_metric(d, kn, k, "utilization.gpu");
        if (metric_is_string(m->id))
            return doc_error(
                d, kn, "'%s' is a string: set it with the gpu keys name, uuid, serial, pci_bus_id or vbios_version", k);
        if (g->metric[m->id])
            return doc_error(d, kn, "metric '%s' given twice", k);
        g->metric[m->id] = gen_parse(d, doc_map_value(d, n, i), ctx);
        if (!g->metric[m->id])
            return -1;
    }
    return 0;
}

/* The HBM keys of `thermal:` (memory temperature model and limits). */
static int parse_thermal_mem(gw_doc *d, const yaml_node_t *n, sim_gpu_spec *g)
{
    static const char *const mem_keys[] = {"mem_idle_c", "mem_load_c", "mem_tau", "mem_max_c", "mem_shutdown_c"};
    double *dst[] = {&g->p.t_mem_idle, &g->p.t_mem_load, &g->p.t_mem_tau_s, &g->p.t_mem_max, &g->p.t_mem_shutdown};
    for (size_t i = 0; i < sizeof mem_keys / sizeof mem_keys[0]; i++) {
        yaml_node_t *v = doc_get(d, n, mem_keys[i]);
        if (!v)
            continue;
        if (!(g->p.flags & PRESET_HBM))
            return doc_error(d, v, "'%s': preset %s has no memory temperature (HBM presets only)", mem_keys[i],
                             g->p.id);
        if (i == 2 ? doc_duration(d, v, NULL, dst[i]) : doc_number(d, v, NULL, dst[i]))
            return -1;
    }
    if ((g->p.flags & PRESET_HBM) && g->p.t_mem_tau_s <= 0)
        return doc_error(d, doc_get(d, n, "mem_tau"), "expected a time constant above 0");
    if ((g->p.flags & PRESET_HBM) && g->p.t_mem_shutdown <= g->p.t_mem_max) {
        const yaml_node_t *at = doc_get(d, n, "mem_shutdown_c");
        return doc_error(d, at ? at : doc_get(d, n, "mem_max_c"), "mem_shutdown_c (%g) must be above mem_max_c (%g)",
                         g->p.t_mem_shutdown, g->p.t_mem_max);
    }
    return 0;
}

static int parse_thermal(gw_doc *d, const yaml_node_t *n, sim_gpu_spec *g)
{
    static const char *const keys[] = {"idle_c",    "load_c",         "tau", "mem_idle_c", "mem_load_c", "mem_tau",
                                       "mem_max_c", "mem_shutdown_c", NULL};
    if (doc_check_map(d, n, "thermal", keys))
        return -1;
    yaml_node_t *v;
    if ((v = doc_get(d, n, "idle_c")) && doc_number(d, v, NULL, &g->p.t_idle))
        return -1;
    if ((v = doc_get(d, n, "load_c")) && doc_number(d, v, NULL, &g->p.t_load))
        return -1;
    if ((v = doc_get(d, n, "tau")) && doc_duration(d, v, NULL, &g->p.thermal_tau_s))
        return -1;
    if (g->p.thermal_tau_s <= 0)
        return doc_error(d, doc_get(d, n, "tau"), "expected a time constant above 0");
    return parse_thermal_mem(d, n, g);
}

/* A string override that only makes sense on a single GPU. */
static int single_string(gw_doc *d, const yaml_node_t *v, const sim_gpu_spec *g, const char *key, char *out, size_t n)
{
    if (g->count != 1)
        return doc_error(d, v, "'%s' can only be set on an entry with count 1", key);
    return doc_copy(d, v, NULL, out, n);
}

/* A positive number key, stored into *out when present. */
static int positive(gw_doc *d, const yaml_node_t *v, double *out)
{
    if (!v)
        return 0;
    if (doc_number(d, v, NULL, out))
        return -1;
    return *out > 0 ? 0 : doc_error(d, v, "expected a number above 0");
}

static int parse_gpu_scalars(gw_doc *d, const yaml_node_t *n, sim_gpu_spec *g)
{
    yaml_node_t *v;
    long l;
    if ((v = doc_get(d, n, "name")) && doc_copy(d, v, NULL, g->name, sizeof g->name))
        return -1;
    if ((v = doc_get(d, n, "vbios_version")) && doc_copy(d, v, NULL, g->vbios, sizeof g->vbios))
        return -1;
    if ((v = doc_get(d, n, "uuid")) && single_string(d, v, g, "uuid", g->uuid, sizeof g->uuid))
        return -1;
    if ((v = doc_get(d, n, "serial")) && single_string(d, v, g, "serial", g->serial, sizeof g->serial))
        return -1;
    if ((v = doc_get(d, n, "pci_bus_id")) && single_string(d, v, g, "pci_bus_id", g->pci_bus_id, sizeof g->pci_bus_id))
        return -1;
    if (positive(d, doc_get(d, n, "memory_total_mib"), &g->p.mem_total_mib))
        return -1;
    if (positive(d, doc_get(d, n, "memory_reserved_mib"), &g->p.mem_reserved_mib))
        return -1;
    if (positive(d, doc_get(d, n, "power_limit_w"), &g->p.power_limit_w))
        return -1;
    if (positive(d, doc_get(d, n, "idle_power_w"), &g->p.power_idle_w))
        return -1;
    if ((v = doc_get(d, n, "numa_node"))) {
        if (doc_int(d, v, NULL, 0, 63, &l))
            return -1;
        g->numa_node = (int)l;
    }
    if ((v = doc_get(d, n, "utilization_period"))) {
        if (doc_duration(d, v, NULL, &g->p.util_period_s))
            return -1;
        if (g->p.util_period_s < 0.001 || g->p.util_period_s > 10)
            return doc_error(d, v, "expected a utilization period from 1ms to 10s");
    }
    if ((v = doc_get(d, n, "pcie_idle_gen"))) {
        if (doc_int(d, v, NULL, 1, 6, &l))
            return -1;
        g->pcie_idle_gen = (int)l;
    }
    if (positive(d, doc_get(d, n, "locked_clocks_mhz"), &g->locked_clock_mhz))
        return -1;
    if ((v = doc_get(d, n, "thermal")) && parse_thermal(d, v, g))
        return -1;
    if (g->p.mem_reserved_mib >= g->p.mem_total_mib)
        return doc_error(d, n, "memory_reserved_mib must be below memory_total_mib");
    return 0;
}

static int parse_gpu(gw_doc *d, const yaml_node_t *n, sim_gpu_spec *g, gen_ctx *ctx)
{
    if (doc_check_map(d, n, "gpu entry", GPU_KEYS))
        return -1;
    yaml_node_t *v;
    long l;
    const sim_preset *p = preset_find("h100-sxm");
    if ((v = doc_get(d, n, "preset"))) {
        const char *s = doc_text(v);
        if (!s || !(p = preset_find(s)))
            return doc_error(d, v, "unknown preset '%s' (expected one of: %s)", s ? s : "", preset_names());
    }
    g->p = *p;
    g->power_default_w = p->power_limit_w;
    g->numa_node = -1;
    snprintf(g->name, sizeof g->name, "%s", p->name);
    snprintf(g->vbios, sizeof g->vbios, "%s", p->vbios);
    g->count = 1;
    if ((v = doc_get(d, n, "count"))) {
        if (doc_int(d, v, NULL, 1, SIM_MAX_GPUS, &l))
            return -1;
        g->count = (int)l;
    }
    if (parse_gpu_scalars(d, n, g))
        return -1;
    preset_unsupported(&g->p, &g->unsupported);
    if ((v = doc_get(d, n, "unsupported")) && parse_unsupported(d, v, g))
        return -1;
    if ((v = doc_get(d, n, "metrics")) && parse_metrics(d, v, g, ctx))
        return -1;
    if ((v = doc_get(d, n, "processes")) && parse_processes(d, v, g, ctx))
        return -1;
    if ((v = doc_get(d, n, "mig")) && parse_mig(d, v, g))
        return -1;
    return check_proc_instances(d, doc_get(d, n, "processes"), g);
}

static int parse_gpus(gw_doc *d, const yaml_node_t *n, scenario *sc, gen_ctx *ctx)
{
    int ne = doc_seq_len(n);
    if (!doc_is_seq(n) || ne == 0)
        return doc_error(d, n, "expected a list of gpu entries under 'gpus'");
    sc->specs = calloc((size_t)ne, sizeof *sc->specs);
    if (!sc->specs)
        return doc_error(d, n, "out of memory");
    for (int i = 0; i < ne; i++) {
        yaml_node_t *e = doc_seq_at(d, n, i);
        sim_gpu_spec *g = &sc->specs[i];
        sc->nspecs = i + 1;
        if (parse_gpu(d, e, g, ctx))
            return -1;
        if (sc->ngpus + g->count > SIM_MAX_GPUS)
            return doc_error(d, e, "too many GPUs (at most %d)", SIM_MAX_GPUS);
        for (int k = 0; k < g->count; k++) {
            sim_gpu *gpu = &sc->gpus[sc->ngpus];
            gpu->index = sc->ngpus++;
            gpu->copy = k;
            gpu->spec = g;
        }
    }
    return 0;
}

static int parse_top(gw_doc *d, const yaml_node_t *root, scenario *sc, gen_ctx *ctx)
{
    if (doc_check_map(d, root, "the scenario", TOP_KEYS))
        return -1;
    yaml_node_t *v;
    long l;
    if ((v = doc_get(d, root, "seed"))) {
        if (doc_int(d, v, NULL, 0, LONG_MAX, &l))
            return -1;
        sc->seed = (uint64_t)l;
    }
    if ((v = doc_get(d, root, "driver_version")) && doc_copy(d, v, NULL, sc->driver_version, sizeof sc->driver_version))
        return -1;
    if ((v = doc_get(d, root, "nvml_version")) && doc_copy(d, v, NULL, sc->nvml_version, sizeof sc->nvml_version))
        return -1;
    if ((v = doc_get(d, root, "cuda_version"))) {
        if (doc_int(d, v, NULL, 1000, 99999, &l))
            return -1;
        sc->cuda_version = (int)l;
    }
    if (!(v = doc_get(d, root, "gpus")))
        return doc_error(d, root, "missing key 'gpus' (the list of GPUs)");
    if (parse_gpus(d, v, sc, ctx))
        return -1;
    if (parse_topology(d, doc_get(d, root, "topology"), sc))
        return -1;
    if ((v = doc_get(d, root, "events")) && parse_events(d, v, sc))
        return -1;
    if ((v = doc_get(d, root, "faults")) && parse_faults(d, v, sc))
        return -1;
    return 0;
}

static void set_defaults(scenario *sc)
{
    sc->seed = 1;
    snprintf(sc->driver_version, sizeof sc->driver_version, "590.48.01");
    snprintf(sc->nvml_version, sizeof sc->nvml_version, "13.590.48.01");
    sc->cuda_version = 13010;
}

scenario *scenario_parse(const char *name, const char *dir, const char *text, size_t len, char *err, size_t errlen)
{
    scenario *sc = calloc(1, sizeof *sc);
    if (!sc) {
        snprintf(err, errlen, "%s: out of memory", name);
        return NULL;
    }
    set_defaults(sc);
    snprintf(sc->path, sizeof sc->path, "%s", name);
    gw_doc d;
    errlist errs = {0};
    gen_ctx ctx = {.dir = dir};
    int rc = doc_load_text(&d, name, text, len, &errs);
    if (rc == 0 && !doc_root(&d))
        errlist_add(&errs, name, 1, 1, "empty scenario (expected a mapping with 'gpus')");
    else if (rc == 0)
        rc = parse_top(&d, doc_root(&d), sc, &ctx);
    doc_free(&d);
    gen_ctx_free(&ctx);
    /* gpusim reports a scenario's first problem (nvmlInit prints it); the parse stops there */
    if (rc != 0 || errs.n) {
        snprintf(err, errlen, "%s", errs.n ? errs.msg[0] : "out of memory");
        errlist_free(&errs);
        scenario_free(sc);
        return NULL;
    }
    errlist_free(&errs);
    scenario_finish(sc);
    return sc;
}

void scenario_free(scenario *sc)
{
    if (!sc)
        return;
    for (int i = 0; i < sc->nspecs; i++) {
        sim_gpu_spec *g = &sc->specs[i];
        for (int m = 0; m < M_COUNT; m++)
            gen_free(g->metric[m]);
        for (int p = 0; p < g->nprocs; p++)
            proc_free(&g->procs[p]);
        free(g->procs);
        free(g->mig);
    }
    free(sc->specs);
    free(sc->events);
    free(sc->faults);
    free(sc);
}
