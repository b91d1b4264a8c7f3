/* smi_fields.c - the nvidia-smi --query-gpu fields (drivers 590/595) gpuwatch does not read: vGPU
 * capabilities, module (Grace) power, power smoothing, fabric and platform information, SRAM ECC
 * detail, recovery action, host PCIe generation, hostname, kernel driver version. Their names
 * resolve, their headers carry nvidia-smi's units, and their values print [N/A], so a script that
 * asks for them gets the columns it counts on. */
#include "smi_fields.h"
#include <string.h>

const smi_na_field smi_na_fields[] = {
    {"vgpu_driver_capability.heterogenous_multivGPU", NULL, NULL},
    {"vgpu_device_capability.fractional_multiVgpu", NULL, NULL},
    {"vgpu_device_capability.heterogeneous_timeSlice_profile", NULL, NULL},
    {"vgpu_device_capability.heterogeneous_timeSlice_sizes", NULL, NULL},
    {"vgpu_device_capability.homogeneous_placements", NULL, NULL},
    {"vgpu_device_capability.mig_timeSlicing", NULL, NULL},
    {"vgpu_device_capability.mig_timeSlicing_mode", NULL, NULL},
    {"pcie.link.gen.hostmax", NULL, NULL},
    {"inforom.checksum_validation", NULL, NULL},
    {"gpu_recovery_action", NULL, NULL},
    {"ecc.errors.uncorrected.volatile.sram.parity", NULL, NULL},
    {"ecc.errors.uncorrected.volatile.sram.secded", NULL, NULL},
    {"ecc.errors.uncorrected.aggregate.sram.parity", NULL, NULL},
    {"ecc.errors.uncorrected.aggregate.sram.secded", NULL, NULL},
    {"ecc.errors.uncorrected.aggregate.sram.thresholdExceeded", NULL, NULL},
    {"ecc.errors.uncorrected.aggregate.sram.l2", NULL, NULL},
    {"ecc.errors.uncorrected.aggregate.sram.sm", NULL, NULL},
    {"ecc.errors.uncorrected.aggregate.sram.mcu", NULL, NULL},
    {"ecc.errors.uncorrected.aggregate.sram.pcie", NULL, NULL},
    {"ecc.errors.uncorrected.aggregate.sram.other", NULL, NULL},
    {"module.power.draw.average", NULL, "W"},
    {"module.power.draw.instant", NULL, "W"},
    {"module.power.limit", "module.power.requested_limit", "W"},
    {"module.enforced.power.limit", "module.power.current_limit", "W"},
    {"module.power.default_limit", NULL, "W"},
    {"module.power.min_limit", NULL, "W"},
    {"module.power.max_limit", NULL, "W"},
    {"power_smoothing.delayed_power_smoothing_supported", NULL, NULL},
    {"power_smoothing.primary_power_floor", NULL, "W"},
    {"power_smoothing.secondary_power_floor", NULL, "W"},
    {"power_smoothing.min_primary_floor_activation_offset", NULL, "W"},
    {"power_smoothing.min_primary_floor_activation_point", NULL, "W"},
    {"power_smoothing.window_multiplier", NULL, "ms"},
    {"power_smoothing.curr_profile.secondary_power_floor", NULL, "W"},
    {"power_smoothing.curr_profile.primary_floor_act_window_multiplier", NULL, NULL},
    {"power_smoothing.curr_profile.primary_floor_tar_window_multiplier", NULL, NULL},
    {"power_smoothing.curr_profile.primary_floor_act_offset", NULL, "W"},
    {"power_smoothing.admin_override.secondary_power_floor", NULL, "W"},
    {"power_smoothing.admin_override.primary_floor_act_window_multiplier", NULL, NULL},
    {"power_smoothing.admin_override.primary_floor_tar_window_multiplier", NULL, NULL},
    {"power_smoothing.admin_override.primary_floor_act_offset", NULL, "W"},
    {"edpp_multiplier", NULL, "%"},
    {"fabric.state", NULL, NULL},
    {"fabric.status", NULL, NULL},
    {"fabric.cliqueId", NULL, NULL},
    {"fabric.clusterUuid", NULL, NULL},
    {"fabric.health.summary", NULL, NULL},
    {"fabric.health.bandwidth", NULL, NULL},
    {"fabric.health.route_recovery_in_progress", NULL, NULL},
    {"fabric.health.route_unhealthy", NULL, NULL},
    {"fabric.health.access_timeout_recovery", NULL, NULL},
    {"fabric.health.incorrect_configuration", NULL, NULL},
    {"fabric.health.partition_assigned", NULL, NULL},
    {"platform.chassis_serial_number", NULL, NULL},
    {"platform.slot_number", NULL, NULL},
    {"platform.tray_index", NULL, NULL},
    {"platform.host_id", NULL, NULL},
    {"platform.peer_type", NULL, NULL},
    {"platform.module_id", NULL, NULL},
    {"platform.gpu_fabric_guid", NULL, NULL},
    {"hostname", NULL, NULL},
    {"kmd_version", NULL, NULL},
};
const int smi_na_count = (int)(sizeof smi_na_fields / sizeof smi_na_fields[0]);

const smi_na_field *smi_na_find(const char *name)
{
    for (int i = 0; i < smi_na_count; i++) {
        const smi_na_field *f = &smi_na_fields[i];
        if (strcmp(f->name, name) == 0 || (f->alias && strcmp(f->alias, name) == 0))
            return f;
    }
    return NULL;
}
