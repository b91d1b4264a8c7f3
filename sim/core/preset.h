/* preset.h - GPU model presets: the static values a scenario GPU starts from. */
#ifndef GPUSIM_PRESET_H
#define GPUSIM_PRESET_H

enum {
    PRESET_FAN = 1u << 0,    /* has a fan (fan.speed supported) */
    PRESET_HBM = 1u << 1,    /* HBM: memory temperature supported */
    PRESET_ECC = 1u << 2,    /* ECC, row remapping supported */
    PRESET_SERIAL = 1u << 3, /* board serial readable (not on GeForce) */
    PRESET_GPM = 1u << 4,    /* GPM profiling metrics (Hopper+) */
    PRESET_MIG = 1u << 5,    /* MIG capable (mig.mode readable) */
    PRESET_RETIRE = 1u << 6  /* ECC pages are retired (Volta and older) instead of rows remapped */
};

typedef struct sim_preset {
    const char *id;       /* "h100-sxm" */
    const char *name;     /* "NVIDIA H100 80GB HBM3" */
    unsigned brand, arch; /* nvmlBrandType_t, nvmlDeviceArchitecture_t */
    int cc_major, cc_minor;
    const char *vbios;
    unsigned pci_device_id, pci_subsys_id;
    double mem_total_mib, mem_reserved_mib, bar1_total_mib;
    double power_limit_w, power_min_w, power_max_w, power_idle_w;
    double clk_max_gr, clk_max_sm, clk_max_mem, clk_max_video;
    double clk_idle_gr, clk_idle_mem, clk_idle_video;
    double t_shutdown, t_slowdown, t_gpu_max, t_mem_max;
    double t_idle, t_load;         /* idle temp, steady temp at the default power limit */
    double thermal_tau_s;          /* time constant of the temperature lag */
    double t_mem_idle, t_mem_load; /* HBM: idle temp, steady temp at full power and memory load */
    double t_mem_tau_s;            /* HBM: time constant of its temperature lag */
    double t_mem_shutdown;         /* HBM: HW thermal slowdown from here (the GPU is not powered off) */
    double util_period_s;          /* utilization sample period: reported values average over it */
    int pcie_gen, pcie_width;
    int pstate_idle, pstate_busy;
    int nvlinks; /* NVLink links (0: none) */
    /* InfoROM versions (NULL: NOT_SUPPORTED), addressing mode (0 none, 1 HMM, 2 ATS), memory banks
     * of the row remapper histogram (ECC boards) */
    const char *inforom_img, *inforom_oem, *inforom_ecc;
    unsigned addressing;
    int remap_banks;
    unsigned flags;
} sim_preset;

/* NULL if unknown. */
const sim_preset *preset_find(const char *id);
/* "h100-sxm, h200-sxm, ..." for messages. */
const char *preset_names(void);

#endif
