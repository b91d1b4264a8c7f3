/* smi_report.c - `gpuwatch -q`: nvidia-smi -q's text report (590/595 layout: section names,
 * indentation, the key column, units) for the fields the catalog has, with -d to show only some
 * sections, -i, -l / -lms and -f as nvidia-smi. A line whose value a GPU lacks says N/A; lines for
 * what gpuwatch does not read are left out rather than invented. */
#include "smi_report.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "buf.h"
#include "format.h"
#include "options.h"
#include "pmon_format.h"
#include "session.h"
#include "smi_emit.h"
#include "suggest.h"
#include "util.h"

#define KEY_COL 55  /* the ':' column of the report */
#define PROC_COL 42 /* ... and of a process's lines */
#define MAX_PROCS 256

/* -d sections (nvidia-smi's names). */
enum {
    D_MEMORY = 1u << 0,
    D_UTILIZATION = 1u << 1,
    D_ECC = 1u << 2,
    D_TEMPERATURE = 1u << 3,
    D_POWER = 1u << 4,
    D_CLOCK = 1u << 5,
    D_COMPUTE = 1u << 6,
    D_PIDS = 1u << 7,
    D_PERFORMANCE = 1u << 8,
    D_PAGE_RETIREMENT = 1u << 9,
    D_ACCOUNTING = 1u << 10,
    D_ENCODER_STATS = 1u << 11,
    D_ROW_REMAPPER = 1u << 12,
    D_SUPPORTED_CLOCKS = 1u << 13,
    D_VOLTAGE = 1u << 14,
    D_FBC_STATS = 1u << 15,
    D_NONE = 1u << 31 /* accepted names whose sections gpuwatch does not print */
};

static const struct {
    const char *name;
    unsigned bit;
} displays[] = {
    {"MEMORY", D_MEMORY},
    {"UTILIZATION", D_UTILIZATION},
    {"ECC", D_ECC},
    {"TEMPERATURE", D_TEMPERATURE},
    {"POWER", D_POWER},
    {"CLOCK", D_CLOCK},
    {"COMPUTE", D_COMPUTE},
    {"PIDS", D_PIDS},
    {"PERFORMANCE", D_PERFORMANCE},
    {"PAGE_RETIREMENT", D_PAGE_RETIREMENT},
    {"ACCOUNTING", D_ACCOUNTING},
    {"ENCODER_STATS", D_ENCODER_STATS},
    {"ROW_REMAPPER", D_ROW_REMAPPER},
    {"SUPPORTED_CLOCKS", D_SUPPORTED_CLOCKS},
    {"VOLTAGE", D_VOLTAGE},
    {"FBC_STATS", D_FBC_STATS},
    {"SUPPORTED_GPU_TARGET_TEMP", D_NONE},
    {"RESET_STATUS", D_NONE},
    {"GSP_FIRMWARE_VERSION", D_NONE},
    {"POWER_SMOOTHING", D_NONE},
    {"POWER_PROFILES", D_NONE},
};

/* What a line shows. */
/* QL_SAMPLES: the driver's buffer of recent samples (id: the gpu_list_kind), shown in the text with
 * -d only, as nvidia-smi; QL_CLOCK_LIST: the supported clocks (text with -d only; XML always);
 * QL_VOLTAGE: NVML has no public call for it: N/A, with -d only. */
enum { QL_SECTION, QL_METRIC, QL_STRING, QL_ARCH, QL_BAR1_FREE, QL_PROCESSES, QL_SAMPLES, QL_CLOCK_LIST, QL_VOLTAGE };

typedef struct qline {
    unsigned char depth; /* 1: under "GPU <bus id>"; each level 4 spaces */
    unsigned char kind;
    const char *label;
    metric_id id;
    const char *suffix; /* after the value: " MiB", " %", "x", ... */
    unsigned show;      /* the -d section it belongs to (0: only without -d) */
    int collapse;       /* a section: when this metric is absent the section is one "Name : N/A" line */
    const char *tag;    /* its element in -x's XML; "a/b": an element a holding b */
} qline;

/* clang-format off */
#define SEC(d, l, s, x) {d, QL_SECTION, l, M_INDEX, NULL, s, 0, x}
#define MET(d, l, id, suf, s, x) {d, QL_METRIC, l, id, suf, s, 0, x}
#define STR(d, l, id, x) {d, QL_STRING, l, id, NULL, 0, 0, x}
/* clang-format on */

