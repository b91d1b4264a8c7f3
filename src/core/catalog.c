/* catalog.c - the metric catalog table (see catalog.h) and name look-up. */
#include "catalog.h"
#include <string.h>
#include "util.h"

_Static_assert(M_NVLINK_LAST - M_NVLINK_FIRST + 1 == NVLINK_NLINKS * NVL_NKINDS, "one block of rows per NVLink link");

#define DCGM(name, help) .dcgm = name, .dcgm_unit_help = help
#define DMON(g, pos, col, unit) .dmon_group = g, .dmon_pos = pos, .dmon_col = col, .dmon_unit = unit

const metric_def metric_catalog[M_COUNT] = {
    /* ---- identity (strings) ---- */
    [M_NAME] = {M_NAME, "name", "gpu_name", NULL, MK_INFO, MF_STRING, MF_STATIC,
                "The official product name of the GPU."},
    [M_UUID] = {M_UUID, "uuid", "gpu_uuid", NULL, MK_INFO, MF_STRING, MF_STATIC,
                "Globally unique immutable identifier of the GPU."},
    [M_SERIAL] = {M_SERIAL, "serial", "gpu_serial", NULL, MK_INFO, MF_STRING, MF_STATIC,
                  "The serial number physically printed on the board."},
    [M_PCI_BUS_ID] = {M_PCI_BUS_ID, "pci.bus_id", "gpu_bus_id", NULL, MK_INFO, MF_STRING, MF_STATIC,
                      "PCI bus id as domain:bus:device.function, in hex."},
    [M_DRIVER_VERSION] = {M_DRIVER_VERSION, "driver_version", NULL, NULL, MK_INFO, MF_STRING, MF_STATIC,
                          "The version of the installed NVIDIA display driver."},
    [M_VBIOS_VERSION] = {M_VBIOS_VERSION, "vbios_version", NULL, NULL, MK_INFO, MF_STRING, MF_STATIC,
                         "The BIOS of the GPU board."},
    [M_PCI_DEVICE_ID] = {M_PCI_DEVICE_ID, "pci.device_id", NULL, NULL, MK_INFO, MF_STRING, MF_STATIC,
                         "PCI vendor device id, in hex."},
    [M_PCI_SUB_DEVICE_ID] = {M_PCI_SUB_DEVICE_ID, "pci.sub_device_id", NULL, NULL, MK_INFO, MF_STRING, MF_STATIC,
                             "PCI Sub System id, in hex."},

    /* ---- identity and topology (numbers) ---- */
    [M_INDEX] = {M_INDEX, "index", NULL, NULL, MK_INFO, MF_INT, MF_STATIC,
                 "Zero based index of the GPU, as nvidia-smi numbers it."},
    [M_MINOR_NUMBER] = {M_MINOR_NUMBER, "minor_number", NULL, NULL, MK_INFO, MF_INT, MF_STATIC,
                        "Device minor number: the GPU is /dev/nvidia<minor_number>."},
    [M_COMPUTE_CAP] = {M_COMPUTE_CAP, "compute_cap", NULL, NULL, MK_INFO, MF_FIXED1, MF_STATIC,
                       "CUDA compute capability, major.minor."},
    [M_NUMA_NODE] = {M_NUMA_NODE, "numa_node", NULL, NULL, MK_INFO, MF_INT, MF_STATIC,
                     "Host NUMA node closest to the GPU."},
    [M_ARCHITECTURE] = {M_ARCHITECTURE, "architecture", NULL, NULL, MK_INFO, MF_INT, MF_STATIC,
                        "NVML architecture number (7 Ampere, 8 Ada, 9 Hopper, 10 Blackwell)."},
    [M_PSTATE] = {M_PSTATE, "pstate", NULL, NULL, MK_GAUGE, MF_PSTATE, 0,
                  "Performance state, from P0 (maximum) to P12 (minimum).", .prom = "gpuwatch_pstate"},
    [M_FAN_SPEED] = {M_FAN_SPEED, "fan.speed", NULL, "%", MK_GAUGE, MF_INT, 0,
                     "Fan speed as a percentage of its maximum; absent on fanless boards.",
                     .prom = "gpuwatch_fan_speed_ratio", .prom_scale = 0.01},

    /* ---- temperatures ---- */
    [M_TEMP_GPU] = {M_TEMP_GPU, "temperature.gpu", NULL, NULL, MK_GAUGE, MF_INT, 0,
                    "Core GPU temperature, in degrees C.", DMON('p', 2, "gtemp", "C"),
                    DCGM("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C)."), .prom = "gpuwatch_temperature_celsius"},
    [M_TEMP_MEMORY] = {M_TEMP_MEMORY, "temperature.memory", NULL, NULL, MK_GAUGE, MF_INT, 0,
                       "HBM memory temperature, in degrees C; absent on GDDR boards.", DMON('p', 3, "mtemp", "C"),
                       DCGM("DCGM_FI_DEV_MEMORY_TEMP", "Memory temperature (in C)."),
                       .prom = "gpuwatch_memory_temperature_celsius"},
    [M_TEMP_SLOWDOWN] = {M_TEMP_SLOWDOWN, "temperature.gpu.slowdown", NULL, NULL, MK_GAUGE, MF_INT, MF_STATIC,
                         "Temperature at which the GPU slows its clocks, in degrees C.",
                         .prom = "gpuwatch_temperature_slowdown_celsius"},
    [M_TEMP_SHUTDOWN] = {M_TEMP_SHUTDOWN, "temperature.gpu.shutdown", NULL, NULL, MK_GAUGE, MF_INT, MF_STATIC,
                         "Temperature at which the GPU shuts down, in degrees C.",
                         .prom = "gpuwatch_temperature_shutdown_celsius"},
    [M_TEMP_MEM_MAX] = {M_TEMP_MEM_MAX, "temperature.memory.max", NULL, NULL, MK_GAUGE, MF_INT, MF_STATIC,
                        "Maximum allowed HBM temperature, in degrees C.",
                        .prom = "gpuwatch_memory_temperature_max_celsius"},
    [M_TEMP_GPU_MAX] = {M_TEMP_GPU_MAX, "temperature.gpu.max", NULL, NULL, MK_GAUGE, MF_INT, MF_STATIC,
                        "Maximum operating core temperature, in degrees C.",
                        .prom = "gpuwatch_temperature_max_celsius"},

    /* ---- utilization ---- */
    [M_UTIL_GPU] = {M_UTIL_GPU, "utilization.gpu", NULL, "%", MK_GAUGE, MF_INT, 0,
                    "Percent of time over the past sample period during which one or more kernels was executing.",
                    DMON('u', 1, "sm", "%"), DCGM("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %)."),
                    .prom = "gpuwatch_utilization_ratio", .prom_scale = 0.01},
    [M_UTIL_MEMORY] =
        {M_UTIL_MEMORY, "utilization.memory", NULL, "%", MK_GAUGE, MF_INT, 0,
         "Percent of time over the past sample period during which device memory was being read or written.",
         DMON('u', 2, "mem", "%"), DCGM("DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %)."),
         .prom = "gpuwatch_memory_utilization_ratio", .prom_scale = 0.01},
    [M_UTIL_ENCODER] = {M_UTIL_ENCODER, "utilization.encoder", NULL, "%", MK_GAUGE, MF_INT, 0,
                        "Video encoder utilization, percent.", DMON('u', 3, "enc", "%"),
                        DCGM("DCGM_FI_DEV_ENC_UTIL", "Encoder utilization (in %)."),
                        .prom = "gpuwatch_encoder_utilization_ratio", .prom_scale = 0.01},
    [M_UTIL_DECODER] = {M_UTIL_DECODER, "utilization.decoder", NULL, "%", MK_GAUGE, MF_INT, 0,
                        "Video decoder utilization, percent.", DMON('u', 4, "dec", "%"),
                        DCGM("DCGM_FI_DEV_DEC_UTIL", "Decoder utilization (in %)."),
                        .prom = "gpuwatch_decoder_utilization_ratio", .prom_scale = 0.01},
    [M_UTIL_JPEG] = {M_UTIL_JPEG, "utilization.jpeg", NULL, "%", MK_GAUGE, MF_INT, 0,
                     "JPEG decoder utilization, percent.", DMON('u', 5, "jpg", "%"),
                     .prom = "gpuwatch_jpeg_utilization_ratio", .prom_scale = 0.01},
    [M_UTIL_OFA] = {M_UTIL_OFA, "utilization.ofa", NULL, "%", MK_GAUGE, MF_INT, 0,
                    "Optical flow accelerator utilization, percent.", DMON('u', 6, "ofa", "%"),
                    .prom = "gpuwatch_ofa_utilization_ratio", .prom_scale = 0.01},

    /* ---- memory (MiB) ---- */
    [M_MEM_TOTAL] = {M_MEM_TOTAL, "memory.total", NULL, "MiB", MK_GAUGE, MF_FLOOR, MF_STATIC,
                     "Total installed GPU memory.", .prom = "gpuwatch_memory_total_bytes", .prom_scale = 1048576.0},
    [M_MEM_RESERVED] = {M_MEM_RESERVED, "memory.reserved", NULL, "MiB", MK_GAUGE, MF_FLOOR, 0,
                        "Memory reserved by the driver and firmware.",
                        DCGM("DCGM_FI_DEV_FB_RESERVED", "Framebuffer memory reserved (in MiB)."),
                        .prom = "gpuwatch_memory_reserved_bytes", .prom_scale = 1048576.0},
    [M_MEM_USED] = {M_MEM_USED, "memory.used", NULL, "MiB", MK_GAUGE, MF_FLOOR, 0,
                    "Memory allocated by active contexts.", DMON('m', 1, "fb", "MB"),
                    DCGM("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB)."),
                    .prom = "gpuwatch_memory_used_bytes", .prom_scale = 1048576.0},
    [M_MEM_FREE] = {M_MEM_FREE, "memory.free", NULL, "MiB", MK_GAUGE, MF_FLOOR, 0, "Free memory.",
                    DCGM("DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB)."),
                    .prom = "gpuwatch_memory_free_bytes", .prom_scale = 1048576.0},
    [M_BAR1_USED] = {M_BAR1_USED, "bar1.used", NULL, "MiB", MK_GAUGE, MF_FLOOR, 0, "BAR1 memory in use.",
                     DMON('m', 2, "bar1", "MB"), .prom = "gpuwatch_bar1_used_bytes", .prom_scale = 1048576.0},
    [M_BAR1_TOTAL] = {M_BAR1_TOTAL, "bar1.total", NULL, "MiB", MK_GAUGE, MF_FLOOR, MF_STATIC, "BAR1 memory size.",
                      .prom = "gpuwatch_bar1_total_bytes", .prom_scale = 1048576.0},
    [M_PROTECTED_MEM_USED] = {M_PROTECTED_MEM_USED, "protected_memory.used", NULL, "MiB", MK_GAUGE, MF_FLOOR, 0,
                              "Confidential-compute protected memory in use; absent unless CC mode is on.",
                              DMON('m', 3, "ccpm", "MB"), .prom = "gpuwatch_protected_memory_used_bytes",
                              .prom_scale = 1048576.0},

    /* ---- power and energy ---- */
    [M_POWER_DRAW] = {M_POWER_DRAW, "power.draw", NULL, "W", MK_GAUGE, MF_FIXED2, 0,
                      "Power drawn by the board (1 s average on Ampere and later), in watts.", DMON('p', 1, "pwr", "W"),
                      DCGM("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W)."), .prom = "gpuwatch_power_draw_watts"},
    [M_POWER_DRAW_INSTANT] = {M_POWER_DRAW_INSTANT, "power.draw.instant", "gpu.power.draw.instant", "W", MK_GAUGE,
                              MF_FIXED2, 0, "Instantaneous power draw, in watts.",
                              .prom = "gpuwatch_power_draw_instant_watts"},
    [M_POWER_LIMIT] = {M_POWER_LIMIT, "power.limit", "gpu.power.requested_limit", "W", MK_GAUGE, MF_FIXED2, 0,
                       "Software power limit set by the administrator, in watts.",
                       .prom = "gpuwatch_power_limit_watts"},
    [M_POWER_ENFORCED_LIMIT] = {M_POWER_ENFORCED_LIMIT, "enforced.power.limit", "gpu.power.current_limit", "W",
                                MK_GAUGE, MF_FIXED2, 0,
                                "Power limit actually enforced (the lowest of all limiters), in watts.",
                                .prom = "gpuwatch_power_enforced_limit_watts"},
    [M_POWER_DEFAULT_LIMIT] = {M_POWER_DEFAULT_LIMIT, "power.default_limit", "gpu.power.default_limit", "W", MK_GAUGE,
                               MF_FIXED2, MF_STATIC, "Default power limit, in watts.",
                               .prom = "gpuwatch_power_default_limit_watts"},
    [M_POWER_MIN_LIMIT] = {M_POWER_MIN_LIMIT, "power.min_limit", "gpu.power.min_limit", "W", MK_GAUGE, MF_FIXED2,
                           MF_STATIC, "Lowest power limit that can be set, in watts.",
                           .prom = "gpuwatch_power_min_limit_watts"},
    [M_POWER_MAX_LIMIT] = {M_POWER_MAX_LIMIT, "power.max_limit", "gpu.power.max_limit", "W", MK_GAUGE, MF_FIXED2,
                           MF_STATIC, "Highest power limit that can be set, in watts.",
                           .prom = "gpuwatch_power_max_limit_watts"},
    [M_ENERGY] = {M_ENERGY, "energy.consumed", "total_energy_consumption", "mJ", MK_COUNTER, MF_INT, 0,
                  "Energy consumed since the driver was loaded, in millijoules.",
                  DCGM("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "Total energy consumption since boot (in mJ)."),
                  .prom = "gpuwatch_energy_joules_total", .prom_scale = 0.001},

    /* ---- clocks (MHz) ---- */
    [M_CLOCK_GR] = {M_CLOCK_GR, "clocks.current.graphics", "clocks.gr", "MHz", MK_GAUGE, MF_INT, 0,
                    "Current graphics clock.", DMON('c', 2, "pclk", "MHz"), .prom = "gpuwatch_clock_graphics_hertz",
                    .prom_scale = 1e6},
    [M_CLOCK_SM] = {M_CLOCK_SM, "clocks.current.sm", "clocks.sm", "MHz", MK_GAUGE, MF_INT, 0, "Current SM clock.",
                    DCGM("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz)."), .prom = "gpuwatch_clock_sm_hertz",
                    .prom_scale = 1e6},
    [M_CLOCK_MEM] = {M_CLOCK_MEM, "clocks.current.memory", "clocks.mem", "MHz", MK_GAUGE, MF_INT, MF_SLOW,
                     "Current memory clock.", DMON('c', 1, "mclk", "MHz"),
                     DCGM("DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz)."),
                     .prom = "gpuwatch_clock_memory_hertz", .prom_scale = 1e6},
    [M_CLOCK_VIDEO] = {M_CLOCK_VIDEO, "clocks.current.video", "clocks.video", "MHz", MK_GAUGE, MF_INT, 0,
                       "Current video encoder/decoder clock.", .prom = "gpuwatch_clock_video_hertz", .prom_scale = 1e6},
    [M_CLOCK_MAX_GR] = {M_CLOCK_MAX_GR, "clocks.max.graphics", "clocks.max.gr", "MHz", MK_GAUGE, MF_INT, MF_STATIC,
                        "Maximum graphics clock.", .prom = "gpuwatch_clock_max_graphics_hertz", .prom_scale = 1e6},
    [M_CLOCK_MAX_SM] = {M_CLOCK_MAX_SM, "clocks.max.sm", NULL, "MHz", MK_GAUGE, MF_INT, MF_STATIC, "Maximum SM clock.",
                        .prom = "gpuwatch_clock_max_sm_hertz", .prom_scale = 1e6},
    [M_CLOCK_MAX_MEM] = {M_CLOCK_MAX_MEM, "clocks.max.memory", "clocks.max.mem", "MHz", MK_GAUGE, MF_INT, MF_STATIC,
                         "Maximum memory clock.", .prom = "gpuwatch_clock_max_memory_hertz", .prom_scale = 1e6},

    /* ---- clock event (throttle) reasons ---- */
    [M_CER_SUPPORTED] = {M_CER_SUPPORTED, "clocks_event_reasons.supported", "clocks_throttle_reasons.supported", NULL,
                         MK_BITMASK, MF_HEX64, MF_STATIC, "Bitmask of supported clock event reasons."},
    [M_CER_ACTIVE] = {M_CER_ACTIVE, "clocks_event_reasons.active", "clocks_throttle_reasons.active", NULL, MK_BITMASK,
                      MF_HEX64, 0, "Bitmask of active clock event (throttle) reasons.",
                      DCGM("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "Current clock throttle reasons."),
                      .prom = "gpuwatch_clock_event_reasons"},
#define CER(ID, NAME, BIT, HELP)                         \
    [ID] = {ID,                                          \
            "clocks_event_reasons." NAME,                \
            "clocks_throttle_reasons." NAME,             \
            NULL,                                        \
            MK_GAUGE,                                    \
            MF_ACTIVE,                                   \
            MF_BIT,                                      \
            HELP,                                        \
            .prom = "gpuwatch_clock_event_reason_" NAME, \
            .parent = M_CER_ACTIVE,                      \
            .bit = BIT}
    CER(M_CER_GPU_IDLE, "gpu_idle", 0x1, "Nothing is running on the GPU and the clocks are dropping to idle."),
    CER(M_CER_APP_CLOCKS, "applications_clocks_setting", 0x2, "Clocks are limited by the applications clocks setting."),
    CER(M_CER_SW_POWER_CAP, "sw_power_cap", 0x4,
        "Clocks are lowered to keep power under the power limit (power capping)."),
    CER(M_CER_HW_SLOWDOWN, "hw_slowdown", 0x8,
        "Hardware slowdown (factor 2 or more): too hot, power brake or power supply problem."),
    CER(M_CER_SYNC_BOOST, "sync_boost", 0x10, "Clocks are held to those of other GPUs in a sync boost group."),
    CER(M_CER_SW_THERMAL, "sw_thermal_slowdown", 0x20,
        "Clocks are lowered to keep the GPU and memory under their maximum temperature."),
    CER(M_CER_HW_THERMAL, "hw_thermal_slowdown", 0x40, "Hardware thermal slowdown: the GPU is too hot."),
    CER(M_CER_HW_POWER_BRAKE, "hw_power_brake_slowdown", 0x80,
        "Hardware power brake: an external power brake assertion (e.g. the power supply)."),
#undef CER
    [M_VIOL_POWER] = {M_VIOL_POWER, "clocks_event_reasons_counters.sw_power_cap", "violation.power", "us", MK_COUNTER,
                      MF_INT, 0, "Time clocks were limited by the power cap, in microseconds.",
                      DMON('v', 1, "pviol", "%"),
                      DCGM("DCGM_FI_DEV_POWER_VIOLATION", "Throttling duration due to power constraints (in us)."),
                      .prom = "gpuwatch_power_violation_seconds_total", .prom_scale = 1e-6},
    [M_VIOL_THERMAL] = {M_VIOL_THERMAL, "clocks_event_reasons_counters.hw_thermal_slowdown", "violation.thermal", "us",
                        MK_COUNTER, MF_INT, 0, "Time clocks were limited by thermal slowdown, in microseconds.",
                        DMON('v', 2, "tviol", "bool"),
                        DCGM("DCGM_FI_DEV_THERMAL_VIOLATION",
                             "Throttling duration due to thermal constraints (in us)."),
                        .prom = "gpuwatch_thermal_violation_seconds_total", .prom_scale = 1e-6},

    /* ---- PCIe ---- */
    [M_PCIE_GEN_CUR] = {M_PCIE_GEN_CUR, "pcie.link.gen.current", NULL, NULL, MK_GAUGE, MF_INT, MF_SLOW,
                        "Current PCIe link generation.", .prom = "gpuwatch_pcie_link_generation"},
    [M_PCIE_GEN_MAX] = {M_PCIE_GEN_MAX, "pcie.link.gen.max", NULL, NULL, MK_GAUGE, MF_INT, MF_STATIC,
                        "Maximum PCIe link generation.", .prom = "gpuwatch_pcie_link_generation_max"},
    [M_PCIE_WIDTH_CUR] = {M_PCIE_WIDTH_CUR, "pcie.link.width.current", NULL, NULL, MK_GAUGE, MF_INT, MF_SLOW,
                          "Current PCIe link width (lanes).", .prom = "gpuwatch_pcie_link_width"},
    [M_PCIE_WIDTH_MAX] = {M_PCIE_WIDTH_MAX, "pcie.link.width.max", NULL, NULL, MK_GAUGE, MF_INT, MF_STATIC,
                          "Maximum PCIe link width (lanes).", .prom = "gpuwatch_pcie_link_width_max"},
    [M_PCIE_RX] = {M_PCIE_RX, "pcie.rx_throughput", NULL, "KB/s", MK_GAUGE, MF_INT, MF_RATE,
                   "PCIe receive throughput (20 ms window), in KB/s.", DMON('t', 1, "rxpci", "MB/s"),
                   .dmon_div = 1000.0, .prom = "gpuwatch_pcie_receive_bytes_per_second", .prom_scale = 1000.0},
    [M_PCIE_TX] = {M_PCIE_TX, "pcie.tx_throughput", NULL, "KB/s", MK_GAUGE, MF_INT, MF_RATE,
                   "PCIe transmit throughput (20 ms window), in KB/s.", DMON('t', 2, "txpci", "MB/s"),
                   .dmon_div = 1000.0, .prom = "gpuwatch_pcie_transmit_bytes_per_second", .prom_scale = 1000.0},
    [M_PCIE_REPLAY] = {M_PCIE_REPLAY, "pcie.replay_counter", NULL, NULL, MK_COUNTER, MF_INT, 0,
                       "PCIe replay (retry) counter.", DMON('e', 3, "pci", "errs"),
                       DCGM("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "Total number of PCIe retries."),
                       .prom = "gpuwatch_pcie_replays_total"},

    /* ---- ECC and row remapping ---- */
    [M_ECC_MODE] = {M_ECC_MODE, "ecc.mode.current", NULL, NULL, MK_INFO, MF_ENABLED, MF_STATIC,
                    "Whether ECC is enabled."},
    [M_ECC_SBE_VOL] = {M_ECC_SBE_VOL, "ecc.errors.corrected.volatile.total", NULL, NULL, MK_COUNTER, MF_INT, 0,
                       "Corrected (single bit) ECC errors since the driver was loaded.", DMON('e', 1, "sbecc", "errs"),
                       DCGM("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "Total number of single-bit volatile ECC errors."),
                       .prom = "gpuwatch_ecc_corrected_volatile_errors_total"},
    [M_ECC_DBE_VOL] = {M_ECC_DBE_VOL, "ecc.errors.uncorrected.volatile.total", NULL, NULL, MK_COUNTER, MF_INT, 0,
                       "Uncorrected (double bit) ECC errors since the driver was loaded.",
                       DMON('e', 2, "dbecc", "errs"),
                       DCGM("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "Total number of double-bit volatile ECC errors."),
                       .prom = "gpuwatch_ecc_uncorrected_volatile_errors_total"},
    [M_ECC_SBE_AGG] = {M_ECC_SBE_AGG, "ecc.errors.corrected.aggregate.total", NULL, NULL, MK_COUNTER, MF_INT, 0,
                       "Corrected ECC errors over the GPU's lifetime.",
                       .prom = "gpuwatch_ecc_corrected_aggregate_errors_total"},
    [M_ECC_DBE_AGG] = {M_ECC_DBE_AGG, "ecc.errors.uncorrected.aggregate.total", NULL, NULL, MK_COUNTER, MF_INT, 0,
                       "Uncorrected ECC errors over the GPU's lifetime.",
                       .prom = "gpuwatch_ecc_uncorrected_aggregate_errors_total"},
    [M_REMAP_COR] = {M_REMAP_COR, "remapped_rows.correctable", "remapped_rows.sbe", NULL, MK_COUNTER, MF_INT, 0,
                     "Rows remapped for correctable errors.",
                     DCGM("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "Number of remapped rows for correctable errors"),
                     .prom = "gpuwatch_remapped_rows_correctable_total"},
    [M_REMAP_UNC] = {M_REMAP_UNC, "remapped_rows.uncorrectable", "remapped_rows.dbe", NULL, MK_COUNTER, MF_INT, 0,
                     "Rows remapped for uncorrectable errors.",
                     DCGM("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
                          "Number of remapped rows for uncorrectable errors"),
                     .prom = "gpuwatch_remapped_rows_uncorrectable_total"},
    [M_REMAP_PENDING] = {M_REMAP_PENDING, "remapped_rows.pending", NULL, NULL, MK_GAUGE, MF_YESNO, 0,
                         "A row remap is pending: reset the GPU to apply it.",
                         .prom = "gpuwatch_remapped_rows_pending"},
    [M_REMAP_FAILURE] = {M_REMAP_FAILURE, "remapped_rows.failure", NULL, NULL, MK_GAUGE, MF_YESNO, 0,
                         "A row remap has failed: the GPU needs service.",
                         DCGM("DCGM_FI_DEV_ROW_REMAP_FAILURE", "Whether remapping of rows has failed"),
                         .prom = "gpuwatch_remapped_rows_failure"},

    /* ---- XID ---- */
    [M_XID_LAST] = {M_XID_LAST, "xid.last", NULL, NULL, MK_GAUGE, MF_INT, 0,
                    "The last XID error seen (0 when none since start).",
                    DCGM("DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered."),
                    .prom = "gpuwatch_xid_last"},
    [M_XID_COUNT] = {M_XID_COUNT, "xid.count", NULL, NULL, MK_COUNTER, MF_INT, 0,
                     "XID errors seen since gpuwatch started.", .prom = "gpuwatch_xid_errors_total"},

    /* ---- MIG ---- */
    [M_MIG_MODE] = {M_MIG_MODE, "mig.mode.current", NULL, NULL, MK_INFO, MF_ENABLED, MF_SLOW,
                    "Whether MIG mode is enabled.", .prom = "gpuwatch_mig_enabled"},

/* ---- GPM profiling metrics (Hopper+), percent ---- */
#define GPM(ID, NAME, HELP, DC, DCHELP, PROM) \
    [ID] = {ID,                               \
            NAME,                             \
            NULL,                             \
            "%",                              \
            MK_GAUGE,                         \
            MF_FIXED1,                        \
            MF_GPM | MF_RATE,                 \
            HELP,                             \
            DCGM(DC, DCHELP),                 \
            .dcgm_scale = 0.01,               \
            .prom = PROM,                     \
            .prom_scale = 0.01}
    GPM(M_GPM_GR_ACTIVE, "gpm.graphics_active", "Percent of time the graphics engine was active.",
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Ratio of time the graphics engine is active.",
        "gpuwatch_gpm_graphics_active_ratio"),
    GPM(M_GPM_SM_ACTIVE, "gpm.sm_active", "Percent of cycles an SM had at least one warp assigned.",
        "DCGM_FI_PROF_SM_ACTIVE", "The ratio of cycles an SM has at least 1 warp assigned.",
        "gpuwatch_gpm_sm_active_ratio"),
    GPM(M_GPM_SM_OCCUPANCY, "gpm.sm_occupancy", "Warps resident on an SM, percent of the maximum.",
        "DCGM_FI_PROF_SM_OCCUPANCY", "The ratio of number of warps resident on an SM.",
        "gpuwatch_gpm_sm_occupancy_ratio"),
    GPM(M_GPM_TENSOR_ACTIVE, "gpm.tensor_active", "Percent of cycles a tensor pipe was active.",
        "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "Ratio of cycles the tensor (HMMA) pipe is active.",
        "gpuwatch_gpm_tensor_active_ratio"),
    GPM(M_GPM_DRAM_ACTIVE, "gpm.dram_active", "Percent of cycles the memory interface was sending or receiving data.",
        "DCGM_FI_PROF_DRAM_ACTIVE", "Ratio of cycles the device memory interface is active sending or receiving data.",
        "gpuwatch_gpm_dram_active_ratio"),
#undef GPM
#define GPMB(ID, NAME, HELP, DC, DCHELP, PROM) \
    [ID] = {ID,                                \
            NAME,                              \
            NULL,                              \
            "MiB/s",                           \
            MK_GAUGE,                          \
            MF_FIXED1,                         \
            MF_GPM | MF_RATE,                  \
            HELP,                              \
            DCGM(DC, DCHELP),                  \
            .dcgm_scale = 1048576.0,           \
            .prom = PROM,                      \
            .prom_scale = 1048576.0}
    GPMB(M_GPM_PCIE_TX, "gpm.pcie_tx", "PCIe bytes transmitted per second, MiB/s (GPM).", "DCGM_FI_PROF_PCIE_TX_BYTES",
         "The rate of data transmitted over the PCIe bus - including both protocol headers and data payloads - in "
         "bytes per second.",
         "gpuwatch_gpm_pcie_transmit_bytes_per_second"),
    GPMB(M_GPM_PCIE_RX, "gpm.pcie_rx", "PCIe bytes received per second, MiB/s (GPM).", "DCGM_FI_PROF_PCIE_RX_BYTES",
         "The rate of data received over the PCIe bus - including both protocol headers and data payloads - in bytes "
         "per second.",
         "gpuwatch_gpm_pcie_receive_bytes_per_second"),
    GPMB(M_GPM_NVLINK_TX, "gpm.nvlink_tx", "NVLink bytes transmitted per second, all links, MiB/s (GPM).", NULL, NULL,
         "gpuwatch_gpm_nvlink_transmit_bytes_per_second"),
    GPMB(M_GPM_NVLINK_RX, "gpm.nvlink_rx", "NVLink bytes received per second, all links, MiB/s (GPM).", NULL, NULL,
         "gpuwatch_gpm_nvlink_receive_bytes_per_second"),
#undef GPMB
    /* ---- the rest of nvidia-smi --help-query-gpu that NVML answers (the CLI's compatibility
     * fields: no exporter series; history keeps them like any other metric) ---- */
    [M_PCI_DOMAIN] = {M_PCI_DOMAIN, "pci.domain", NULL, NULL, MK_INFO, MF_STRING, MF_STATIC,
                      "PCI domain number, in hex."},
    [M_PCI_BUS] = {M_PCI_BUS, "pci.bus", NULL, NULL, MK_INFO, MF_STRING, MF_STATIC, "PCI bus number, in hex."},
    [M_PCI_DEVICE] = {M_PCI_DEVICE, "pci.device", NULL, NULL, MK_INFO, MF_STRING, MF_STATIC,
                      "PCI device number, in hex."},
    [M_PCI_BASE_CLASS] = {M_PCI_BASE_CLASS, "pci.baseClass", NULL, NULL, MK_INFO, MF_STRING, MF_STATIC,
                          "PCI base class code, in hex (0x3: display controller)."},
    [M_PCI_SUB_CLASS] = {M_PCI_SUB_CLASS, "pci.subClass", NULL, NULL, MK_INFO, MF_STRING, MF_STATIC,
                         "PCI sub class code, in hex (0x0: VGA, 0x2: 3D controller)."},
    [M_INFOROM_IMG] = {M_INFOROM_IMG, "inforom.img", "inforom.image", NULL, MK_INFO, MF_STRING, MF_STATIC,
                       "Version of the InfoROM image."},
    [M_INFOROM_OEM] = {M_INFOROM_OEM, "inforom.oem", NULL, NULL, MK_INFO, MF_STRING, MF_STATIC,
                       "Version of the InfoROM's OEM configuration object."},
    [M_INFOROM_ECC] = {M_INFOROM_ECC, "inforom.ecc", NULL, NULL, MK_INFO, MF_STRING, MF_STATIC,
                       "Version of the InfoROM's ECC object."},
    [M_INFOROM_PWR] = {M_INFOROM_PWR, "inforom.pwr", "inforom.power", NULL, MK_INFO, MF_STRING, MF_STATIC,
                       "Version of the InfoROM's power management object."},
    [M_COMPUTE_MODE] = {M_COMPUTE_MODE, "compute_mode", NULL, NULL, MK_INFO, MF_ENUM, MF_SLOW,
                        "Who may create CUDA contexts: Default (any number of processes), Exclusive_Process (one), "
                        "Prohibited (none).",
                        .names = (const char *const[]){"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process",
                                                       NULL}},
    [M_PERSISTENCE_MODE] = {M_PERSISTENCE_MODE, "persistence_mode", NULL, NULL, MK_INFO, MF_ENABLED, MF_SLOW,
                            "Whether the driver stays loaded with no client (persistence mode)."},
    [M_DISPLAY_MODE] = {M_DISPLAY_MODE, "display_mode", NULL, NULL, MK_INFO, MF_ENABLED, MF_SLOW,
                        "Whether a display is connected to the GPU (deprecated by nvidia-smi: see display_attached)."},
    [M_DISPLAY_ATTACHED] = {M_DISPLAY_ATTACHED, "display_attached", NULL, NULL, MK_INFO, MF_YESNO, MF_SLOW,
                            "Whether a physical display is connected to one of the GPU's connectors."},
    [M_DISPLAY_ACTIVE] = {M_DISPLAY_ACTIVE, "display_active", NULL, NULL, MK_INFO, MF_ENABLED, MF_SLOW,
                          "Whether a display is initialized on the GPU (memory set aside for it)."},
    [M_ADDRESSING_MODE] = {M_ADDRESSING_MODE, "addressing_mode", NULL, NULL, MK_INFO, MF_ENUM, MF_STATIC,
                           "How the GPU reaches system allocated memory: HMM, ATS or None.",
                           .names = (const char *const[]){"None", "HMM", "ATS", NULL}},
    [M_ACCOUNTING_MODE] = {M_ACCOUNTING_MODE, "accounting.mode", NULL, NULL, MK_INFO, MF_ENABLED, MF_SLOW,
                           "Whether per-process accounting is on."},
    [M_ACCOUNTING_BUFFER] = {M_ACCOUNTING_BUFFER, "accounting.buffer_size", NULL, NULL, MK_INFO, MF_INT, MF_STATIC,
                             "How many processes the accounting buffer keeps before it wraps."},
    [M_DRIVER_MODEL_CUR] = {M_DRIVER_MODEL_CUR, "driver_model.current", NULL, NULL, MK_INFO, MF_ENUM, MF_STATIC,
                            "Windows driver model in use (WDDM, TCC, MCDM); absent on Linux.",
                            .names = (const char *const[]){"WDDM", "TCC", "MCDM", NULL}},
    [M_DRIVER_MODEL_PEND] = {M_DRIVER_MODEL_PEND, "driver_model.pending", NULL, NULL, MK_INFO, MF_ENUM, MF_STATIC,
                             "Windows driver model after the next reboot; absent on Linux.",
                             .names = (const char *const[]){"WDDM", "TCC", "MCDM", NULL}},
    [M_GOM_CUR] = {M_GOM_CUR, "gom.current", "gpu_operation_mode.current", NULL, MK_INFO, MF_ENUM, MF_STATIC,
                   "GPU operation mode in use (All On, Compute, Low Double Precision).",
                   .names = (const char *const[]){"All On", "Compute", "Low Double Precision", NULL}},
    [M_GOM_PEND] = {M_GOM_PEND, "gom.pending", "gpu_operation_mode.pending", NULL, MK_INFO, MF_ENUM, MF_STATIC,
                    "GPU operation mode after the next reboot.",
                    .names = (const char *const[]){"All On", "Compute", "Low Double Precision", NULL}},
    [M_GSP_MODE_CUR] = {M_GSP_MODE_CUR, "gsp.mode.current", NULL, NULL, MK_INFO, MF_ENABLED, MF_STATIC,
                        "Whether the GSP firmware runs the GPU."},
    [M_GSP_MODE_DEFAULT] = {M_GSP_MODE_DEFAULT, "gsp.mode.default", NULL, NULL, MK_INFO, MF_ENABLED, MF_STATIC,
                            "Whether the GSP firmware runs the GPU by default."},
    [M_C2C_MODE] = {M_C2C_MODE, "c2c.mode", NULL, NULL, MK_INFO, MF_ENABLED, MF_STATIC,
                    "Whether the GPU is attached to its CPU over chip-to-chip (C2C) links."},
    [M_TEMP_TLIMIT] = {M_TEMP_TLIMIT, "temperature.gpu.tlimit", NULL, NULL, MK_GAUGE, MF_INT, 0,
                       "Degrees C left before the GPU reaches its maximum operating temperature (T.Limit)."},
    [M_ENC_SESSIONS] = {M_ENC_SESSIONS, "encoder.stats.sessionCount", NULL, NULL, MK_GAUGE, MF_INT, 0,
                        "Encoder sessions running on the GPU."},
    [M_ENC_FPS] = {M_ENC_FPS, "encoder.stats.averageFps", NULL, NULL, MK_GAUGE, MF_INT, 0,
                   "Average frames per second of the encoder sessions."},
    [M_ENC_LATENCY] = {M_ENC_LATENCY, "encoder.stats.averageLatency", NULL, NULL, MK_GAUGE, MF_INT, 0,
                       "Average encode latency of the sessions, in microseconds."},
    [M_FBC_SESSIONS] = {M_FBC_SESSIONS, "fbc.stats.sessionCount", NULL, NULL, MK_GAUGE, MF_INT, 0,
                        "Active frame buffer capture sessions (NVIDIA FBC: remote desktops, game streaming)."},
    [M_FBC_FPS] = {M_FBC_FPS, "fbc.stats.averageFps", NULL, NULL, MK_GAUGE, MF_INT, 0,
                   "Average frames per second of the frame buffer capture sessions."},
    [M_FBC_LATENCY] = {M_FBC_LATENCY, "fbc.stats.averageLatency", NULL, NULL, MK_GAUGE, MF_INT, 0,
                       "Average latency of the frame buffer capture sessions, in microseconds."},
    [M_PROTECTED_MEM_TOTAL] = {M_PROTECTED_MEM_TOTAL, "protected_memory.total", NULL, "MiB", MK_GAUGE, MF_FLOOR, 0,
                               "Confidential-compute protected memory size; absent unless CC mode is on."},
    [M_PROTECTED_MEM_FREE] = {M_PROTECTED_MEM_FREE, "protected_memory.free", NULL, "MiB", MK_GAUGE, MF_FLOOR, 0,
                              "Confidential-compute protected memory free; absent unless CC mode is on."},
    [M_POWER_DRAW_AVERAGE] = {M_POWER_DRAW_AVERAGE, "power.draw.average", "gpu.power.draw.average", "W", MK_GAUGE,
                              MF_FIXED2, 0, "Power drawn by the board averaged over one second, in watts."},
    [M_POWER_MANAGEMENT] = {M_POWER_MANAGEMENT, "power.management", NULL, NULL, MK_INFO, MF_ENABLED, MF_STATIC,
                            "Whether power management (power readings and limits) is enabled."},
    [M_CLOCK_APP_GR] = {M_CLOCK_APP_GR, "clocks.applications.graphics", "clocks.applications.gr", "MHz", MK_GAUGE,
                        MF_INT, MF_SLOW, "Applications clock of graphics set by the administrator."},
    [M_CLOCK_APP_MEM] = {M_CLOCK_APP_MEM, "clocks.applications.memory", "clocks.applications.mem", "MHz", MK_GAUGE,
                         MF_INT, MF_SLOW, "Applications clock of memory set by the administrator."},
    [M_CLOCK_DEF_APP_GR] = {M_CLOCK_DEF_APP_GR, "clocks.default_applications.graphics",
                            "clocks.default_applications.gr", "MHz", MK_GAUGE, MF_INT, MF_STATIC,
                            "Default applications clock of graphics."},
    [M_CLOCK_DEF_APP_MEM] = {M_CLOCK_DEF_APP_MEM, "clocks.default_applications.memory",
                             "clocks.default_applications.mem", "MHz", MK_GAUGE, MF_INT, MF_STATIC,
                             "Default applications clock of memory."},
    [M_VIOL_SYNC_BOOST] = {M_VIOL_SYNC_BOOST, "clocks_event_reasons_counters.sync_boost", NULL, "us", MK_COUNTER,
                           MF_INT, 0, "Time clocks were held by a sync boost group, in microseconds."},
    [M_VIOL_SW_THERMAL] = {M_VIOL_SW_THERMAL, "clocks_event_reasons_counters.sw_thermal_slowdown", NULL, "us",
                           MK_COUNTER, MF_INT, 0,
                           "Time clocks were lowered by software thermal slowdown, in microseconds."},
    [M_VIOL_POWER_BRAKE] = {M_VIOL_POWER_BRAKE, "clocks_event_reasons_counters.hw_power_brake_slowdown", NULL, "us",
                            MK_COUNTER, MF_INT, 0,
                            "Time clocks were lowered by the hardware power brake, in microseconds."},
    [M_PCIE_GEN_GPUCUR] = {M_PCIE_GEN_GPUCUR, "pcie.link.gen.gpucurrent", NULL, NULL, MK_GAUGE, MF_INT, MF_SLOW,
                           "Current PCIe link generation of the GPU (lower when idle)."},
    [M_PCIE_GEN_GPUMAX] =
        {M_PCIE_GEN_GPUMAX, "pcie.link.gen.gpumax", NULL, NULL, MK_GAUGE, MF_INT, MF_STATIC,
         "Highest PCIe link generation the GPU supports (pcie.link.gen.max is that of GPU and host)."},
    [M_ECC_MODE_PEND] = {M_ECC_MODE_PEND, "ecc.mode.pending", NULL, NULL, MK_INFO, MF_ENABLED, MF_STATIC,
                         "Whether ECC will be enabled after the next reboot."},
    [M_DRAM_ENC_CUR] = {M_DRAM_ENC_CUR, "dramEncryption.mode.current", NULL, NULL, MK_INFO, MF_ENABLED, MF_STATIC,
                        "Whether DRAM encryption is on."},
    [M_DRAM_ENC_PEND] = {M_DRAM_ENC_PEND, "dramEncryption.mode.pending", NULL, NULL, MK_INFO, MF_ENABLED, MF_STATIC,
                         "Whether DRAM encryption will be on after the next reboot."},
#define ECC_BLOCK(UNC, AGG, KIND, WHEN, HELP)                                        \
    ECC_ONE(UNC, AGG, KIND, WHEN, 0, "device_memory", HELP " in device memory.")     \
    ECC_ONE(UNC, AGG, KIND, WHEN, 1, "dram", HELP " in DRAM.")                       \
    ECC_ONE(UNC, AGG, KIND, WHEN, 2, "register_file", HELP " in the register file.") \
    ECC_ONE(UNC, AGG, KIND, WHEN, 3, "l1_cache", HELP " in the L1 cache.")           \
    ECC_ONE(UNC, AGG, KIND, WHEN, 4, "l2_cache", HELP " in the L2 cache.")           \
    ECC_ONE(UNC, AGG, KIND, WHEN, 5, "texture_memory", HELP " in texture memory.")   \
    ECC_ONE(UNC, AGG, KIND, WHEN, 6, "cbu", HELP " in the CBU.")                     \
    ECC_ONE(UNC, AGG, KIND, WHEN, 7, "sram", HELP " in SRAM.")
#define ECC_ONE(UNC, AGG, KIND, WHEN, LOC, NAME, HELP)                                                          \
    [M_ECC_LOC_FIRST + (UNC * 2 + AGG) * ECC_NLOC + LOC] = {M_ECC_LOC_FIRST + (UNC * 2 + AGG) * ECC_NLOC + LOC, \
                                                            "ecc.errors." KIND "." WHEN "." NAME,               \
                                                            NULL,                                               \
                                                            NULL,                                               \
                                                            MK_COUNTER,                                         \
                                                            MF_INT,                                             \
                                                            0,                                                  \
                                                            HELP},
    ECC_BLOCK(0, 0, "corrected", "volatile", "Corrected ECC errors since the driver was loaded")
        ECC_BLOCK(0, 1, "corrected", "aggregate", "Corrected ECC errors over the GPU's lifetime")
            ECC_BLOCK(1, 0, "uncorrected", "volatile", "Uncorrected ECC errors since the driver was loaded")
                ECC_BLOCK(1, 1, "uncorrected", "aggregate", "Uncorrected ECC errors over the GPU's lifetime")
#undef ECC_ONE
#undef ECC_BLOCK
                    [M_RETIRED_SBE] = {M_RETIRED_SBE, "retired_pages.single_bit_ecc.count", "retired_pages.sbe", NULL,
                                       MK_COUNTER, MF_INT, 0,
                                       "Pages retired for multiple single-bit ECC errors (before Ampere)."},
    [M_RETIRED_DBE] = {M_RETIRED_DBE, "retired_pages.double_bit.count", "retired_pages.dbe", NULL, MK_COUNTER, MF_INT,
                       0, "Pages retired for a double-bit ECC error (before Ampere)."},
    [M_RETIRED_PENDING] = {M_RETIRED_PENDING, "retired_pages.pending", NULL, NULL, MK_GAUGE, MF_YESNO, 0,
                           "A page retirement waits for the next reboot."},
    [M_REMAP_COR_INACTIVE] = {M_REMAP_COR_INACTIVE, "remapped_rows.correctable_inactive", NULL, NULL, MK_COUNTER,
                              MF_INT, 0, "Rows remapped for correctable errors that are not in use (inactive)."},
    [M_REMAP_UNC_INACTIVE] = {M_REMAP_UNC_INACTIVE, "remapped_rows.uncorrectable_inactive", NULL, NULL, MK_COUNTER,
                              MF_INT, 0, "Rows remapped for uncorrectable errors that are not in use (inactive)."},
#define HIST(ID, NAME, HELP) [ID] = {ID, "remapped_rows.histogram." NAME, NULL, NULL, MK_GAUGE, MF_INT, MF_SLOW, HELP}
    HIST(M_REMAP_HIST_MAX, "max", "Memory banks with all their spare rows left."),
    HIST(M_REMAP_HIST_HIGH, "high", "Memory banks with most of their spare rows left."),
    HIST(M_REMAP_HIST_PARTIAL, "partial", "Memory banks with some spare rows left."),
    HIST(M_REMAP_HIST_LOW, "low", "Memory banks with few spare rows left."),
    HIST(M_REMAP_HIST_NONE, "none", "Memory banks with no spare row left."),
#undef HIST
    [M_MIG_MODE_PEND] = {M_MIG_MODE_PEND, "mig.mode.pending", NULL, NULL, MK_INFO, MF_ENABLED, MF_SLOW,
                         "Whether MIG mode will be enabled after the next GPU reset."},

    /* ---- NVLink: active links and data-link errors, over all links and per link ---- */
    [M_NVLINK_ACTIVE] = {M_NVLINK_ACTIVE, "nvlink.links.active", NULL, NULL, MK_GAUGE, MF_INT, 0,
                         "NVLink links up (active); absent without NVLink.", .prom = "gpuwatch_nvlink_links_active"},
    [M_NVLINK_CRC_TOTAL] = {M_NVLINK_CRC_TOTAL, "nvlink.errors.crc", NULL, NULL, MK_COUNTER, MF_INT, 0,
                            "NVLink data-link CRC errors (flow-control digits and data), all links.",
                            .prom = "gpuwatch_nvlink_crc_errors_total"},
    [M_NVLINK_REPLAY_TOTAL] = {M_NVLINK_REPLAY_TOTAL, "nvlink.errors.replay", NULL, NULL, MK_COUNTER, MF_INT, 0,
                               "NVLink data-link replays (retransmissions), all links.",
                               DCGM("DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", "Total number of NVLink retries."),
                               .prom = "gpuwatch_nvlink_replay_errors_total"},
    [M_NVLINK_RECOVERY_TOTAL] = {M_NVLINK_RECOVERY_TOTAL, "nvlink.errors.recovery", NULL, NULL, MK_COUNTER, MF_INT, 0,
                                 "NVLink data-link recoveries (link retrained), all links.",
                                 DCGM("DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
                                      "Total number of NVLink recovery errors."),
                                 .prom = "gpuwatch_nvlink_recovery_errors_total"},
#define NVL_ROW(L, K, NAME, KIND, HELP) \
    [M_NVLINK_FIRST + (L)*NVL_NKINDS +  \
        (K)] = {M_NVLINK_FIRST + (L)*NVL_NKINDS + (K), "nvlink.link" #L NAME, NULL, NULL, KIND, MF_INT, 0, HELP},
#define NVL_LINK(L)                                                                                \
    NVL_ROW(L, NVL_STATE, ".state", MK_GAUGE, "NVLink link " #L ": 1 active (up), 0 inactive.")    \
    NVL_ROW(L, NVL_CRC, ".errors.crc", MK_COUNTER, "NVLink link " #L ": data-link CRC errors.")    \
    NVL_ROW(L, NVL_REPLAY, ".errors.replay", MK_COUNTER, "NVLink link " #L ": data-link replays.") \
    NVL_ROW(L, NVL_RECOVERY, ".errors.recovery", MK_COUNTER, "NVLink link " #L ": data-link recoveries.")
    NVL_LINK(0) NVL_LINK(1) NVL_LINK(2) NVL_LINK(3) NVL_LINK(4) NVL_LINK(5) NVL_LINK(6) NVL_LINK(7) NVL_LINK(8)
        NVL_LINK(9) NVL_LINK(10) NVL_LINK(11) NVL_LINK(12) NVL_LINK(13) NVL_LINK(14) NVL_LINK(15) NVL_LINK(16)
            NVL_LINK(17)
#undef NVL_LINK
#undef NVL_ROW
};

static int alias_matches(const char *aliases, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = aliases; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && memcmp(p, name, n) == 0)
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

const metric_def *catalog_find(const char *name)
{
    for (int i = 0; i < M_COUNT; i++)
        if (strcmp(metric_catalog[i].field, name) == 0)
            return &metric_catalog[i];
    for (int i = 0; i < M_COUNT; i++)
        if (alias_matches(metric_catalog[i].aliases, name))
            return &metric_catalog[i];
    return NULL;
}

void mset_all(metric_set *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < M_COUNT; i++)
        mset_add(s, (metric_id)i);
}

void catalog_offer_names(gw_suggest *s)
{
    for (int i = 0; i < M_COUNT; i++) {
        gw_suggest_add(s, metric_catalog[i].field);
        gw_suggest_add_list(s, metric_catalog[i].aliases);
    }
}

const char *catalog_suggest(const char *name, char *out, size_t n)
{
    gw_suggest s;
    gw_suggest_init(&s, name);
    catalog_offer_names(&s);
    const char *best = gw_suggest_best(&s);
    if (!best || n == 0)
        return NULL;
    gw_strlcpy(out, best, n);
    return out;
}
