/* preset.c - the preset table. H100 and RTX 4080 (SUPER) values are from real nvidia-smi
 * captures (drivers 590/595); the others from the products' published specifications. */
#include "preset.h"
#include <string.h>

#define BRAND_GEFORCE 5
#define BRAND_NVIDIA 14
#define ARCH_AMPERE 7
#define ARCH_ADA 8
#define ARCH_HOPPER 9

static const sim_preset presets[] = {
    {.id = "h100-sxm", .name = "NVIDIA H100 80GB HBM3", .brand = BRAND_NVIDIA, .arch = ARCH_HOPPER,
     .cc_major = 9, .cc_minor = 0, .vbios = "96.00.A5.00.01", .pci_device_id = 0x233010DE, .pci_subsys_id = 0x16C110DE,
     .mem_total_mib = 81559, .mem_reserved_mib = 479, .bar1_total_mib = 131072,
     .power_limit_w = 700, .power_min_w = 200, .power_max_w = 700, .power_idle_w = 69.8,
     .clk_max_gr = 1980, .clk_max_sm = 1980, .clk_max_mem = 2619, .clk_max_video = 1545,
     .clk_idle_gr = 345, .clk_idle_mem = 2619, .clk_idle_video = 765,
     .t_shutdown = 95, .t_slowdown = 89, .t_gpu_max = 87, .t_mem_max = 95,
     .t_idle = 41, .t_load = 72, .t_mem_idle = 48, .thermal_tau_s = 30,
     .pcie_gen = 5, .pcie_width = 16, .pstate_idle = 0, .pstate_busy = 0, .nvlinks = 18,
     .flags = PRESET_HBM | PRESET_ECC | PRESET_SERIAL | PRESET_GPM | PRESET_MIG},
    {.id = "h200-sxm", .name = "NVIDIA H200", .brand = BRAND_NVIDIA, .arch = ARCH_HOPPER,
     .cc_major = 9, .cc_minor = 0, .vbios = "96.00.AF.00.01", .pci_device_id = 0x233510DE, .pci_subsys_id = 0x18BE10DE,
     .mem_total_mib = 143771, .mem_reserved_mib = 551, .bar1_total_mib = 262144,
     .power_limit_w = 700, .power_min_w = 200, .power_max_w = 700, .power_idle_w = 76,
     .clk_max_gr = 1980, .clk_max_sm = 1980, .clk_max_mem = 3201, .clk_max_video = 1545,
     .clk_idle_gr = 345, .clk_idle_mem = 3201, .clk_idle_video = 765,
     .t_shutdown = 95, .t_slowdown = 89, .t_gpu_max = 87, .t_mem_max = 95,
     .t_idle = 36, .t_load = 70, .t_mem_idle = 42, .thermal_tau_s = 30,
     .pcie_gen = 5, .pcie_width = 16, .pstate_idle = 0, .pstate_busy = 0, .nvlinks = 18,
     .flags = PRESET_HBM | PRESET_ECC | PRESET_SERIAL | PRESET_GPM | PRESET_MIG},
    {.id = "a100-sxm", .name = "NVIDIA A100-SXM4-80GB", .brand = BRAND_NVIDIA, .arch = ARCH_AMPERE,
     .cc_major = 8, .cc_minor = 0, .vbios = "92.00.36.00.02", .pci_device_id = 0x20B210DE, .pci_subsys_id = 0x147F10DE,
     .mem_total_mib = 81920, .mem_reserved_mib = 543, .bar1_total_mib = 131072,
     .power_limit_w = 400, .power_min_w = 100, .power_max_w = 400, .power_idle_w = 61,
     .clk_max_gr = 1410, .clk_max_sm = 1410, .clk_max_mem = 1593, .clk_max_video = 1290,
     .clk_idle_gr = 210, .clk_idle_mem = 1593, .clk_idle_video = 795,
     .t_shutdown = 92, .t_slowdown = 89, .t_gpu_max = 85, .t_mem_max = 95,
     .t_idle = 33, .t_load = 68, .t_mem_idle = 40, .thermal_tau_s = 30,
     .pcie_gen = 4, .pcie_width = 16, .pstate_idle = 0, .pstate_busy = 0, .nvlinks = 12,
     .flags = PRESET_HBM | PRESET_ECC | PRESET_SERIAL | PRESET_MIG},
    {.id = "rtx4080", .name = "NVIDIA GeForce RTX 4080 SUPER", .brand = BRAND_GEFORCE, .arch = ARCH_ADA,
     .cc_major = 8, .cc_minor = 9, .vbios = "95.03.44.00.B2", .pci_device_id = 0x270210DE, .pci_subsys_id = 0x51101462,
     .mem_total_mib = 16376, .mem_reserved_mib = 434, .bar1_total_mib = 16384,
     .power_limit_w = 320, .power_min_w = 150, .power_max_w = 400, .power_idle_w = 26,
     .clk_max_gr = 3165, .clk_max_sm = 3165, .clk_max_mem = 11501, .clk_max_video = 2415,
     .clk_idle_gr = 210, .clk_idle_mem = 405, .clk_idle_video = 1185,
     .t_shutdown = 101, .t_slowdown = 96, .t_gpu_max = 90, .t_mem_max = 0,
     .t_idle = 43, .t_load = 78, .t_mem_idle = 0, .thermal_tau_s = 20,
     .pcie_gen = 4, .pcie_width = 16, .pstate_idle = 8, .pstate_busy = 2,
     .flags = PRESET_FAN},
    {.id = "l4", .name = "NVIDIA L4", .brand = BRAND_NVIDIA, .arch = ARCH_ADA,
     .cc_major = 8, .cc_minor = 9, .vbios = "95.04.29.00.06", .pci_device_id = 0x27B810DE, .pci_subsys_id = 0x16CA10DE,
     .mem_total_mib = 23034, .mem_reserved_mib = 423, .bar1_total_mib = 32768,
     .power_limit_w = 72, .power_min_w = 40, .power_max_w = 72, .power_idle_w = 16,
     .clk_max_gr = 2040, .clk_max_sm = 2040, .clk_max_mem = 6251, .clk_max_video = 1770,
     .clk_idle_gr = 210, .clk_idle_mem = 405, .clk_idle_video = 795,
     .t_shutdown = 95, .t_slowdown = 92, .t_gpu_max = 87, .t_mem_max = 0,
     .t_idle = 35, .t_load = 75, .t_mem_idle = 0, .thermal_tau_s = 25,
     .pcie_gen = 4, .pcie_width = 16, .pstate_idle = 8, .pstate_busy = 0,
     .flags = PRESET_ECC | PRESET_SERIAL},
};

const sim_preset *preset_find(const char *id)
{
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (strcmp(presets[i].id, id) == 0) return &presets[i];
    return NULL;
}

const char *preset_names(void)
{
    return "h100-sxm, h200-sxm, a100-sxm, rtx4080, l4";
}