/* In nvidia-smi's order; sections nvidia-smi prints that gpuwatch has no field for are absent. */
static const qline lines[] = {
    STR(1, "Product Name", M_NAME, "product_name"),
    {1, QL_ARCH, "Product Architecture", M_ARCHITECTURE, NULL, 0, 0, "product_architecture"},
    MET(1, "Display Mode", M_DISPLAY_MODE, NULL, 0, "display_mode"),
    MET(1, "Display Attached", M_DISPLAY_ATTACHED, NULL, 0, "display_attached"),
    MET(1, "Display Active", M_DISPLAY_ACTIVE, NULL, 0, "display_active"),
    MET(1, "Persistence Mode", M_PERSISTENCE_MODE, NULL, 0, "persistence_mode"),
    MET(1, "Addressing Mode", M_ADDRESSING_MODE, NULL, 0, "addressing_mode"),
    SEC(1, "MIG Mode", 0, "mig_mode"),
    MET(2, "Current", M_MIG_MODE, NULL, 0, "current_mig"),
    MET(2, "Pending", M_MIG_MODE_PEND, NULL, 0, "pending_mig"),
    MET(1, "Accounting Mode", M_ACCOUNTING_MODE, NULL, D_ACCOUNTING, "accounting_mode"),
    MET(1, "Accounting Mode Buffer Size", M_ACCOUNTING_BUFFER, NULL, D_ACCOUNTING, "accounting_mode_buffer_size"),
    SEC(1, "Driver Model", 0, "driver_model"),
    MET(2, "Current", M_DRIVER_MODEL_CUR, NULL, 0, "current_dm"),
    MET(2, "Pending", M_DRIVER_MODEL_PEND, NULL, 0, "pending_dm"),
    STR(1, "Serial Number", M_SERIAL, "serial"),
    STR(1, "GPU UUID", M_UUID, "uuid"),
    MET(1, "Minor Number", M_MINOR_NUMBER, NULL, 0, "minor_number"),
    STR(1, "VBIOS Version", M_VBIOS_VERSION, "vbios_version"),
    SEC(1, "Inforom Version", 0, "inforom_version"),
    STR(2, "Image Version", M_INFOROM_IMG, "img_version"),
    STR(2, "OEM Object", M_INFOROM_OEM, "oem_object"),
    STR(2, "ECC Object", M_INFOROM_ECC, "ecc_object"),
    STR(2, "Power Management Object", M_INFOROM_PWR, "pwr_object"),
    SEC(1, "GPU Operation Mode", 0, "gpu_operation_mode"),
    MET(2, "Current", M_GOM_CUR, NULL, 0, "current_gom"),
    MET(2, "Pending", M_GOM_PEND, NULL, 0, "pending_gom"),
    MET(1, "GPU C2C Mode", M_C2C_MODE, NULL, 0, "c2c_mode"),
    SEC(1, "PCI", 0, "pci"),
    STR(2, "Bus", M_PCI_BUS, "pci_bus"),
    STR(2, "Device", M_PCI_DEVICE, "pci_device"),
    STR(2, "Domain", M_PCI_DOMAIN, "pci_domain"),
    STR(2, "Base Classcode", M_PCI_BASE_CLASS, "pci_base_class"),
    STR(2, "Sub Classcode", M_PCI_SUB_CLASS, "pci_sub_class"),
    STR(2, "Device Id", M_PCI_DEVICE_ID, "pci_device_id"),
    STR(2, "Bus Id", M_PCI_BUS_ID, "pci_bus_id"),
    STR(2, "Sub System Id", M_PCI_SUB_DEVICE_ID, "pci_sub_system_id"),
    SEC(2, "GPU Link Info", 0, "pci_gpu_link_info"),
    SEC(3, "PCIe Generation", 0, "pcie_gen"),
    MET(4, "Max", M_PCIE_GEN_MAX, NULL, 0, "max_link_gen"),
    MET(4, "Current", M_PCIE_GEN_CUR, NULL, 0, "current_link_gen"),
    MET(4, "Device Current", M_PCIE_GEN_GPUCUR, NULL, 0, "device_current_link_gen"),
    MET(4, "Device Max", M_PCIE_GEN_GPUMAX, NULL, 0, "max_device_link_gen"),
    SEC(3, "Link Width", 0, "link_widths"),
    MET(4, "Max", M_PCIE_WIDTH_MAX, "x", 0, "max_link_width"),
    MET(4, "Current", M_PCIE_WIDTH_CUR, "x", 0, "current_link_width"),
    MET(2, "Replays Since Reset", M_PCIE_REPLAY, NULL, 0, "replay_counter"),
    MET(2, "Tx Throughput", M_PCIE_TX, " KB/s", 0, "tx_util"),
    MET(2, "Rx Throughput", M_PCIE_RX, " KB/s", 0, "rx_util"),
    MET(1, "Fan Speed", M_FAN_SPEED, " %", 0, "fan_speed"),
    MET(1, "Performance State", M_PSTATE, NULL, D_PERFORMANCE, "performance_state"),
    SEC(1, "Clocks Event Reasons", D_PERFORMANCE, "clocks_event_reasons"),
    MET(2, "Idle", M_CER_GPU_IDLE, NULL, D_PERFORMANCE, "clocks_event_reason_gpu_idle"),
    MET(2, "Applications Clocks Setting", M_CER_APP_CLOCKS, NULL, D_PERFORMANCE,
        "clocks_event_reason_applications_clocks_setting"),
    MET(2, "SW Power Cap", M_CER_SW_POWER_CAP, NULL, D_PERFORMANCE, "clocks_event_reason_sw_power_cap"),
    MET(2, "HW Slowdown", M_CER_HW_SLOWDOWN, NULL, D_PERFORMANCE, "clocks_event_reason_hw_slowdown"),
    MET(3, "HW Thermal Slowdown", M_CER_HW_THERMAL, NULL, D_PERFORMANCE, "clocks_event_reason_hw_thermal_slowdown"),
    MET(3, "HW Power Brake Slowdown", M_CER_HW_POWER_BRAKE, NULL, D_PERFORMANCE,
        "clocks_event_reason_hw_power_brake_slowdown"),
    MET(2, "Sync Boost", M_CER_SYNC_BOOST, NULL, D_PERFORMANCE, "clocks_event_reason_sync_boost"),
    MET(2, "SW Thermal Slowdown", M_CER_SW_THERMAL, NULL, D_PERFORMANCE, "clocks_event_reason_sw_thermal_slowdown"),
    SEC(1, "Clocks Event Reasons Counters", D_PERFORMANCE, "clocks_event_reasons_counters"),
    MET(2, "SW Power Capping", M_VIOL_POWER, " us", D_PERFORMANCE, "clocks_event_reasons_counters_sw_power_cap"),
    MET(2, "Sync Boost", M_VIOL_SYNC_BOOST, " us", D_PERFORMANCE, "clocks_event_reasons_counters_sync_boost"),
    MET(2, "SW Thermal Slowdown", M_VIOL_SW_THERMAL, " us", D_PERFORMANCE,
        "clocks_event_reasons_counters_sw_therm_slowdown"),
    MET(2, "HW Thermal Slowdown", M_VIOL_THERMAL, " us", D_PERFORMANCE,
        "clocks_event_reasons_counters_hw_therm_slowdown"),
    MET(2, "HW Power Braking", M_VIOL_POWER_BRAKE, " us", D_PERFORMANCE,
        "clocks_event_reasons_counters_hw_power_brake"),
    SEC(1, "FB Memory Usage", D_MEMORY, "fb_memory_usage"),
    MET(2, "Total", M_MEM_TOTAL, " MiB", D_MEMORY, "total"),
    MET(2, "Reserved", M_MEM_RESERVED, " MiB", D_MEMORY, "reserved"),
    MET(2, "Used", M_MEM_USED, " MiB", D_MEMORY, "used"),
    MET(2, "Free", M_MEM_FREE, " MiB", D_MEMORY, "free"),
    SEC(1, "BAR1 Memory Usage", D_MEMORY, "bar1_memory_usage"),
    MET(2, "Total", M_BAR1_TOTAL, " MiB", D_MEMORY, "total"),
    MET(2, "Used", M_BAR1_USED, " MiB", D_MEMORY, "used"),
    {2, QL_BAR1_FREE, "Free", M_BAR1_USED, " MiB", D_MEMORY, 0, "free"},
    SEC(1, "Conf Compute Protected Memory Usage", D_MEMORY, "cc_protected_memory_usage"),
    MET(2, "Total", M_PROTECTED_MEM_TOTAL, " MiB", D_MEMORY, "total"),
    MET(2, "Used", M_PROTECTED_MEM_USED, " MiB", D_MEMORY, "used"),
    MET(2, "Free", M_PROTECTED_MEM_FREE, " MiB", D_MEMORY, "free"),
    MET(1, "Compute Mode", M_COMPUTE_MODE, NULL, D_COMPUTE, "compute_mode"),
    SEC(1, "Utilization", D_UTILIZATION, "utilization"),
    MET(2, "GPU", M_UTIL_GPU, " %", D_UTILIZATION, "gpu_util"),
    MET(2, "Memory", M_UTIL_MEMORY, " %", D_UTILIZATION, "memory_util"),
    MET(2, "Encoder", M_UTIL_ENCODER, " %", D_UTILIZATION, "encoder_util"),
    MET(2, "Decoder", M_UTIL_DECODER, " %", D_UTILIZATION, "decoder_util"),
    MET(2, "JPEG", M_UTIL_JPEG, " %", D_UTILIZATION, "jpeg_util"),
    MET(2, "OFA", M_UTIL_OFA, " %", D_UTILIZATION, "ofa_util"),
    {1, QL_SAMPLES, "GPU Utilization Samples", (metric_id)GPU_LIST_SAMPLES_GPU_UTIL, " %", D_UTILIZATION, 0,
     "gpu_util_samples"},
    {1, QL_SAMPLES, "Memory Utilization Samples", (metric_id)GPU_LIST_SAMPLES_MEM_UTIL, " %", D_UTILIZATION, 0,
     "memory_util_samples"},
    {1, QL_SAMPLES, "ENC Utilization Samples", (metric_id)GPU_LIST_SAMPLES_ENC_UTIL, " %", D_UTILIZATION, 0,
     "enc_util_samples"},
    {1, QL_SAMPLES, "DEC Utilization Samples", (metric_id)GPU_LIST_SAMPLES_DEC_UTIL, " %", D_UTILIZATION, 0,
     "dec_util_samples"},
    SEC(1, "Encoder Stats", D_ENCODER_STATS, "encoder_stats"),
    MET(2, "Active Sessions", M_ENC_SESSIONS, NULL, D_ENCODER_STATS, "session_count"),
    MET(2, "Average FPS", M_ENC_FPS, NULL, D_ENCODER_STATS, "average_fps"),
    MET(2, "Average Latency", M_ENC_LATENCY, NULL, D_ENCODER_STATS, "average_latency"),
    SEC(1, "FBC Stats", D_FBC_STATS, "fbc_stats"),
    MET(2, "Active Sessions", M_FBC_SESSIONS, NULL, D_FBC_STATS, "session_count"),
    MET(2, "Average FPS", M_FBC_FPS, NULL, D_FBC_STATS, "average_fps"),
    MET(2, "Average Latency", M_FBC_LATENCY, NULL, D_FBC_STATS, "average_latency"),
    SEC(1, "DRAM Encryption Mode", 0, "dram_encryption_mode"),
    MET(2, "Current", M_DRAM_ENC_CUR, NULL, 0, "current_dram_encryption"),
    MET(2, "Pending", M_DRAM_ENC_PEND, NULL, 0, "pending_dram_encryption"),
    SEC(1, "ECC Mode", D_ECC, "ecc_mode"),
    MET(2, "Current", M_ECC_MODE, NULL, D_ECC, "current_ecc"),
    MET(2, "Pending", M_ECC_MODE_PEND, NULL, D_ECC, "pending_ecc"),
    SEC(1, "ECC Errors", D_ECC, "ecc_errors"),
    SEC(2, "Volatile", D_ECC, "volatile"),
    MET(3, "SRAM Correctable", M_ECC_LOC_FIRST + 0 * ECC_NLOC + 7, NULL, D_ECC, "sram_correctable"),
    MET(3, "DRAM Correctable", M_ECC_LOC_FIRST + 0 * ECC_NLOC + 1, NULL, D_ECC, "dram_correctable"),
    MET(3, "DRAM Uncorrectable", M_ECC_LOC_FIRST + 2 * ECC_NLOC + 1, NULL, D_ECC, "dram_uncorrectable"),
    SEC(2, "Aggregate", D_ECC, "aggregate"),
    MET(3, "SRAM Correctable", M_ECC_LOC_FIRST + 1 * ECC_NLOC + 7, NULL, D_ECC, "sram_correctable"),
    MET(3, "DRAM Correctable", M_ECC_LOC_FIRST + 1 * ECC_NLOC + 1, NULL, D_ECC, "dram_correctable"),
    MET(3, "DRAM Uncorrectable", M_ECC_LOC_FIRST + 3 * ECC_NLOC + 1, NULL, D_ECC, "dram_uncorrectable"),
    SEC(1, "Retired Pages", D_PAGE_RETIREMENT, "retired_pages"),
    MET(2, "Single Bit ECC", M_RETIRED_SBE, NULL, D_PAGE_RETIREMENT, "multiple_single_bit_retirement/retired_count"),
    MET(2, "Double Bit ECC", M_RETIRED_DBE, NULL, D_PAGE_RETIREMENT, "double_bit_retirement/retired_count"),
    MET(2, "Pending Page Blacklist", M_RETIRED_PENDING, NULL, D_PAGE_RETIREMENT, "pending_blacklist"),
    {1, QL_SECTION, "Remapped Rows", M_INDEX, NULL, D_ROW_REMAPPER, M_REMAP_COR, "remapped_rows"},
    MET(2, "Correctable Error", M_REMAP_COR, NULL, D_ROW_REMAPPER, "remapped_row_corr"),
    MET(2, "Uncorrectable Error", M_REMAP_UNC, NULL, D_ROW_REMAPPER, "remapped_row_unc"),
    MET(2, "Pending", M_REMAP_PENDING, NULL, D_ROW_REMAPPER, "remapped_row_pending"),
    MET(2, "Remapping Failure Occurred", M_REMAP_FAILURE, NULL, D_ROW_REMAPPER, "remapped_row_failure"),
    SEC(2, "Bank Remap Availability Histogram", D_ROW_REMAPPER, "row_remapper_histogram"),
    MET(3, "Max", M_REMAP_HIST_MAX, " bank(s)", D_ROW_REMAPPER, "row_remapper_histogram_max"),
    MET(3, "High", M_REMAP_HIST_HIGH, " bank(s)", D_ROW_REMAPPER, "row_remapper_histogram_high"),
    MET(3, "Partial", M_REMAP_HIST_PARTIAL, " bank(s)", D_ROW_REMAPPER, "row_remapper_histogram_partial"),
    MET(3, "Low", M_REMAP_HIST_LOW, " bank(s)", D_ROW_REMAPPER, "row_remapper_histogram_low"),
    MET(3, "None", M_REMAP_HIST_NONE, " bank(s)", D_ROW_REMAPPER, "row_remapper_histogram_none"),
    SEC(1, "Temperature", D_TEMPERATURE, "temperature"),
    MET(2, "GPU Current Temp", M_TEMP_GPU, " C", D_TEMPERATURE, "gpu_temp"),
    MET(2, "GPU T.Limit Temp", M_TEMP_TLIMIT, " C", D_TEMPERATURE, "gpu_temp_tlimit"),
    MET(2, "Memory Current Temp", M_TEMP_MEMORY, " C", D_TEMPERATURE, "memory_temp"),
    SEC(1, "GPU Power Readings", D_POWER, "gpu_power_readings"),
    MET(2, "Average Power Draw", M_POWER_DRAW_AVERAGE, " W", D_POWER, "average_power_draw"),
    MET(2, "Instantaneous Power Draw", M_POWER_DRAW_INSTANT, " W", D_POWER, "instant_power_draw"),
    MET(2, "Current Power Limit", M_POWER_ENFORCED_LIMIT, " W", D_POWER, "current_power_limit"),
    MET(2, "Requested Power Limit", M_POWER_LIMIT, " W", D_POWER, "requested_power_limit"),
    MET(2, "Default Power Limit", M_POWER_DEFAULT_LIMIT, " W", D_POWER, "default_power_limit"),
    MET(2, "Min Power Limit", M_POWER_MIN_LIMIT, " W", D_POWER, "min_power_limit"),
    MET(2, "Max Power Limit", M_POWER_MAX_LIMIT, " W", D_POWER, "max_power_limit"),
    {1, QL_SAMPLES, "Power Samples", (metric_id)GPU_LIST_SAMPLES_POWER, " W", D_POWER, 0, "power_samples"},
    SEC(1, "Clocks", D_CLOCK, "clocks"),
    MET(2, "Graphics", M_CLOCK_GR, " MHz", D_CLOCK, "graphics_clock"),
    MET(2, "SM", M_CLOCK_SM, " MHz", D_CLOCK, "sm_clock"),
    MET(2, "Memory", M_CLOCK_MEM, " MHz", D_CLOCK, "mem_clock"),
    MET(2, "Video", M_CLOCK_VIDEO, " MHz", D_CLOCK, "video_clock"),
    SEC(1, "Applications Clocks", D_CLOCK, "applications_clocks"),
    MET(2, "Graphics", M_CLOCK_APP_GR, " MHz", D_CLOCK, "graphics_clock"),
    MET(2, "Memory", M_CLOCK_APP_MEM, " MHz", D_CLOCK, "mem_clock"),
    SEC(1, "Default Applications Clocks", D_CLOCK, "default_applications_clocks"),
    MET(2, "Graphics", M_CLOCK_DEF_APP_GR, " MHz", D_CLOCK, "graphics_clock"),
    MET(2, "Memory", M_CLOCK_DEF_APP_MEM, " MHz", D_CLOCK, "mem_clock"),
    SEC(1, "Max Clocks", D_CLOCK, "max_clocks"),
    MET(2, "Graphics", M_CLOCK_MAX_GR, " MHz", D_CLOCK, "graphics_clock"),
    MET(2, "SM", M_CLOCK_MAX_SM, " MHz", D_CLOCK, "sm_clock"),
    MET(2, "Memory", M_CLOCK_MAX_MEM, " MHz", D_CLOCK, "mem_clock"),
    {1, QL_SAMPLES, "SM Clock Samples", (metric_id)GPU_LIST_SAMPLES_SM_CLOCK, " MHz", D_CLOCK, 0, "sm_clock_samples"},
    {1, QL_SAMPLES, "Memory Clock Samples", (metric_id)GPU_LIST_SAMPLES_MEM_CLOCK, " MHz", D_CLOCK, 0,
     "mem_clock_samples"},
    {1, QL_VOLTAGE, "Voltage", M_INDEX, NULL, D_VOLTAGE, 0, "voltage"},
    {1, QL_CLOCK_LIST, "Supported Clocks", M_INDEX, NULL, D_SUPPORTED_CLOCKS, 0, "supported_clocks"},
    {1, QL_PROCESSES, "Processes", M_INDEX, NULL, D_PIDS, 0, "processes"},
};
#define NLINES (sizeof lines / sizeof lines[0])

