#!/usr/bin/env bash
# bench_fleet_scale.sh - `make bench`'s fleet on one machine (issue 24): 100 gpuwatch agents on
# gpusim (8 GPUs each at 1 s) pushing to one Prometheus by remote write; each agent's CPU and memory,
# the receiver's samples per second. About 3 minutes; needs ~2 GB of memory.
# scripts/bench_fleet_scale.py says more (AGENTS and push|scrape as its arguments).
# Usage: scripts/bench_fleet_scale.sh [BUILD_DIR]   (BENCH_FLEET_SECONDS: 60)
set -u
build=$(cd "${1:-build}" && pwd)
exec python3 "$(dirname "$0")/bench_fleet_scale.py" "$build" "${BENCH_FLEET_AGENTS:-100}" push
