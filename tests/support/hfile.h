/* hfile.h - a real history file to damage: what an agent killed while recording leaves behind. */
#ifndef GPUWATCH_HFILE_H
#define GPUWATCH_HFILE_H

#include <stdint.h>

/* Writes path (removing any file there) as an agent recording ngpus GPUs at 1 Hz from t0_us for
 * seconds and then killed would leave it: sealed 10-minute groups and their roll-ups, the open
 * group's checkpoint pieces, a process series on GPU 0, an xid event; the WAL is folded into the
 * file, so that its bytes are the whole history. The same arguments make the same bytes.
 * Returns 0, or -1. */
int hfile_build(const char *path, int ngpus, int64_t t0_us, int seconds);

#endif