static const char usage[] =
    "usage: gpuwatch -q [-d SECTION,...] [-i LIST] [-l SECONDS | -lms MS] [-f FILE]\n"
    "\n"
    "nvidia-smi -q's text report (its sections, indentation and units) for the fields gpuwatch reads;\n"
    "lines for what it does not read are left out, a value a GPU lacks says N/A.\n"
    "\n"
    "  -d, --display LIST  only these sections: MEMORY, UTILIZATION, ECC, TEMPERATURE, POWER, CLOCK,\n"
    "                      COMPUTE, PIDS, PERFORMANCE, PAGE_RETIREMENT, ACCOUNTING, ENCODER_STATS,\n"
    "                      ROW_REMAPPER (any case, comma separated)\n"
    "  -i, --id LIST       GPUs: indexes or ranges (0,2,4-7), UUIDs or PCI bus ids\n"
    "  -l, --loop SECONDS  repeat every SECONDS (5 when no value follows), until interrupted\n"
    "  -lms, --loop-ms MS  repeat every MS milliseconds\n"
    "  -f, --filename FILE write to FILE (overwritten) instead of stdout\n"
    "  -h, --help          this help\n";

static const cli_spec spec = {
    .cmd = "-q",
    .allowed = OPT_ID | OPT_LOOP | OPT_FILE | OPT_DISPLAY,
    .usage = usage,
};

