/* bench.h - the hidden `gpuwatch history bench` subcommand (see scripts/bench_history.sh). */
#ifndef GPUWATCH_HISTORY_BENCH_H
#define GPUWATCH_HISTORY_BENCH_H

int history_bench(int argc, char **argv);

#endif
