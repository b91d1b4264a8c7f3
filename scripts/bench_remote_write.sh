#!/usr/bin/env bash
# bench_remote_write.sh - remote write beside Prometheus in agent mode, in one run on one receiver:
# bytes per sample, CPU and memory of the node side, delivery after a 2-minute outage (issue 23's
# targets; scripts/bench_remote_write.py says how). About 5 minutes.
# Usage: scripts/bench_remote_write.sh [BUILD_DIR]   (BENCH_RW_SECONDS, BENCH_RW_OUTAGE: 120 s each)
set -u
build=$(cd "${1:-build}" && pwd)
exec python3 "$(dirname "$0")/bench_remote_write.py" "$build"
