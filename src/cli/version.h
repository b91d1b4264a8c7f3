/* version.h - gpuwatch's own version. */
#ifndef GPUWATCH_VERSION_H
#define GPUWATCH_VERSION_H

#define GW_VERSION "0.1.0"

#endif
