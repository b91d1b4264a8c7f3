/* nvml_names.h - NVML names a scenario may use: error constants and the functions gpusim exports. */
#ifndef GPUSIM_NVML_NAMES_H
#define GPUSIM_NVML_NAMES_H

/* "NVML_ERROR_UNKNOWN" (or "UNKNOWN") -> 999; -1 if unknown. */
int sim_nvml_error_code(const char *name);
/* 1 if gpusim exports a function of that name. */
int sim_nvml_function_known(const char *name);
/* The exported function names, NULL-terminated (used by the ABI test). */
extern const char *const sim_nvml_functions[];

#endif
