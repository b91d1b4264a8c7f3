#!/usr/bin/env bash
# bench_history.sh - history figures: bytes/sample, ingest rate and query times (raw ranges, roll-ups,
# /api/v1/query_range) on 1 h of 1 Hz 8-GPU data. Uses gpusim's training-8gpu scenario (gpusim render)
# when gpusim is built, and the built-in synthetic H100 load as well. render prints GPM rates with 17
# digits where the agent keeps them to 0.001 (the NVML backend rounds them): the file the agent would
# write from the same samples is measured too (--round-gpm). Usage: scripts/bench_history.sh [BUILD_DIR]
set -euo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
G="$BUILD/gpuwatch"
SIM="$BUILD/gpusim/gpusim"
[ -x "$G" ] || { echo "bench_history: build first (make), no $G" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if [ -x "$SIM" ] && [ -f "$ROOT/sim/scenarios/training-8gpu.yaml" ]; then
  "$SIM" render "$ROOT/sim/scenarios/training-8gpu.yaml" --step 1s --duration 1h >"$T/training.csv"
  mkdir -p "$T/sim"
  "$BUILD/bench/bench_history" --csv "$T/training.csv" --dir "$T/sim"
  mkdir -p "$T/round"
  "$BUILD/bench/bench_history" --csv "$T/training.csv" --dir "$T/round" --round-gpm --record-only |
    sed 's/^recorded .* values into .*: /bytes\/sample, whole file, GPM kept to 0.001 as the agent keeps them: /'
  echo
fi
mkdir -p "$T/synth"
"$BUILD/bench/bench_history" --dir "$T/synth"
