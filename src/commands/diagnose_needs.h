/* diagnose_needs.h - what the detectors need of an engine's series, for diagnose --prometheus: given
 * which metrics came back in each naming and whether process series did, the series a fleet lacked
 * and the detectors that could not run for want of them. */
#ifndef GPUWATCH_DIAGNOSE_NEEDS_H
#define GPUWATCH_DIAGNOSE_NEEDS_H

#include "catalog.h"
#include "diag_fleet.h"

#define PROC_MEMORY "gpuwatch_process_memory_bytes"

/* seen[native][id]: a series of metric id came back for some host in that naming (0 dcgm-exporter's,
 * 1 gpuwatch's); procs_seen: gpuwatch's process series did; used[native]: some host was read in that
 * naming. Appends to fl->missing each needed series no host had and to fl->not_run each detector
 * no host could run, with why ("idle_holding: needs gpuwatch_process_memory_bytes (...)"). */
void diagnose_note_missing(const unsigned char seen[2][M_COUNT], int procs_seen, const int used[2], diag_fleet *fl);

#endif
