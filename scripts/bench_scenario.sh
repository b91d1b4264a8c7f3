#!/usr/bin/env bash
# bench_scenario.sh - gpusim scenarios with many XID events (issue 21 item 18: 100 000 took 5.8 s to
# load, 10 000 0.15 s): 10 000 and 100 000 events listed out of order on 8 GPUs, median of 5 runs of
#  1. `gpusim check` (parse and load), 2. `gpusim render --duration 1h --metrics xid.count` (load,
#  then 3600 readings of each GPU's XID count). Linear load: 100 000 costs about 10 x 10 000.
# Usage: scripts/bench_scenario.sh [BUILD_DIR]   (figures only)
set -u
build=$(cd "${1:-build}" && pwd)
tool="${GPUSIM_TOOL:-$build/gpusim/gpusim}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { # median wall seconds of 5 runs of "$@"
  for i in 1 2 3 4 5; do
    s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000 ))
  done | sort -n | awk 'NR == 3 {printf "%.3f", $1 / 1e6}'
}
printf '%-8s %12s %18s\n' events "check (s)" "render 1h (s)"
for n in 10000 100000; do
  python3 - "$n" > "$tmp/x$n.yaml" <<'PY'
import random, sys
n = int(sys.argv[1])
random.seed(n)
print("seed: 1\ngpus:\n  - count: 8\n    preset: h100-sxm\nevents:")
for i in random.sample(range(n), n):
    print("  - {at: %.3fs, gpu: %d, xid: %d}" % (i * 3600.0 / n, i % 8, 13 + i % 90))
PY
  c=$(median "$tool" check "$tmp/x$n.yaml")
  r=$(median "$tool" render "$tmp/x$n.yaml" --duration 1h --metrics xid.count)
  printf '%-8s %12s %18s\n' "$n" "$c" "$r"
done
