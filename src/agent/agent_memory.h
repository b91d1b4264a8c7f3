/* agent_memory.h - keeps the long-running agent's resident memory small: malloc settings and trims. */
#ifndef GPUWATCH_AGENT_MEMORY_H
#define GPUWATCH_AGENT_MEMORY_H

/* Once, before any thread starts: one malloc arena, trim and mmap thresholds at 128 KiB (glibc). */
void agent_memory_setup(void);
/* HTTP threads: one request was served. */
void agent_memory_note_request(void);
/* Sampler thread, once per round: gives freed heap back to the kernel when a burst of
 * requests has ended (requests were served before this round but none during it). */
void agent_memory_tick(void);
/* Returns freed heap memory to the kernel now (after a history flush, for example). */
void agent_memory_trim(void);

#endif
