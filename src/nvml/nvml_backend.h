/* nvml_backend.h - the NVML backend (libnvidia-ml.so.1, or gpusim): registered by the program. */
#ifndef GPUWATCH_NVML_BACKEND_H
#define GPUWATCH_NVML_BACKEND_H

#include "backend.h"

extern const backend_ops nvml_backend_ops;

#endif