void smi_report_sections(FILE *f)
{
    for (size_t i = 0; i < sizeof displays / sizeof displays[0]; i++)
        if (displays[i].bit != D_NONE)
            fprintf(f, "%s\n", displays[i].name);
}

int smi_report_parse_display(const char *list, unsigned *out, char *err, size_t errlen)
{
    *out = 0;
    if (!list || !*list) {
        snprintf(err, errlen, "-d: needs one or more sections (MEMORY, TEMPERATURE, ...)");
        return -1;
    }
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        unsigned bit = 0;
        for (size_t i = 0; i < sizeof displays / sizeof displays[0] && !bit; i++)
            if (strlen(displays[i].name) == len && strncasecmp(displays[i].name, p, len) == 0)
                bit = displays[i].bit;
        if (!bit) {
            char word[GW_SUGGEST_LEN], hint[GW_SUGGEST_LEN + 32];
            snprintf(word, sizeof word, "%.*s", (int)len, p);
            gw_suggest s;
            gw_suggest_init(&s, word);
            for (size_t i = 0; i < sizeof displays / sizeof displays[0]; i++)
                gw_suggest_add(&s, displays[i].name);
            snprintf(err, errlen, "-d: '%s' is not a section%s", word, gw_suggest_suffix(&s, hint, sizeof hint));
            return -1;
        }
        *out |= bit;
        p = end ? end + 1 : p + len;
    }
    return 0;
}

