/* diag_config.c - the table of diagnosis thresholds: name, place in diag_config, default, range,
 * unit and help; defaults, set and get by name. */
#include "diag_config.h"
#include <math.h>
#include <stddef.h>
#include <string.h>

typedef struct {
    diag_param p;
    size_t off;
} param_row;

#define P(NAME, FIELD, DEF, MIN, MAX, UNIT, HELP)                       \
    {                                                                   \
        {NAME, DEF, MIN, MAX, UNIT, HELP}, offsetof(diag_config, FIELD) \
    }
#define ON(DET) P(#DET ".enabled", DET.enabled, 1, 0, 1, "", "1 runs the detector, 0 turns it off")

static const param_row rows[] = {
    ON(input_stall),
    P("input_stall.p95_util", input_stall.p95_util, 70, 0, 100, "%", "busy phases: p95 utilization above this"),
    P("input_stall.p5_util", input_stall.p5_util, 10, 0, 100, "%", "idle phases: p5 utilization below this"),
    P("input_stall.min_gap_s", input_stall.min_gap_s, 0.5, 0, 3600, "s",
      "gap route: idle gaps at least this long (with busy phases >= busy_util)"),
    P("input_stall.busy_util", input_stall.busy_util, 30, 0, 100, "%",
      "gap route: busy phases reach at least this (p95)"),
    P("input_stall.acf_min", input_stall.acf_min, 0.3, 0, 1, "", "periodic: autocorrelation peak at least this"),
    P("input_stall.acf_strong", input_stall.acf_strong, 0.5, 0, 1, "",
      "periodic whatever the cycle lengths: autocorrelation peak at least this"),
    P("input_stall.cv_max", input_stall.cv_max, 0.35, 0, 10, "",
      "periodic: cycle lengths vary by at most this (coefficient of variation)"),
    P("input_stall.min_cycles", input_stall.min_cycles, 4, 2, 1e6, "", "periodic: at least this many cycles"),
    P("input_stall.max_period_s", input_stall.max_period_s, 90, 1, 86400, "s",
      "longer cycles are evaluation or checkpoints, not input stalls"),
    P("input_stall.min_duration_s", input_stall.min_duration_s, 60, 0, 86400, "s", "GPU held at least this long"),
    P("input_stall.critical_idle_share", input_stall.critical_idle_share, 0.5, 0, 1, "",
      "critical when the GPU waits this share of the time"),
    P("input_stall.severity_margin", input_stall.severity_margin, 0.05, 0, 1, "",
      "an idle share within this of critical_idle_share keeps the previous run's severity (the agent)"),

    ON(launch_bound),
    P("launch_bound.util", launch_bound.util, 80, 0, 100, "%", "utilization at least this"),
    P("launch_bound.sm_active", launch_bound.sm_active, 50, 0, 100, "%", "while gpm.sm_active is below this"),
    P("launch_bound.min_share", launch_bound.min_share, 0.5, 0, 1, "", "share of busy time that must match"),
    P("launch_bound.min_duration_s", launch_bound.min_duration_s, 120, 0, 86400, "s", "busy time at least this"),
    P("launch_bound.power_frac", launch_bound.power_frac, 0.35, 0, 1, "",
      "without GPM: power above idle below this share of (limit - idle)"),
    P("launch_bound.idle_power_frac", launch_bound.idle_power_frac, 0.15, 0, 1, "",
      "without GPM: idle power assumed as this share of the default limit when the window has no idle time"),
    P("launch_bound.max_mem_util", launch_bound.max_mem_util, 50, 0, 100, "%",
      "without GPM: memory utilization below this (else memory-bound)"),
    P("launch_bound.clock_frac", launch_bound.clock_frac, 0.9, 0, 1, "",
      "without GPM: SM clock at least this share of its maximum (not throttled)"),

    ON(low_util),
    P("low_util.p95_util", low_util.p95_util, 70, 0, 100, "%", "p95 utilization below this while held"),
    P("low_util.idle_util", low_util.idle_util, 5, 0, 100, "%", "a reading below this is idle"),
    P("low_util.max_idle_share", low_util.max_idle_share, 0.2, 0, 1, "",
      "idle at most this share of the held time (else bursty or idle, not low)"),
    P("low_util.min_duration_s", low_util.min_duration_s, 300, 0, 86400, "s", "held at least this long"),
    P("low_util.warning_p95", low_util.warning_p95, 40, 0, 100, "%",
      "warning when p95 utilization is below this, else info"),
    P("low_util.severity_margin", low_util.severity_margin, 5, 0, 100, "%",
      "a p95 within this of warning_p95 keeps the previous run's severity (the agent)"),

    ON(power_cap),
    P("power_cap.busy_util", power_cap.busy_util, 50, 0, 100, "%", "busy: utilization at least this"),
    P("power_cap.at_limit", power_cap.at_limit, 0.95, 0, 1.5, "", "draw at least this share of the enforced limit"),
    P("power_cap.min_share", power_cap.min_share, 0.5, 0, 1, "", "share of busy time capped"),
    P("power_cap.min_duration_s", power_cap.min_duration_s, 60, 0, 86400, "s", "capped time at least this"),
    P("power_cap.user_lowered", power_cap.user_lowered, 0.97, 0, 1, "",
      "enforced limit below this share of the default: lowered by an administrator"),

    ON(thermal),
    P("thermal.gpu_warn_c", thermal.gpu_warn_c, 80, 0, 200, "C", "core temperature: warning"),
    P("thermal.gpu_crit_c", thermal.gpu_crit_c, 90, 0, 200, "C", "core temperature: critical"),
    P("thermal.mem_warn_c", thermal.mem_warn_c, 95, 0, 200, "C", "HBM temperature: warning"),
    P("thermal.mem_crit_c", thermal.mem_crit_c, 105, 0, 200, "C", "HBM temperature: critical"),
    P("thermal.margin_c", thermal.margin_c, 5, 0, 50, "C",
      "warning also from this far below the GPU's own slowdown temperature"),
    P("thermal.sustain_s", thermal.sustain_s, 60, 0, 86400, "s", "a temperature counts when held this long"),
    P("thermal.reason_min_s", thermal.reason_min_s, 10, 0, 86400, "s", "thermal slowdown reasons active this long"),

    ON(memory_leak),
    P("memory_leak.warmup_s", memory_leak.warmup_s, 120, 0, 86400, "s", "ignore a new process's first seconds"),
    P("memory_leak.min_span_s", memory_leak.min_span_s, 300, 0, 86400, "s", "fit at least this much time"),
    P("memory_leak.min_r2", memory_leak.min_r2, 0.8, 0, 1, "", "a steady rise: linear fit R^2 at least this"),
    P("memory_leak.min_rise_frac", memory_leak.min_rise_frac, 0.02, 0, 1, "",
      "rise over the fit at least this share of the GPU's memory"),
    P("memory_leak.min_rise_mib", memory_leak.min_rise_mib, 256, 0, 1e9, "MiB", "and at least this much"),
    P("memory_leak.plateau_frac", memory_leak.plateau_frac, 0.3, 0, 1, "",
      "the last this share of the fit rising under a quarter of the average rate: a plateau, not a leak"),
    P("memory_leak.step_overdue", memory_leak.step_overdue, 3, 1, 1000, "",
      "memory rising in steps: still rising while its last step is no older than this many step intervals"),
    P("memory_leak.critical_hours", memory_leak.critical_hours, 1, 0, 1e6, "h",
      "critical when memory runs out sooner than this"),
    P("memory_leak.severity_margin", memory_leak.severity_margin, 0.25, 0, 1e6, "h",
      "a time to full within this of critical_hours keeps the previous run's severity (the agent)"),

    ON(memory_full),
    P("memory_full.used_frac", memory_full.used_frac, 0.95, 0, 1, "", "used at least this share of total"),
    P("memory_full.min_duration_s", memory_full.min_duration_s, 300, 0, 86400, "s", "for at least this long"),
    P("memory_full.min_share", memory_full.min_share, 0.5, 0, 1, "",
      "or this share of a window shorter than twice min_duration_s"),

    ON(imbalance),
    P("imbalance.js_max", imbalance.js_max, 0.2, 0, 1, "",
      "Jensen-Shannon distance of utilization histograms above this"),
    P("imbalance.min_gap", imbalance.min_gap, 15, 0, 100, "%",
      "and a p10/p50/p90 utilization differing by at least this"),
    P("imbalance.min_busy_util", imbalance.min_busy_util, 40, 0, 100, "%",
      "judged only when the job's typical GPU has p10 utilization at least this (synchronous work)"),
    P("imbalance.replica_min_util", imbalance.replica_min_util, 20, 0, 100, "%",
      "replicas of a service (one container each): judged when the busiest has mean utilization at least this"),
    P("imbalance.min_duration_s", imbalance.min_duration_s, 300, 0, 86400, "s", "GPUs busy together this long"),

    ON(idle_holding),
    P("idle_holding.idle_util", idle_holding.idle_util, 5, 0, 100, "%", "idle: utilization below this"),
    P("idle_holding.noise_util", idle_holding.noise_util, 10, 0, 100, "%",
      "readings below this but not idle are noise while under a tenth of the stretch; above, work"),
    P("idle_holding.min_idle_s", idle_holding.min_idle_s, 1200, 0, 1e7, "s", "idle while held this long"),
    P("idle_holding.min_held_mib", idle_holding.min_held_mib, 1024, 0, 1e9, "MiB",
      "across a job's hosts (memory used, no process list): held when at least this is used"),

    ON(pcie_bound),
    P("pcie_bound.link_frac", pcie_bound.link_frac, 0.25, 0, 1, "",
      "PCIe throughput (one direction) at least this share of the link's capacity"),
    P("pcie_bound.sm_active", pcie_bound.sm_active, 50, 0, 100, "%", "while gpm.sm_active is below this"),
    P("pcie_bound.util", pcie_bound.util, 50, 0, 100, "%", "without GPM: while utilization is below this"),
    P("pcie_bound.min_share", pcie_bound.min_share, 0.5, 0, 1, "", "share of held time that must match"),
    P("pcie_bound.min_duration_s", pcie_bound.min_duration_s, 60, 0, 86400, "s", "matching time at least this"),

    ON(hw_health),
    P("hw_health.burst_gap_s", hw_health.burst_gap_s, 300, 1, 86400, "s",
      "XIDs closer than this belong to one burst (one incident); a burst ends after this much silence"),

    ON(app_fault),
    P("app_fault.warning", app_fault.warning, 1, 0, 1, "", "1 reports application faults as warnings, 0 as info"),

    ON(row_remap),
    P("row_remap.retired_max", row_remap.retired_max, 63, 1, 1e6, "pages",
      "retired pages (single- and double-bit) at least this: the GPU needs service (DCGM's limit)"),
    P("row_remap.retired_dbe_soft", row_remap.retired_dbe_soft, 15, 0, 1e6, "pages",
      "double-bit retired pages above this and still rising: the GPU needs service (DCGM's soft limit)"),

    ON(nvlink_errors),
    P("nvlink_errors.crc_per_s", nvlink_errors.crc_per_s, 100, 0, 1e9, "/s",
      "CRC errors on a link at this rate over a minute: critical (DCGM); fewer: a warning"),
    P("nvlink_errors.min_errors", nvlink_errors.min_errors, 1, 1, 1e9, "",
      "a counter rising by at least this in the window counts (DCGM's limit: 1)"),

    ON(pcie_degraded),
    P("pcie_degraded.busy_util", pcie_degraded.busy_util, 50, 0, 100, "%",
      "under load: utilization at least this (an idle link trains down to save power)"),
    P("pcie_degraded.min_share", pcie_degraded.min_share, 0.5, 0, 1, "", "share of the time under load degraded"),
    P("pcie_degraded.min_duration_s", pcie_degraded.min_duration_s, 60, 0, 86400, "s",
      "degraded under load at least this long"),
    P("pcie_degraded.replays_per_min", pcie_degraded.replays_per_min, 8, 0, 1e9, "/min",
      "PCIe replays above this in a minute (DCGM's limit) count too"),

    ON(collective_hang),
    P("collective_hang.util", collective_hang.util, 98, 0, 100, "%", "utilization pinned at least this"),
    P("collective_hang.power_frac", collective_hang.power_frac, 0.15, 0, 1, "",
      "with the power above idle under this share of (limit - idle)"),
    P("collective_hang.sm_active", collective_hang.sm_active, 10, 0, 100, "%",
      "with GPM: SM activity under this (a kernel spinning on a few SMs)"),
    P("collective_hang.min_duration_s", collective_hang.min_duration_s, 300, 0, 86400, "s",
      "for at least this long (half of NCCL's default 10 minute timeout)"),

    ON(clocks_low),
    P("clocks_low.busy_util", clocks_low.busy_util, 50, 0, 100, "%", "busy: utilization at least this"),
    P("clocks_low.clock_frac", clocks_low.clock_frac, 0.75, 0, 1, "",
      "SM clock under this share of its maximum without a power or thermal reason"),
    P("clocks_low.min_share", clocks_low.min_share, 0.5, 0, 1, "", "share of the busy time with clocks low"),
    P("clocks_low.min_duration_s", clocks_low.min_duration_s, 120, 0, 86400, "s", "clocks low at least this long"),

    ON(alloc_fragmentation),
    P("alloc_fragmentation.min_unalloc_frac", alloc_fragmentation.min_unalloc_frac, 0.02, 0, 1, "",
      "an out-of-memory with reserved-but-unallocated memory at least this share of the GPU (and the size asked)"),
    P("alloc_fragmentation.min_flush_steps", alloc_fragmentation.min_flush_steps, 3, 1, 1e6, "",
      "or allocator cache flushes in at least this many steps"),

    ON(straggler),
    P("straggler.busy_util", straggler.busy_util, 40, 0, 100, "%",
      "judged while the job's other GPUs have median utilization at least this"),
    P("straggler.clock_gap", straggler.clock_gap, 0.10, 0, 1, "",
      "slower: SM clock below the others' median by at least this share"),
    P("straggler.power_gap", straggler.power_gap, 0.25, 0, 1, "",
      "or power below the others' median by at least this share"),
    P("straggler.throttle_share", straggler.throttle_share, 0.5, 0, 1, "",
      "or a slowdown reason (thermal, power) in at least this share of readings where the others have none"),
    P("straggler.min_share", straggler.min_share, 0.5, 0, 1, "", "slower in at least this share of the busy time"),
    P("straggler.min_duration_s", straggler.min_duration_s, 300, 0, 86400, "s", "and for at least this long"),
};

