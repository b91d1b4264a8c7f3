/* top_run.h - the interactive curses loop of top. */
#ifndef GPUWATCH_TOP_RUN_H
#define GPUWATCH_TOP_RUN_H

#include "top_ui.h"

/* Runs until the user quits; returns the exit status. */
int top_run(top_source *src, top_model *m, top_opts *o);

/* The `top` command (the top module). */
int cmd_top(int argc, char **argv);

#endif
