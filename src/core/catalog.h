/* catalog.h - the metric catalog: the one description of every metric gpuwatch knows.
 * Query, dmon, the exporter, history, rules and the UI all read metric_catalog[];
 * adding a metric is one enum entry, one table row (catalog.c) and its read in a backend. */
#ifndef GPUWATCH_CATALOG_H
#define GPUWATCH_CATALOG_H

#include <stdint.h>
#include <stddef.h>
#include "suggest.h"

/* Metric ids. String metrics come first (they live in gpu_info, not in samples). */
typedef enum {
    /* --- static strings (gpu_info.str[]) --- */
    M_NAME,
    M_UUID,
    M_SERIAL,
    M_PCI_BUS_ID,
    M_DRIVER_VERSION,
    M_VBIOS_VERSION,
    M_PCI_DEVICE_ID,
    M_PCI_SUB_DEVICE_ID,
    M_PCI_DOMAIN,
    M_PCI_BUS,
    M_PCI_DEVICE,
    M_PCI_BASE_CLASS,
    M_PCI_SUB_CLASS,
    M_INFOROM_IMG,
    M_INFOROM_OEM,
    M_INFOROM_ECC,
    M_INFOROM_PWR,
    M_STR_END,
    /* --- numbers (gpu_sample.v[]) --- */
    M_INDEX = M_STR_END,
    M_MINOR_NUMBER,
    M_COMPUTE_CAP,
    M_NUMA_NODE,
    M_ARCHITECTURE,
    M_PSTATE,
    M_FAN_SPEED,
    M_COMPUTE_MODE,
    M_PERSISTENCE_MODE,
    M_DISPLAY_MODE,
    M_DISPLAY_ATTACHED,
    M_DISPLAY_ACTIVE,
    M_ADDRESSING_MODE,
    M_ACCOUNTING_MODE,
    M_ACCOUNTING_BUFFER,
    M_DRIVER_MODEL_CUR,
    M_DRIVER_MODEL_PEND,
    M_GOM_CUR,
    M_GOM_PEND,
    M_GSP_MODE_CUR,
    M_GSP_MODE_DEFAULT,
    M_C2C_MODE,
    M_TEMP_GPU,
    M_TEMP_MEMORY,
    M_TEMP_SLOWDOWN,
    M_TEMP_SHUTDOWN,
    M_TEMP_MEM_MAX,
    M_TEMP_GPU_MAX,
    M_TEMP_TLIMIT,
    M_UTIL_GPU,
    M_UTIL_MEMORY,
    M_UTIL_ENCODER,
    M_UTIL_DECODER,
    M_UTIL_JPEG,
    M_UTIL_OFA,
    M_ENC_SESSIONS,
    M_ENC_FPS,
    M_ENC_LATENCY,
    M_MEM_TOTAL,
    M_MEM_RESERVED,
    M_MEM_USED,
    M_MEM_FREE,
    M_BAR1_USED,
    M_BAR1_TOTAL,
    M_PROTECTED_MEM_TOTAL,
    M_PROTECTED_MEM_USED,
    M_PROTECTED_MEM_FREE,
    M_POWER_DRAW,
    M_POWER_DRAW_AVERAGE,
    M_POWER_DRAW_INSTANT,
    M_POWER_MANAGEMENT,
    M_POWER_LIMIT,
    M_POWER_ENFORCED_LIMIT,
    M_POWER_DEFAULT_LIMIT,
    M_POWER_MIN_LIMIT,
    M_POWER_MAX_LIMIT,
    M_ENERGY,
    M_CLOCK_GR,
    M_CLOCK_SM,
    M_CLOCK_MEM,
    M_CLOCK_VIDEO,
    M_CLOCK_MAX_GR,
    M_CLOCK_MAX_SM,
    M_CLOCK_MAX_MEM,
    M_CLOCK_APP_GR,
    M_CLOCK_APP_MEM,
    M_CLOCK_DEF_APP_GR,
    M_CLOCK_DEF_APP_MEM,
    M_CER_SUPPORTED,
    M_CER_ACTIVE,
    M_CER_GPU_IDLE,
    M_CER_APP_CLOCKS,
    M_CER_SW_POWER_CAP,
    M_CER_HW_SLOWDOWN,
    M_CER_SYNC_BOOST,
    M_CER_SW_THERMAL,
    M_CER_HW_THERMAL,
    M_CER_HW_POWER_BRAKE,
    M_VIOL_POWER,
    M_VIOL_SYNC_BOOST,
    M_VIOL_SW_THERMAL,
    M_VIOL_THERMAL,
    M_VIOL_POWER_BRAKE,
    M_PCIE_GEN_CUR,
    M_PCIE_GEN_GPUCUR,
    M_PCIE_GEN_MAX,
    M_PCIE_GEN_GPUMAX,
    M_PCIE_WIDTH_CUR,
    M_PCIE_WIDTH_MAX,
    M_PCIE_RX,
    M_PCIE_TX,
    M_PCIE_REPLAY,
    M_ECC_MODE,
    M_ECC_MODE_PEND,
    M_DRAM_ENC_CUR,
    M_DRAM_ENC_PEND,
    M_ECC_SBE_VOL,
    M_ECC_DBE_VOL,
    M_ECC_SBE_AGG,
    M_ECC_DBE_AGG,
    /* ecc.errors.{corrected,uncorrected}.{volatile,aggregate}.<location>: 4 blocks of ECC_LOCATIONS */
    M_ECC_LOC_FIRST,
    M_ECC_LOC_LAST = M_ECC_LOC_FIRST + 4 * 8 - 1,
    M_RETIRED_SBE,
    M_RETIRED_DBE,
    M_RETIRED_PENDING,
    M_REMAP_COR,
    M_REMAP_UNC,
    M_REMAP_PENDING,
    M_REMAP_FAILURE,
    M_REMAP_COR_INACTIVE,
    M_REMAP_UNC_INACTIVE,
    M_REMAP_HIST_MAX,
    M_REMAP_HIST_HIGH,
    M_REMAP_HIST_PARTIAL,
    M_REMAP_HIST_LOW,
    M_REMAP_HIST_NONE,
    M_XID_LAST,
    M_XID_COUNT,
    M_MIG_MODE,
    M_MIG_MODE_PEND,
    M_GPM_GR_ACTIVE,
    M_GPM_SM_ACTIVE,
    M_GPM_SM_OCCUPANCY,
    M_GPM_TENSOR_ACTIVE,
    M_GPM_DRAM_ACTIVE,
    M_GPM_PCIE_TX,
    M_GPM_PCIE_RX,
    M_GPM_NVLINK_TX,
    M_GPM_NVLINK_RX,
    M_FBC_SESSIONS,
    M_FBC_FPS,
    M_FBC_LATENCY,
    /* NVLink: the active links and the data-link error counters over all links, then per link
     * (NVLINK_NLINKS blocks of NVL_NKINDS: state, crc, replay, recovery; see nvlink_id) */
    M_NVLINK_ACTIVE,
    M_NVLINK_CRC_TOTAL,
    M_NVLINK_REPLAY_TOTAL,
    M_NVLINK_RECOVERY_TOTAL,
    M_NVLINK_FIRST,
    M_NVLINK_LAST = M_NVLINK_FIRST + 18 * 4 - 1,
    M_COUNT
} metric_id;

