#!/usr/bin/env bash
# bench_top_prometheus.sh - CPU and memory of `gpuwatch top --prometheus` at 2 s refresh in a 200x50
# tmux pane over 512 GPUs: 8 agents x 64 GPUs on gpusim scraped every second by a real Prometheus,
# which top reads (an instant query per metric shown, every 2 s). bench_top_hosts.sh does the work;
# target <= 2 % of one core (docs/fleet.md has the figure and the load it ran under).
# Usage: scripts/bench_top_prometheus.sh BUILD_DIR [DURATION] [AGENTSxGPUS ...] (default: 8x64)
set -u
build=${1:-build}
duration=${2:-60}
shift $(($# >= 2 ? 2 : $#))
[ $# -gt 0 ] || set -- 8x64
command -v prometheus >/dev/null || { echo "bench_top_prometheus: prometheus is not installed (Debian package prometheus)"; exit 1; }
TOP_SOURCE=prometheus exec bash "$(dirname "$0")/bench_top_hosts.sh" "$build" "$duration" "$@"
