#!/usr/bin/env bash
# bench_nvml_calls.sh - NVML calls per refresh of `gpuwatch top` and per sampling round of the agent,
# 8 GPUs and 50 processes (tests/scenarios/top_bench_8gpu.yaml), counted by gpusim (GPUSIM_CALLS): on
# a real driver each call is an ioctl of tens of microseconds, so the count is what a monitor costs.
# Each program runs twice (SHORT and LONG seconds); the difference of the counts divided by the
# difference of the rounds (nvmlDeviceGetUtilizationRates calls / 8) is the steady state, without the
# start-up. Only NVML's functions count: gpusim's own (gpusimGetProcessCommand, which gives a
# simulated pid's command line where a real machine has /proc) are not calls a driver would see.
# nvtop is measured the same way when it is installed (Debian's contrib: apt-get install
# nvtop); otherwise the issue's figure (184 for 8 GPUs) is the reference.
# Target: top <= 0.5 x nvtop's calls per refresh; the agent as few per round.
# Usage: scripts/bench_nvml_calls.sh BUILD_DIR [SHORT] [LONG]
set -u
build=$(cd "${1:-build}" && pwd)
short=${2:-3}
long=${3:-9}
src=$(cd "$(dirname "$0")/.." && pwd)
gw="$build/gpuwatch"
scenario=$src/tests/scenarios/top_bench_8gpu.yaml
work=$(mktemp -d)
sock="gwcalls$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$work"' EXIT
export LANG=C.UTF-8 LC_ALL=C.UTF-8 XDG_CONFIG_HOME="$work/config" GPUWATCH_RUNTIME_DIR="$work/runtime"
export GPUSIM_SCENARIO="$scenario"

rounds() { awk '$2 == "nvmlDeviceGetUtilizationRates" {print $1 / 8}' "$1"; }
total() { awk '$1 == "TOTAL" {print $2}' "$1"; }

# run_tui NAME SECONDS COMMAND...: a terminal program in a tmux pane, q after SECONDS.
run_tui() {
  local name=$1 secs=$2
  shift 2
  tmux -L "$sock" -f /dev/null new-session -d -x 160 -y 50 \
    "env GPUSIM_CALLS=$work/$name $* ; touch $work/$name.done"
  sleep "$secs"
  tmux -L "$sock" send-keys q
  for _ in $(seq 100); do [ -e "$work/$name.done" ] && break; sleep 0.1; done
  tmux -L "$sock" kill-server 2>/dev/null
}

run_agent() {
  local name=$1 secs=$2
  printf 'listen: "127.0.0.1:0"\ninterval: 1s\nhistory: {enabled: false}\n' > "$work/agent.yaml"
  GPUSIM_CALLS="$work/$name" "$gw" --sim "$scenario" agent --config "$work/agent.yaml" >/dev/null 2>&1 &
  local pid=$!
  sleep "$secs"
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null
}

# per_round NAME: (calls(long) - calls(short)) / (rounds(long) - rounds(short)), and the breakdown
per_round() {
  local a="$work/$1-short" b="$work/$1-long"
  [ -s "$a" ] && [ -s "$b" ] || { echo "$1: no counts (did it run?)"; return 1; }
  awk -v ra="$(rounds "$a")" -v rb="$(rounds "$b")" -v name="$1" '
    FNR == 1 { file++ }
    $1 != "TOTAL" && $2 ~ /^nvml/ { n[$2] += (file == 1 ? -$1 : $1); t += (file == 1 ? -$1 : $1) }
    END {
      r = rb - ra
      if (r <= 0) { print name ": no rounds between the two runs"; exit 1 }
      printf "%s: %.1f NVML calls per round (a refresh of top, a sampling round of the agent; 8 GPUs, 50 processes; %d rounds measured)\n", name, t / r, r
      for (f in n) if (n[f] / r >= 0.05) printf "    %6.2f %s\n", n[f] / r, f | "sort -rn"
    }' "$a" "$b"
}

run_tui top-short "$short" "$gw" --sim "$scenario" top --interval 1
run_tui top-long "$long" "$gw" --sim "$scenario" top --interval 1
per_round top
run_agent agent-short "$short"
run_agent agent-long "$long"
per_round agent
if command -v nvtop >/dev/null; then
  run_tui nvtop-short "$short" env LD_LIBRARY_PATH="$build/gpusim" nvtop -d 10
  run_tui nvtop-long "$long" env LD_LIBRARY_PATH="$build/gpusim" nvtop -d 10
  per_round nvtop
else
  echo "nvtop: not installed here; the issue measured 184 calls per refresh (8 GPUs)"
fi
