/* diag_config.h - every threshold of the diagnosis detectors, with its default, in one struct;
 * set by name ("input_stall.p95_util") so that a YAML loader can fill it, and listed for
 * validation and documentation. Sources of the defaults: docs/diagnosis.md. */
#ifndef GPUWATCH_DIAG_CONFIG_H
#define GPUWATCH_DIAG_CONFIG_H

typedef struct diag_config {
    struct {
        double enabled, p95_util, p5_util, min_gap_s, busy_util, acf_min, acf_strong, cv_max, min_cycles, max_period_s,
            min_duration_s, critical_idle_share, severity_margin;
    } input_stall;
    struct {
        double enabled, util, sm_active, min_share, min_duration_s, power_frac, idle_power_frac, max_mem_util,
            clock_frac;
    } launch_bound;
    struct {
        double enabled, p95_util, idle_util, max_idle_share, min_duration_s, warning_p95, severity_margin;
    } low_util;
    struct {
        double enabled, busy_util, at_limit, min_share, min_duration_s, user_lowered;
    } power_cap;
    struct {
        double enabled, gpu_warn_c, gpu_crit_c, mem_warn_c, mem_crit_c, margin_c, sustain_s, reason_min_s;
    } thermal;
    struct {
        double enabled, warmup_s, min_span_s, min_r2, min_rise_frac, min_rise_mib, plateau_frac, step_overdue,
            critical_hours, severity_margin;
    } memory_leak;
    struct {
        double enabled, used_frac, min_duration_s, min_share;
    } memory_full;
    struct {
        double enabled, js_max, min_gap, min_busy_util, replica_min_util, min_duration_s;
    } imbalance;
    struct {
        double enabled, idle_util, noise_util, min_idle_s, min_held_mib;
    } idle_holding;
    struct {
        double enabled, link_frac, sm_active, util, min_share, min_duration_s;
    } pcie_bound;
    struct {
        double enabled, burst_gap_s;
    } hw_health;
    struct {
        double enabled, warning;
    } app_fault;
    struct {
        double enabled, retired_max, retired_dbe_soft;
    } row_remap;
    struct {
        double enabled, crc_per_s, min_errors;
    } nvlink_errors;
    struct {
        double enabled, busy_util, min_share, min_duration_s, replays_per_min;
    } pcie_degraded;
    struct {
        double enabled, util, power_frac, sm_active, min_duration_s;
    } collective_hang;
    struct {
        double enabled, busy_util, clock_frac, min_share, min_duration_s;
    } clocks_low;
    struct {
        double enabled, min_unalloc_frac, min_flush_steps;
    } alloc_fragmentation;
    struct {
        double enabled, busy_util, clock_gap, power_gap, throttle_share, min_share, min_duration_s;
    } straggler;
} diag_config;

/* One settable threshold. */
typedef struct diag_param {
    const char *name; /* "detector.threshold" */
    double def;
    double min, max; /* accepted range */
    const char *unit;
    const char *help;
} diag_param;

void diag_config_defaults(diag_config *cfg);

/* 0 when set; -1 unknown name; -2 value out of the accepted range (the config is unchanged). */
int diag_config_set(diag_config *cfg, const char *name, double value);
/* 0 and *value when the name is known, -1 otherwise. */
int diag_config_get(const diag_config *cfg, const char *name, double *value);

/* The settable thresholds, in table order: i from 0 to diag_config_count() - 1. */
int diag_config_count(void);
const diag_param *diag_config_param(int i);

#endif