#define M_NUM_COUNT (M_COUNT - M_STR_END)

typedef enum { MK_GAUGE, MK_COUNTER, MK_INFO, MK_BITMASK } metric_kind;

/* How a value is printed in query/csv (nvidia-smi's conventions). */
typedef enum {
    MF_STRING,  /* as is */
    MF_INT,     /* %.0f */
    MF_FLOOR,   /* integer part (MiB from bytes, as nvidia-smi) */
    MF_FIXED1,  /* %.1f  (compute capability, GPM percentages) */
    MF_FIXED2,  /* %.2f  (watts) */
    MF_HEX64,   /* 0x%016llX (bitmasks) */
    MF_ACTIVE,  /* "Active" / "Not Active" */
    MF_ENABLED, /* "Enabled" / "Disabled" */
    MF_YESNO,   /* "Yes" / "No" */
    MF_PSTATE,  /* "P0".."P15" */
    MF_ENUM     /* names[value] (compute_mode "Default", ...); the number when out of range */
} metric_fmt;

/* The per-location ECC counters: nvidia-smi's location names, in its order, and NVML's
 * nvmlMemoryLocation_t for each (device_memory and dram are the same counter). Row
 * M_ECC_LOC_FIRST + (uncorrected * 2 + aggregate) * ECC_NLOC + location. */
#define ECC_NLOC 8
/* NVML's nvmlMemoryLocation_t of location index loc (device_memory, dram, register_file, l1_cache,
 * l2_cache, texture_memory, cbu, sram). */
