#!/usr/bin/env bash
# long_run_rss.sh - the agent's resident memory over a long run, as deployed: 8 simulated GPUs
# sampled every second, history on, one gzip scrape every 15 s (as Prometheus). RSS is read from
# /proc every second; prints "peak_MB last_MB vmhwm_MB" and leaves the series in OUT.csv.
# Usage: tests/bench/long_run_rss.sh BUILD_DIR MINUTES OUT.csv
set -u
build=$(cd "$1" && pwd)
minutes=$2
out=$3
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
GPUSIM_LIB="$build/gpusim/libnvidia-ml.so.1" "$build/gpuwatch" --sim "$src/tests/scenarios/agent_bench8.yaml" agent \
  --listen 127.0.0.1:0 --port-file "$tmp/port" --config /dev/null --db "$tmp/history.db" --log-level warn \
  2>"$tmp/agent.log" &
agent=$!
trap 'kill $agent 2>/dev/null; wait $agent 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
echo "t_s,rss_kb" >"$out"
end=$((SECONDS + minutes * 60))
t=0
while [ $SECONDS -lt $end ]; do
  [ $((t % 15)) -eq 0 ] && curl -s -o /dev/null -H "Accept-Encoding: gzip" "http://127.0.0.1:$port/metrics"
  echo "$t,$(awk '/^VmRSS/ {print $2}' /proc/$agent/status)" >>"$out"
  sleep 1
  t=$((t + 1))
done
hwm=$(awk '/^VmHWM/ {print $2}' /proc/$agent/status)
awk -F, -v hwm="$hwm" 'NR > 1 {if ($2 > p) p = $2; l = $2} END {printf "%.2f %.2f %.2f\n", p / 1024, l / 1024, hwm / 1024}' "$out"