static const char *arch_name(double v)
{
    static const char *const names[] = {NULL,     NULL,     "Kepler",       "Maxwell", "Pascal",   "Volta",
                                        "Turing", "Ampere", "Ada Lovelace", "Hopper",  "Blackwell"};
    int i = (int)v;
    return i >= 0 && i < (int)(sizeof names / sizeof names[0]) ? names[i] : NULL;
}

/* The value text of a metric line: nvidia-smi's words and units, N/A when absent. */
static void line_value(char *buf, size_t n, const qline *l, const gpu_info *info, const gpu_sample *s)
{
    double v, used;
    const metric_def *d = catalog_get(l->id);
    if (l->kind == QL_STRING) {
        gw_strlcpy(buf, mset_has(&info->str_present, l->id) ? info->str[l->id] : "N/A", n);
        return;
    }
    if (s->status == GPU_LOST) {
        gw_strlcpy(buf, "GPU is lost", n);
        return;
    }
    if (l->kind == QL_BAR1_FREE) {
        if (sample_get(s, M_BAR1_TOTAL, &v) && sample_get(s, M_BAR1_USED, &used))
            snprintf(buf, n, "%.0f MiB", v > used ? floor(v) - floor(used) : 0);
        else
            gw_strlcpy(buf, "N/A", n);
        return;
    }
    if (!sample_get(s, l->id, &v)) {
        gw_strlcpy(buf, "N/A", n);
        return;
    }
    if (l->kind == QL_ARCH) {
        const char *name = arch_name(v);
        gw_strlcpy(buf, name ? name : "N/A", n);
        return;
    }
    fmt_value(buf, n, d, v, 0);
    if (l->suffix) {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s", l->suffix);
    }
}

