/* diag_window_internal.h - what the window's builder files (diag_window.c, diag_events.c,
 * diag_procs.c) share. */
#ifndef GPUWATCH_DIAG_WINDOW_INTERNAL_H
#define GPUWATCH_DIAG_WINDOW_INTERNAL_H

#include "diag_window.h"

/* The GPU at index gpu, created (and marked known) when new; NULL on a bad index or no memory. */
diag_gpu *diag_window_gpu(diag_window *w, int gpu);
/* Appends to s in time order (a step series only when the value changes); sets w->oom on failure. */
void diag_window_push(diag_window *w, diag_series *s, uint64_t t, float v, int step);

/* diag_events.c */
void diag_window_event(diag_window *w, int gpu, uint64_t t, diag_event_kind kind, int code, int count);
/* The events between the GPU's samples before and s (event_derive), into the window. */
void diag_window_derive_events(diag_window *w, diag_gpu *g, int gpu, const gpu_sample *s);

/* diag_procs.c */
void diag_proc_release(diag_proc *p);
void diag_proc_trim_spans(diag_proc *q, uint64_t t);

#endif
