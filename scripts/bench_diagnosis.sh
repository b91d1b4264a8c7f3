#!/usr/bin/env bash
# bench_diagnosis.sh - the diagnosis' figures and their targets, on gpusim (8 x H100):
#   1. `gpuwatch diagnose --db` over one hour of 8 GPUs at 1 Hz from a history file (target <= 1 s);
#      the file is written by tests/bench/bench_diag.c, which samples the scenario through the real
#      NVML path (with process lists) and records it through the history API;
#   2. `gpuwatch --sim ... diagnose --replay 30m` of 8 GPUs (target <= 5 s);
#   3. the agent's extra CPU for the diagnosis (target <= 0.03 % of a core, issue 25): a 30-minute window fed
#      60 s of samples and process lists per minute, trimmed and diagnosed once a minute, as the
#      plugin does (bench_diag agent).
# Each on two scenarios: every GPU stalling with a growing process (the costliest analysis:
# tests/scenarios/diag-bench-8gpu.yaml) and steady training (healthy-training-h100x8). Wall times
# are the best of 3 runs. Usage: scripts/bench_diagnosis.sh [BUILD_DIR]
set -u
build=$(cd "${1:-build}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
gw="$build/gpuwatch"
bench="$build/bench/bench_diag"
export GPUSIM_LIB="${GPUSIM_LIB:-$build/gpusim/libnvidia-ml.so.1}"
for f in "$gw" "$bench" "$GPUSIM_LIB"; do
  [ -e "$f" ] || { echo "bench_diagnosis: build first (make): no $f" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
worst="$src/tests/scenarios/diag-bench-8gpu.yaml"
steady="$src/sim/scenarios/diagnosis/healthy-training-h100x8.yaml"
status=0

# best_of N CMD...: the shortest wall time of N runs, in seconds (the command's output discarded).
best_of() {
  local n=$1 best="" t0 t1 s
  shift
  for _ in $(seq "$n"); do
    t0=$(date +%s%N)
    "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; echo "bench_diagnosis: failed: $*" >&2; return 1; }
    t1=$(date +%s%N)
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
    if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$s; fi
  done
  echo "$best"
}

# figure NAME VALUE TARGET UNIT: one line, and the status when the target is missed.
figure() {
  local ok
  ok=$(awk -v v="$2" -v t="$3" 'BEGIN { print (v <= t) ? "ok" : "MISSED" }')
  printf "%-62s %9s %-4s (target <= %s %s) %s\n" "$1" "$2" "$4" "$3" "$4" "$ok"
  [ "$ok" = ok ] || status=1
}

for scen in "$worst" "$steady"; do
  name=$(basename "$scen" .yaml)
  echo "-- $name"
  db="$work/$name.db"
  range=$("$bench" history "$scen" 3600 "$db") || { echo "bench_diagnosis: no history file" >&2; exit 1; }
  read -r from to <<<"$range"
  findings=$("$gw" diagnose --db "$db" --from "$from" --to "$to" --format json | grep -c '"detector"')
  t=$(best_of 3 "$gw" diagnose --db "$db" --from "$from" --to "$to" --format json) || exit 1
  figure "diagnose --db, 1 h x 8 GPUs at 1 Hz ($findings findings), wall" "$t" 1 s
  t=$(best_of 3 "$gw" --sim "$scen" diagnose --replay 30m --format json) || exit 1
  figure "diagnose --replay 30m, 8 GPUs at 1 s, wall" "$t" 5 s
  "$bench" agent "$scen" 10 >"$work/agent.txt" || { echo "bench_diagnosis: bench_diag agent failed" >&2; exit 1; }
  sed 's/^/  /' "$work/agent.txt"
  share=$(awk '/extra CPU/ { print $(NF-4) }' "$work/agent.txt")
  figure "agent's extra CPU, a run a minute over 30 min of 8 GPUs" "$share" 0.03 "% of a core"
done
exit $status
