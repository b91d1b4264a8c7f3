#!/usr/bin/env bash
# test_top_prometheus.sh - `top --prometheus URL [--match SELECTOR]`: a real Prometheus (Debian's,
# 127.0.0.1, an ephemeral port, a 1 s scrape) scraping three gpuwatch agents on gpusim (8 GPUs each):
# the fleet screen shows every host and GPU with its values and jobs, as --hosts does; --match
# narrows to the series it selects; a stopped agent's host is not reporting (since when) once
# Prometheus marks its series stale, while the others keep updating; Prometheus stopped is one
# status line (the engine unreachable), the screen still answers keys; q quits cleanly. --once
# prints the same as text. Bad --prometheus and --match values are refused before anything starts.
. "$(dirname "$0")/top_lib.sh"
need_command prometheus prometheus

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
procs=()
trap 'for p in "${procs[@]}"; do kill "$p" 2>/dev/null; done; cleanup' EXIT
for i in 1 2 3; do
  "$GPUWATCH" --sim "$SCEN/fleet_8gpu.yaml" agent --listen 127.0.0.1:0 --db "$WORK/h$i.db" \
    --port-file "$WORK/port$i" 2>"$WORK/agent$i.err" &
  procs+=($!)
done
addr=()
for i in 1 2 3; do
  for _ in $(seq 400); do [ -s "$WORK/port$i" ] && break; sleep 0.05; done
  [ -s "$WORK/port$i" ] || { cat "$WORK/agent$i.err" >&2; fail "agent $i did not start"; }
  addr+=("127.0.0.1:$(cat "$WORK/port$i")")
done
# Two jobs: the first two agents in "gpu", the third in "other" (for --match).
cat >"$WORK/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: gpu
    static_configs:
      - targets: ['${addr[0]}', '${addr[1]}']
  - job_name: other
    static_configs:
      - targets: ['${addr[2]}']
YAML
pport=$(free_port)
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/data" \
  --web.listen-address="127.0.0.1:$pport" >"$WORK/prometheus.log" 2>&1 &
prom=$!
procs+=($prom)
URL="http://127.0.0.1:$pport"

# ---- the command line ----
expect_usage "--prometheus: .*http\(s\)://HOST" --prometheus "127.0.0.1:$pport"
expect_usage "--prometheus: .*http\(s\)://HOST" --prometheus "http://a@b:1/"
expect_usage "--prometheus: the fleet from an engine or from agents \(--hosts\)" --prometheus "$URL" --hosts "${addr[0]}"
expect_usage "--prometheus: the fleet from an engine or from agents \(--host\)" --prometheus "$URL" --host "${addr[0]}"
expect_usage "--match: expected a selector in braces" --prometheus "$URL" --match 'job="gpu"'
expect_usage "--match: expected a selector in braces" --prometheus "$URL" --match "{job=\"$(printf 'a\tb')\"}"
expect_usage "--match: narrows --prometheus" --match '{job="gpu"}'
ok "bad --prometheus and --match values: one clear error each, exit 2"

# ---- --once: every host and GPU once Prometheus has scraped them all ----
host_lines() { grep -Ec "^127\.0\.0\.1:[0-9]+  8 GPUs  up" <<<"$1"; }
for _ in $(seq 600); do
  out=$("$GPUWATCH" top --once --prometheus "$URL" 2>&1) && [ "$(host_lines "$out")" = 3 ] && break
  sleep 0.1
done
[ "$(host_lines "$out")" = 3 ] || fail "--once: not 3 hosts up: $out"
for a in "${addr[@]}"; do
  [ "$(grep -Ec "^$a +[0-7] +[0-9]+% +[0-9.]+ [GM]iB +[0-9]+ W +[0-9]+°C +[0-9]+ MHz" <<<"$out")" = 8 ] ||
    fail "--once: not 8 GPU lines with values of $a: $out"
  grep -Eq "^$a +0 .*sw thermal slowdown  slurm job 4242 llama / alice" <<<"$out" || fail "--once: GPU 0 of $a: $out"
  grep -Eq "^$a +4 .*k8s ml-team/bert-train / bob" <<<"$out" || fail "--once: GPU 4's pod job of $a: $out"