int smi_process_name(const gpu_proc *p, char *out, size_t n)
{
    if (p->cmdline[0]) {
        gw_strlcpy(out, p->cmdline, n);
        char *space = strchr(out, ' ');
        if (space)
            *space = 0;
        return 1;
    }
    gw_strlcpy(out, p->name[0] ? p->name : "N/A", n);
    return p->name[0] != 0;
}

static void processes(smi_emit *e, sampler *s, int g)
{
    static gpu_proc procs[MAX_PROCS];
    char text[64], name[256];
    int n = sampler_read_processes(s, g, procs, MAX_PROCS);
    if (n <= 0) {
        smi_emit_empty(e, 1, "Processes", "processes", "None");
        return;
    }
    smi_emit_section(e, 1, "Processes", "processes");
    int d = e->xml ? 3 : 2; /* XML: each process is a <process_info> */
    e->col = PROC_COL;
    for (int k = 0; k < n; k++) {
        const gpu_proc *p = &procs[k];
        if (e->xml)
            smi_emit_section(e, 2, "", "process_info");
        smi_emit_value(e, d, "GPU instance ID", "gpu_instance_id", "N/A");
        smi_emit_value(e, d, "Compute instance ID", "compute_instance_id", "N/A");
        snprintf(text, sizeof text, "%u", p->pid);
        smi_emit_value(e, d, "Process ID", "pid", text);
        smi_emit_value(e, e->xml ? d : d + 1, "Type", "type", pmon_type(p->type));
        smi_process_name(p, name, sizeof name);
        smi_emit_value(e, e->xml ? d : d + 1, "Name", "process_name", name);
        if (p->has_mem)
            snprintf(text, sizeof text, "%.0f MiB", p->mem_mib);
        else
            gw_strlcpy(text, "N/A", sizeof text);
        smi_emit_value(e, e->xml ? d : d + 1, "Used GPU Memory", "used_memory", text);
    }
    e->col = KEY_COL;
}

