#!/usr/bin/env bash
# bench_diagnose_prometheus.sh - `gpuwatch diagnose --prometheus` over 1 h x 512 GPUs (64 hosts of 8,
# gpuwatch's native names every 15 s, jobs across hosts, a straggler and idle GPUs planted) backfilled
# into one Prometheus with promtool: wall time and peak RSS (issue 24's targets: 10 s, 500 MB).
# About 3 minutes, most of it the backfill. scripts/bench_diagnose_prometheus.py says how.
# Usage: scripts/bench_diagnose_prometheus.sh [BUILD_DIR]   (BENCH_FLEET_GPUS, BENCH_FLEET_STEP)
set -u
build=$(cd "${1:-build}" && pwd)
exec python3 "$(dirname "$0")/bench_diagnose_prometheus.py" "$build"
