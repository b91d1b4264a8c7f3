#!/usr/bin/env bash
# `make bench`: runs every benchmark (scripts/bench_*.sh) against BUILD_DIR and prints their
# figures; timing targets live here, never in tests. Usage: scripts/bench.sh BUILD_DIR
set -u
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
export GPUWATCH="$build/gpuwatch" GW_BUILD_DIR="$build" GW_SOURCE_DIR="$(dirname "$here")"
export GPUSIM_LIB="$build/gpusim/libnvidia-ml.so.1" GPUSIM_TOOL="$build/gpusim/gpusim"
status=0
for b in "$here"/bench_*.sh; do
  [ -e "$b" ] || continue
  echo "== $(basename "$b" .sh)"
  bash "$b" "$build" || { echo "(benchmark $(basename "$b") failed)"; status=1; }
  echo
done
exit $status