#define MAX_LIST 512

/* A sample buffer's statistics, as nvidia-smi -q -d prints them (text only). */
static void samples_block(smi_emit *e, sampler *s, int g, const qline *l)
{
    static gpu_list_item it[MAX_LIST];
    char v[64];
    int n = sampler_read_list(s, g, (gpu_list_kind)l->id, 0, it, MAX_LIST);
    smi_emit_section(e, l->depth, l->label, l->tag);
    double lo = 0, hi = 0, sum = 0;
    for (int i = 0; i < n; i++) {
        lo = i == 0 || it[i].value < lo ? it[i].value : lo;
        hi = i == 0 || it[i].value > hi ? it[i].value : hi;
        sum += it[i].value;
    }
    const char *fmt = strcmp(l->suffix, " W") == 0 ? "%.2f%s" : "%.0f%s";
    if (n > 0)
        snprintf(v, sizeof v, "%.2f sec", (double)(it[n - 1].t_us - it[0].t_us) / 1e6);
    smi_emit_value(e, l->depth + 1, "Duration", "duration", n > 0 ? v : "N/A");
    snprintf(v, sizeof v, "%d", n > 0 ? n : 0);
    smi_emit_value(e, l->depth + 1, "Number of Samples", "num_samples", n >= 0 ? v : "N/A");
    const struct {
        const char *label;
        double v;
    } stat[3] = {{"Max", hi}, {"Min", lo}, {"Avg", n > 0 ? sum / n : 0}};
    for (int k = 0; k < 3; k++) {
        snprintf(v, sizeof v, fmt, stat[k].v, l->suffix);
        smi_emit_value(e, l->depth + 1, stat[k].label, stat[k].label, n > 0 ? v : "N/A");
    }
}

/* The supported memory clocks, each with the graphics clocks allowed with it. */
static void clock_list(smi_emit *e, sampler *s, int g, const qline *l)
{
    static gpu_list_item mem[64], gr[MAX_LIST];
    char v[32];
    int nm = sampler_read_list(s, g, GPU_LIST_MEM_CLOCKS, 0, mem, 64);
    if (nm <= 0) {
        smi_emit_value(e, l->depth, l->label, l->tag, "N/A");
        return;
    }
    smi_emit_section(e, l->depth, l->label, l->tag);
    for (int m = 0; m < nm; m++) {
        snprintf(v, sizeof v, "%.0f MHz", mem[m].value);
        if (e->xml) {
            smi_emit_section(e, l->depth + 1, "", "supported_mem_clock");
            smi_emit_value(e, l->depth + 2, "", "value", v);
        } else {
            smi_emit_value(e, l->depth + 1, "Memory", "value", v);
        }
        int ng = sampler_read_list(s, g, GPU_LIST_GR_CLOCKS, mem[m].value, gr, MAX_LIST);
        for (int k = 0; k < ng; k++) {
            snprintf(v, sizeof v, "%.0f MHz", gr[k].value);
            smi_emit_value(e, l->depth + 2, "Graphics", "supported_graphics_clock", v);
        }
    }
}