done
grep -q "^engine $URL read [0-9:]*$" <<<"$out" || fail "--once: the engine's line: $out"
grep -q "^none from an engine" <<<"$out" || fail "--once: the findings panel: $out"
# The same values as the agents say themselves (the scenario's constants: memory used per GPU).
direct=$("$GPUWATCH" top --once --hosts "${addr[0]}" | grep -E "^${addr[0]} +[0-7] " | awk '{print $2, $4, $5}')
viaprom=$(grep -E "^${addr[0]} +[0-7] " <<<"$out" | awk '{print $2, $4, $5}')
[ "$direct" = "$viaprom" ] || fail "memory used differs: agent: $direct; engine: $viaprom"
out=$("$GPUWATCH" top --once --prometheus "$URL" --match '{job="gpu"}' 2>&1) || fail "--match --once exited $?"
[ "$(host_lines "$out")" = 2 ] || fail "--match: not the 2 hosts of job gpu: $out"
grep -q "^${addr[2]} " <<<"$out" && fail "--match: the other job's host is shown: $out"
out=$("$GPUWATCH" top --once --prometheus "$URL" --match '{job="none"}' 2>&1)
[ $? = 1 ] || fail "--match selecting nothing should exit 1: $out"
grep -q "fleet: 0 hosts" <<<"$out" && grep -q "no series of gpuwatch_utilization_ratio" <<<"$out" ||
  fail "--match selecting nothing: the missing metrics not said: $out"
ok "--once: 3 hosts x 8 GPUs with values and jobs as the agents say; --match narrows"

# ---- the screen ----
gpu_lines() { screen "$1" | grep -Ec "^127\.0\.0\.1:[0-9]+ +[0-7] +[0-9]+%"; }
start big 200 50 top --prometheus "$URL" --interval 1
wait_for big "fleet: 3 hosts, 3 up"
wait_for big "engine $URL read [0-9:]+"
for _ in $(seq 400); do [ "$(gpu_lines big)" = 24 ] && break; sleep 0.05; done
[ "$(gpu_lines big)" = 24 ] || fail "200x50: not 24 GPU lines ($(gpu_lines big))"
for a in "${addr[@]}"; do wait_for big "^▪ $a  8 GPUs  up"; done
wait_for big "none from an engine"
keys big j
wait_for big "^▪ slurm job 4242 llama  12 GPUs on 3 hosts"
keys big j
wait_for big "by host \(j: by job\)"
ok "200x50: 3 hosts x 8 GPUs from Prometheus; j groups them by the jobs' labels"

start small 80 24 top --prometheus "$URL" --match '{job="gpu"}'
wait_for small "fleet: 2 hosts, 2 up"
wait_for small "every 2s"
ok "80x24 with --match: the 2 hosts of the job; 2 s refresh by default"
quit small

# A stopped agent: Prometheus marks its series stale at its next scrape; its host is then not
# reporting since its last read, the others keep updating (GPU 7's utilization is a sine).
kill "${procs[2]}"
wait "${procs[2]}" 2>/dev/null
wait_for big "^▪ ${addr[2]}  NOT REPORTING since [0-9:]+: no series in the engine"
wait_for big "fleet: 3 hosts, 2 up, 1 not reporting"
util_moves big "${addr[0]}" 7
ok "a stopped agent's host is not reporting once its series are stale; the others keep updating"
out=$("$GPUWATCH" top --once --prometheus "$URL" 2>&1) || fail "--once with a host not reporting exited $?"
grep -q "^${addr[2]}  NOT REPORTING since [0-9:]*: no series in the engine" <<<"$out" ||
  fail "--once: the host that reported lately is not listed as not reporting: $out"
ok "--once: a host that reported within 15 minutes, not now, is not reporting since its last sample"

# Prometheus stopped: one status line; the screen still answers keys (p pauses).
kill "$prom"
wait "$prom" 2>/dev/null
wait_for big "ENGINE UNREACHABLE since [0-9:]+: $URL: connection refused"
mark big
ok "Prometheus stopped: the engine unreachable on one line; the screen still answers"
quit big
ok "q quits cleanly (exit 0)"
out=$("$GPUWATCH" top --once --prometheus "$URL" 2>&1)
[ $? = 1 ] || fail "--once with the engine down should exit 1"
grep -q "^ENGINE UNREACHABLE since [0-9:]*: $URL: connection refused" <<<"$out" || fail "--once, engine down: $out"
ok "--once with the engine down: said, exit 1"
