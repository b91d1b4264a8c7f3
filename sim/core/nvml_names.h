/* nvml_names.h - NVML names a scenario may use: error constants and the functions gpusim exports. */
#ifndef GPUSIM_NVML_NAMES_H
#define GPUSIM_NVML_NAMES_H

/* "NVML_ERROR_UNKNOWN" (or "UNKNOWN") -> 999; -1 if unknown. */
int sim_nvml_error_code(const char *name);
/* 1 if gpusim exports a function of that name. */
int sim_nvml_function_known(const char *name);
/* The modelled functions, NULL-terminated. */
extern const char *const sim_nvml_functions[];
/* The NOT_SUPPORTED stubs (nvml_stubs.def), NULL-terminated; the optional ones (left out of the
 * minimal library) also in the second list. */
extern const char *const sim_nvml_stubs[];
extern const char *const sim_nvml_optional_stubs[];

#endif