/* XML gives the PCI numbers without their "0x" (<pci_bus>61</pci_bus>). */
static const char *xml_value(const smi_emit *e, const qline *l, const char *value)
{
    return e->xml && strncmp(l->tag, "pci_", 4) == 0 && strncmp(value, "0x", 2) == 0 ? value + 2 : value;
}

static void gpu_block(smi_emit *e, sampler *s, int g, unsigned show)
{
    static gpu_sample smp;
    metric_set want;
    mset_all(&want);
    for (int id = 0; id < M_COUNT; id++)
        if (catalog_get((metric_id)id)->flags & MF_GPM)
            mset_del(&want, (metric_id)id);
    sampler_read(s, g, &want, &smp);
    const gpu_info *info = &s->gpus[g].info;
    smi_emit_gpu_begin(e, mset_has(&info->str_present, M_PCI_BUS_ID) ? info->str[M_PCI_BUS_ID] : "N/A");
    char value[FMT_CELL_LEN];
    int skip_below = 0; /* > 0: leave out the lines deeper than this (a collapsed section) */
    for (size_t i = 0; i < NLINES; i++) {
        const qline *l = &lines[i];
        if (show && !(l->show & show))
            continue;
        if (skip_below && l->depth > skip_below)
            continue;
        skip_below = 0;
        double v;
        if (l->kind == QL_SECTION && l->collapse && smp.status != GPU_LOST &&
            !sample_get(&smp, (metric_id)l->collapse, &v)) {
            smi_emit_value(e, l->depth, l->label, l->tag, "N/A"); /* as nvidia-smi for a GPU without it */
            skip_below = l->depth;
        } else if (l->kind == QL_SECTION)
            smi_emit_section(e, l->depth, l->label, l->tag);
        else if (l->kind == QL_PROCESSES)
            processes(e, s, g);
        else if (l->kind == QL_SAMPLES || l->kind == QL_VOLTAGE) { /* with -d, in the text, as nvidia-smi */
            if (!show || e->xml)
                continue;
            if (l->kind == QL_SAMPLES)
                samples_block(e, s, g, l);
            else {
                smi_emit_section(e, l->depth, l->label, l->tag);
                smi_emit_value(e, l->depth + 1, "Graphics", "graphics_volt", "N/A");
            }
        } else if (l->kind == QL_CLOCK_LIST) {
            if (show || e->xml)
                clock_list(e, s, g, l);
        } else {
            line_value(value, sizeof value, l, info, &smp);
            smi_emit_value(e, l->depth, l->label, l->tag, xml_value(e, l, value));
        }
    }
    smi_emit_gpu_end(e);
}

static int report_once(sampler *s, const unsigned char *sel, unsigned show, int xml, FILE *out)
{
    gw_buf b = {0};
    char day[64];
    fmt_smi_date(day, sizeof day);
    smi_emit e;
    smi_emit_init(&e, &b, xml);
    smi_emit_head(&e, day, s->versions.driver[0] ? s->versions.driver : "N/A",
                  s->versions.cuda[0] ? s->versions.cuda : "N/A", s->count);
    for (int g = 0, first = 1; g < s->count; g++) {
        if (!sel[g])
            continue;
        if (!first && !xml)
            buf_append(&b, "\n", 1);
        first = 0;
        gpu_block(&e, s, g, show);
    }
    smi_emit_tail(&e);
    int rc = b.oom || fwrite(b.data, 1, b.len, out) != b.len || fflush(out) != 0;
    buf_release(&b);
    return rc;
}

/* Takes -x / --xml-format out of argv (cli_parse does not know it); returns whether it was there. */
static int take_xml(int *argc, char **argv)
{
    int xml = 0, n = 0;
    for (int i = 0; i < *argc; i++) {
        if (i > 0 && (strcmp(argv[i], "-x") == 0 || strcmp(argv[i], "--xml-format") == 0))
            xml = 1;
        else
            argv[n++] = argv[i];
    }
    *argc = n;
    argv[n] = NULL;
    return xml;
}

typedef struct report_opts {
    unsigned show;
    int xml;
} report_opts;

static int report_round(sampler *s, const unsigned char *sel, FILE *out, void *ctx)
{
    const report_opts *r = ctx;
    return report_once(s, sel, r->show, r->xml, out);
}

int smi_report_run(int argc, char **argv)
{
    cli_opts o;
    report_opts r = {.xml = take_xml(&argc, argv)};
    int rc = cli_parse(&spec, argc, argv, &o);
    if (rc != CLI_RUN)
        return rc == CLI_HELP ? 0 : GW_EXIT_USAGE;
    char err[256];
    if (o.display && smi_report_parse_display(o.display, &r.show, err, sizeof err) != 0) {
        cli_usage_error(spec.cmd, "%s", err);
        return GW_EXIT_USAGE;
    }
    return session_rounds(spec.cmd, &o, report_round, &r);
}