#define N_ROWS ((int)(sizeof rows / sizeof rows[0]))

static double *slot(diag_config *cfg, const param_row *r)
{
    return (double *)((char *)cfg + r->off);
}

static const double *slot_const(const diag_config *cfg, const param_row *r)
{
    return (const double *)((const char *)cfg + r->off);
}

static const param_row *find(const char *name)
{
    for (int i = 0; i < N_ROWS; i++)
        if (strcmp(rows[i].p.name, name) == 0)
            return &rows[i];
    return NULL;
}

void diag_config_defaults(diag_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    for (int i = 0; i < N_ROWS; i++)
        *slot(cfg, &rows[i]) = rows[i].p.def;
}

int diag_config_set(diag_config *cfg, const char *name, double value)
{
    const param_row *r = find(name);
    if (!r)
        return -1;
    if (!isfinite(value) || value < r->p.min || value > r->p.max)
        return -2;
    *slot(cfg, r) = value;
    return 0;
}

int diag_config_get(const diag_config *cfg, const char *name, double *value)
{
    const param_row *r = find(name);
    if (!r)
        return -1;
    *value = *slot_const(cfg, r);
    return 0;
}

int diag_config_count(void)
{
    return N_ROWS;
}

const diag_param *diag_config_param(int i)
{
    return i >= 0 && i < N_ROWS ? &rows[i].p : NULL;
}
