#!/usr/bin/env bash
# bench_top_hosts.sh - CPU and memory of `gpuwatch top --hosts` at 2 s refresh in a 200x50 tmux pane,
# reading real agents on gpusim (127.0.0.1, ephemeral ports): 4 agents x 8 GPUs (32 GPUs), then 512
# GPUs as 8 agents x 64 GPUs (an agent serves at most 64 GPUs; fewer agents than 64 x 8 keep two
# shared cores free enough to measure: top's work per GPU, a line of JSON decoded, sorted and maybe
# drawn, is the same, and it makes 8 connections instead of 64). Each GPU has a process and moving
# values. For DURATION seconds (default 60) after the first full screen: CPU as a percentage of one
# core, from utime+stime (/proc/PID/stat) and from the scheduler's run time of every thread
# (/proc/PID/task/*/schedstat); memory as VmRSS and VmHWM. Target: <= 2 % of a core for 512 GPUs
# (docs/fleet.md has the figures and the load they ran under).
# With TOP_SOURCE=prometheus (scripts/bench_top_prometheus.sh), a real Prometheus (Debian's, 127.0.0.1,
# an ephemeral port) scrapes the agents every second and top reads it: `top --prometheus URL`.
# Usage: scripts/bench_top_hosts.sh BUILD_DIR [DURATION] [AGENTSxGPUS ...] (default: 4x8 8x64)
set -u
source_kind=${TOP_SOURCE:-hosts}
build=$(cd "${1:-build}" && pwd)
duration=${2:-60}
shift $(($# >= 2 ? 2 : $#))
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(4x8 8x64)
gw="$build/gpuwatch"
sock="gwbench$$"
work=$(mktemp -d)
agents=()
prom=""
stop_agents() {
  [ -n "$prom" ] && kill "$prom" 2>/dev/null && wait "$prom" 2>/dev/null
  prom=""
  for p in "${agents[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${agents[@]}"; do wait "$p" 2>/dev/null; done
  agents=()
}
trap 'tmux -L "$sock" kill-server 2>/dev/null; stop_agents; rm -rf "$work"' EXIT
export LANG=C.UTF-8 LC_ALL=C.UTF-8
export XDG_CONFIG_HOME="$work/config" # top's default preferences, not the user's
export GPUWATCH_RUNTIME_DIR="$work/runtime"

scenario() { # scenario GPUS: every GPU busy with moving values and one process of a Slurm job
  cat <<EOF
seed: 24
gpus:
  - count: $1
    preset: h100-sxm
    metrics:
      utilization.gpu: {sine: {mean: 60, amplitude: 30, period: 7s}, noise: 3}
      power.draw: {sine: {mean: 500, amplitude: 150, period: 11s}, noise: 5}
    processes:
      - {pid: 4194000, pid_stride: 1, name: python3, user: alice, container: "slurm:job 4242 step 0 name llama",
         memory_mib: 30000, sm: 60}
EOF
}

start_prometheus() { # start_prometheus HOSTS SERIES: scraping HOSTS every second, until it has SERIES GPUs
  local port targets
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  targets=$(sed "s/[^,]*/'&'/g" <<<"$1")
  printf 'global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: gpu\n    static_configs:\n      - targets: [%s]\n' \
    "$targets" >"$work/prometheus.yml"
  rm -rf "$work/tsdb"
  prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address="127.0.0.1:$port" >"$work/prometheus.log" 2>&1 &
  prom=$!
  prom_url="http://127.0.0.1:$port"
  for _ in $(seq 600); do
    [ "$(curl -s "$prom_url/api/v1/query?query=count(gpuwatch_utilization_ratio)" |
      sed -n 's/.*"value":\[[0-9.]*,"\([0-9]*\)".*/\1/p')" = "$2" ] && return 0
    sleep 0.1
  done
  tail -5 "$work/prometheus.log"
  echo "bench_top_hosts: Prometheus does not have the $2 GPUs"
  return 1
}

run_set() { # run_set AGENTS GPUS
  local n=$1 g=$2 i hosts="" pid
  scenario "$g" >"$work/s$g.yaml"
  for i in $(seq "$n"); do
    rm -f "$work/port$i"
    "$gw" --sim "$work/s$g.yaml" agent --listen 127.0.0.1:0 --db "$work/h$g-$i.db" --port-file "$work/port$i" \
      2>"$work/agent$i.err" &
    agents+=($!)
  done
  for i in $(seq "$n"); do
    for _ in $(seq 600); do [ -s "$work/port$i" ] && break; sleep 0.05; done
    [ -s "$work/port$i" ] || { cat "$work/agent$i.err"; echo "bench_top_hosts: agent $i did not start"; return 1; }
    hosts="$hosts${hosts:+,}127.0.0.1:$(cat "$work/port$i")"
  done
  local what="--hosts $hosts"
  if [ "$source_kind" = prometheus ]; then
    start_prometheus "$hosts" "$((n * g))" || return 1
    what="--prometheus $prom_url"
  fi
  rm -f "$work/pid"
  tmux -L "$sock" -f /dev/null new-session -d -s "b$n" -x 200 -y 50 \
    "echo \$\$ > $work/pid; exec $gw top $what --interval 2"
  for _ in $(seq 100); do [ -s "$work/pid" ] && break; sleep 0.05; done
  pid=$(cat "$work/pid")
  for _ in $(seq 600); do
    tmux -L "$sock" capture-pane -p -t "b$n" | grep -q "fleet: $n hosts, $n up  $((n * g)) GPUs" && break
    sleep 0.1
  done
  tmux -L "$sock" capture-pane -p -t "b$n" | grep -q "fleet: $n hosts, $n up  $((n * g)) GPUs" ||
    { tmux -L "$sock" capture-pane -p -t "b$n"; echo "bench_top_hosts: not every agent up"; return 1; }
  sleep 5 # past the start: every agent's findings read once
  ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
  runns() { cat /proc/"$pid"/task/*/schedstat | awk '{s += $1} END {print s}'; }
  local hz t0 n0 s0 t1 n1 s1 rss hwm load
  hz=$(getconf CLK_TCK)
  t0=$(ticks); n0=$(runns); s0=$(date +%s.%N)
  sleep "$duration"
  t1=$(ticks); n1=$(runns); s1=$(date +%s.%N)
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
  hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status")
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  tmux -L "$sock" capture-pane -p -t "b$n" | grep -q "fleet: $n hosts, $n up" ||
    { echo "bench_top_hosts: an agent went down during the measurement"; return 1; }
  tmux -L "$sock" kill-session -t "b$n"
  stop_agents
  awk -v n="$n" -v g="$g" -v a="$t0" -v b="$t1" -v hz="$hz" -v s0="$s0" -v s1="$s1" -v n0="$n0" -v n1="$n1" \
    -v rss="$rss" -v hwm="$hwm" -v load="$load" -v cores="$(nproc)" -v kind="$source_kind" 'BEGIN {
    cpu = (b - a) / hz; wall = s1 - s0; run = (n1 - n0) / 1e9;
    printf "top --" kind ", %d agents x %d GPUs = %d GPUs, 2 s refresh, 200x50: %.2f s CPU (utime+stime) over %.1f s = %.2f %% of one core; run time %.3f s = %.2f %%; RSS %.1f MiB (peak %.1f MiB); load %s on %d cores%s\n",
      n, g, n * g, cpu, wall, 100 * cpu / wall, run, 100 * run / wall, rss / 1024, hwm / 1024, load, cores,
      (n * g >= 512 ? " (target <= 2 %)" : "") }'
}

for s in "${sets[@]}"; do
  run_set "${s%x*}" "${s#*x}" || exit 1
done
