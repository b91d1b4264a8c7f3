#!/usr/bin/env bash
# bench_history.sh - history figures: bytes/sample, ingest rate and query times on 1 h of 1 Hz
# 8-GPU data. Uses gpusim's training-8gpu scenario (gpusim render) when gpusim is built, and the
# built-in synthetic H100 load as well. Usage: scripts/bench_history.sh [BUILD_DIR]
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
  "$G" history bench --csv "$T/training.csv" --dir "$T/sim"
  echo
fi
mkdir -p "$T/synth"
"$G" history bench --dir "$T/synth"