static inline unsigned ecc_loc_nvml(int loc)
{
    static const unsigned char code[ECC_NLOC] = {2, 2, 3, 0, 1, 4, 6, 7};
    return loc >= 0 && loc < ECC_NLOC ? code[loc] : 0xff;
}
static inline int ecc_loc_id(int uncorrected, int aggregate, int location)
{
    return M_ECC_LOC_FIRST + (uncorrected * 2 + aggregate) * ECC_NLOC + location;
}

/* NVLink per link: NVLINK_NLINKS links (NVML_NVLINK_MAX_LINKS), each with its state (1 active, 0
 * not) and three data-link error counters, as `nvidia-smi nvlink -s` / `-e` show them. */
#define NVLINK_NLINKS 18
typedef enum { NVL_STATE, NVL_CRC, NVL_REPLAY, NVL_RECOVERY, NVL_NKINDS } nvlink_kind;
static inline metric_id nvlink_id(int link, nvlink_kind kind)
{
    return (metric_id)(M_NVLINK_FIRST + link * NVL_NKINDS + (int)kind);
}

enum {
    MF_STATIC = 1u << 0, /* read once per GPU (identity, limits, maxima) */
    MF_GPM = 1u << 1,    /* needs two GPM samples >= 100 ms apart (Hopper+) */
    MF_BIT = 1u << 2,    /* one bit of another metric (parent, bit) */
    MF_RATE = 1u << 3,   /* value is a rate over the last interval */
    MF_SLOW = 1u << 4    /* changes with an administrator's setting or with the performance state
                          * (modes, applications clocks, memory clock, PCIe link), or seldom (the row
                          * remapper's histogram moves only when a row is remapped, which the remapped
                          * rows counters tell at once): a backend that is read often may keep it until
                          * the pstate changes, at most NV_SLOW_US */
};

typedef struct metric_def {
    metric_id id;
    const char *field;   /* nvidia-smi style query name, e.g. "temperature.gpu" */
    const char *aliases; /* other accepted names, comma separated, or NULL */
    const char *unit;    /* unit as shown in csv headers ("MiB", "W", "%", "MHz"); NULL = none */
    metric_kind kind;
    metric_fmt fmt;
    unsigned flags;
    const char *help;           /* one line, for --help-fields and Prometheus HELP */
    char dmon_group;            /* 'p','u','c','v','m','e','t' or 0 */
    const char *dmon_col;       /* dmon column name, or NULL */
    double dmon_div;            /* printed dmon value = value / dmon_div (0 means 1) */
    int dmon_pos;               /* column order within its dmon group (1, 2, ...) */
    const char *dmon_unit;      /* dmon's unit line ("W", "C", "MB"); on a counter "%" = share of the
                              * interval (us counter), "bool" = whether it grew in the interval */
    const char *dcgm;           /* dcgm-exporter series name, or NULL */
    const char *dcgm_unit_help; /* dcgm-exporter's HELP text */
    double dcgm_scale;          /* dcgm value = value * dcgm_scale (0 means 1) */
    const char *prom;           /* native Prometheus name (gpuwatch_...), or NULL */
    double prom_scale;          /* native value = value * prom_scale (0 means 1), base units */
    metric_id parent;           /* MF_BIT: the bitmask metric */
    uint64_t bit;               /* MF_BIT: the bit */
    const char *const *names;   /* MF_ENUM: the name of each value, NULL-terminated */
} metric_def;

extern const metric_def metric_catalog[M_COUNT];

/* Look a metric up by field name or alias (case-sensitive, as nvidia-smi). NULL if unknown. */
const metric_def *catalog_find(const char *name);
/* Offers every field name and alias to a "did you mean" (suggest.h): for unknown metric names. */
void catalog_offer_names(gw_suggest *s);
/* The field name or alias closest to a mistyped one, copied into out; returns out, or NULL when
 * none is close (see gw_suggest_best). */
const char *catalog_suggest(const char *name, char *out, size_t n);
static inline const metric_def *catalog_get(metric_id id)
{
    return &metric_catalog[id];
}
static inline int metric_is_string(metric_id id)
{
    return id < M_STR_END;
}

/* A set of metrics (which ones a command wants, which ones a GPU does not support). */
typedef struct {
    uint64_t w[(M_COUNT + 63) / 64];
} metric_set;
static inline void mset_add(metric_set *s, metric_id id)
{
    s->w[id / 64] |= 1ull << (id % 64);
}
static inline void mset_del(metric_set *s, metric_id id)
{
    s->w[id / 64] &= ~(1ull << (id % 64));
}
static inline int mset_has(const metric_set *s, metric_id id)
{
    return (s->w[id / 64] >> (id % 64)) & 1;
}
void mset_all(metric_set *s);

#endif
