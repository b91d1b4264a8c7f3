#!/usr/bin/env bash
# bench_agent.sh - the agent's figures on an 8-GPU gpusim scenario: /metrics req/s and p99 under
# 64 connections (wrk, 10 s; back to back with two load threads and with one, and with each
# connection pausing BENCH_PACE_MS, default 100 ms, between requests, or 50-150 % of it at random) beside
# prometheus-node-exporter in the same run and beside the floor (libmicrohttpd alone sending a
# fixed body of the same size: tests/bench/bench_http_floor.c), the agent's own work per scrape
# without HTTP (tests/bench/bench_metrics_page.c), the agent's RSS (history
# on, as by default, into a temporary file) at start, after the load, after node_exporter's run, after
# the idle window and with a full ring, and the CPU its sampler thread uses at a 1 s interval over 30 s;
# the alert evaluator's CPU at 1 Hz over a full 15-minute ring of 8 GPUs with the default rules
# (tests/bench/bench_alerts_eval.c, in-process, 300 simulated seconds).
# BENCH_AGENT_CPU_MINUTES=N (off by default: ~N+17 minutes) also runs an agent at 1 s with the
# default config until its ring is full (17 minutes) and reports its whole CPU over N more minutes.
# Usage: scripts/bench_agent.sh [BUILD_DIR]   (BENCH_FULL_RING=0 skips the full-ring agent, ~90 s)
# /metrics is measured with `Accept-Encoding: gzip` (what Prometheus sends) and without (identity).
set -u
build=$(cd "${1:-build}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
gw="${GPUWATCH:-$build/gpuwatch}"
duration=${BENCH_DURATION:-10}
cpu_window=${BENCH_CPU_WINDOW:-30}
for t in wrk prometheus-node-exporter python3; do
  command -v "$t" >/dev/null || { echo "bench_agent: $t is missing (scripts/deps.sh bench)"; exit 1; }
done
tmp=$(mktemp -d); pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rss_of() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
wait_http() { for _ in $(seq 100); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done; echo "bench_agent: $1 not answering"; exit 1; }

"$gw" --sim "$src/tests/scenarios/agent_bench8.yaml" agent --listen 127.0.0.1:0 --port-file "$tmp/port" \
  --config /dev/null --db "$tmp/history.db" --log-level warn 2>"$tmp/agent.log" &
agent=$!; pids+=($agent)
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
[ -s "$tmp/port" ] || { echo "bench_agent: the agent did not start"; cat "$tmp/agent.log"; exit 1; }
aport=$(cat "$tmp/port")
rss_start=$(rss_of $agent)
wait_http "http://127.0.0.1:$aport/metrics"
sleep 1.5   # a few sampling rounds, so the page is full
nport=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$nport" >"$tmp/node.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$nport/metrics"

# wrk on URL [HEADER] -> "req/s p99_ms non2xx"; req/s counts only 2xx/3xx answers (node_exporter
# answers 503 beyond its --web.max-requests, and those are quick).
# With a third argument MS, every connection waits MS ms after each answer (a wrk delay() script):
# 64 connections open, each scraping like an eager Prometheus, instead of back to back. With the
# same MS for all they stay in step (64 requests arrive together); LO-HI draws each pause at
# random, so that they drift apart as independent scrapers do.
# WRK_THREADS (default 2) load threads. On a 2-core machine two of them and the server under test
# are three busy threads on two cores, so that p99 then also measures how long the scheduler keeps
# the server off a core; with one load thread, each side has a core.
measure() {
  local script=()
  if [ -n "${3:-}" ]; then
    local d="$3"
    case "$d" in *-*) d="math.random(${d%-*}, ${d#*-})" ;; esac   # LO-HI: a random pause each time
    printf 'function delay()\n  return %s\nend\n' "$d" > "$tmp/pace.lua"
    script=(-s "$tmp/pace.lua")
  fi
  wrk -t"${WRK_THREADS:-2}" -c64 -d"${duration}s" --latency "${script[@]}" ${2:+-H "$2"} "$1" > "$tmp/wrk.txt" 2>&1
  python3 - "$tmp/wrk.txt" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s|m)\b", t)
secs = float(m.group(2)) * {"us": 1e-6, "ms": 1e-3, "s": 1, "m": 60}[m.group(3)]
errs = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
bad = int(errs.group(1)) if errs else 0
rps = (int(m.group(1)) - bad) / secs
m = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", t)
p99 = float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]
print("%.0f %.3f %d" % (rps, p99, bad))
PY
}
gz="Accept-Encoding: gzip"
read -r a_rps a_p99 a_err < <(measure "http://127.0.0.1:$aport/metrics")
read -r n_rps n_p99 n_err < <(measure "http://127.0.0.1:$nport/metrics")
read -r az_rps az_p99 az_err < <(measure "http://127.0.0.1:$aport/metrics" "$gz")
rss_load=$(rss_of $agent)
read -r nz_rps nz_p99 nz_err < <(measure "http://127.0.0.1:$nport/metrics" "$gz")
read -r a1_rps a1_p99 a1_err < <(WRK_THREADS=1 measure "http://127.0.0.1:$aport/metrics" "$gz")
read -r n1_rps n1_p99 n1_err < <(WRK_THREADS=1 measure "http://127.0.0.1:$nport/metrics" "$gz")
# The floor: libmicrohttpd alone sending a fixed body of the gzip page's size (tests/bench/bench_http_floor.c),
# measured right after the agent, the same two ways: what is left of p99 once the agent's work is gone.
f1_p99="n/a"; f2_p99="n/a"; f1_rps=0
if [ -x "$build/bench/bench_http_floor" ]; then
  "$build/bench/bench_http_floor" "$(curl -s -H "$gz" "http://127.0.0.1:$aport/metrics" | wc -c)" "$tmp/floor_port" &
  pids+=($!)
  for _ in $(seq 50); do [ -s "$tmp/floor_port" ] && break; sleep 0.1; done
  fport_floor=$(cat "$tmp/floor_port")
  read -r f1_rps f1_p99 _ < <(WRK_THREADS=1 measure "http://127.0.0.1:$fport_floor/metrics" "$gz")
  read -r _ f2_p99 _ < <(measure "http://127.0.0.1:$fport_floor/metrics" "$gz")
fi
pace_ms=${BENCH_PACE_MS:-100}
read -r ap_rps ap_p99 ap_err < <(measure "http://127.0.0.1:$aport/metrics" "$gz" "$pace_ms")
read -r np_rps np_p99 np_err < <(measure "http://127.0.0.1:$nport/metrics" "$gz" "$pace_ms")
read -r aj_rps aj_p99 aj_err < <(measure "http://127.0.0.1:$aport/metrics" "$gz" "$((pace_ms / 2))-$((pace_ms * 3 / 2))")
read -r nj_rps nj_p99 nj_err < <(measure "http://127.0.0.1:$nport/metrics" "$gz" "$((pace_ms / 2))-$((pace_ms * 3 / 2))")
# The agent's own work per scrape, without HTTP: tests/bench/bench_metrics_page.c (in-process agent).
page_us="n/a"
if [ -x "$build/bench/bench_metrics_page" ]; then
  mkdir -p "$tmp/page"
  read -r pid_us pgz_us < <(GPUSIM_LIB="${GPUSIM_LIB:-$build/gpusim/libnvidia-ml.so.1}" \
    "$build/bench/bench_metrics_page" "$src/tests/scenarios/agent_bench8.yaml" "$tmp/page")
  page_us="$pid_us / $pgz_us us"
fi
# The alert evaluator over a full ring (tests/bench/bench_alerts_eval.c): CPU per second of engine calls.
alerts_eval="n/a"
if [ -x "$build/bench/bench_alerts_eval" ]; then
  read -r ae_us ae_evals ae_bytes < <(GPUSIM_LIB="${GPUSIM_LIB:-$build/gpusim/libnvidia-ml.so.1}" \
    "$build/bench/bench_alerts_eval" "$src/tests/scenarios/agent_bench8.yaml" "$src/deploy/rules/gpuwatch-default.yaml" 300)
  if [ -n "${ae_us:-}" ]; then
    alerts_eval=$(awk -v us="$ae_us" -v b="$ae_bytes" 'BEGIN {printf "%.1f us/s = %.4f %% (kept %.0f kB)", us, us / 1e4, b / 1024}')
  else
    alerts_eval="FAILED (bench_alerts_eval printed nothing)"
  fi
fi
a_size=$(curl -s "http://127.0.0.1:$aport/metrics" | wc -c)
n_size=$(curl -s "http://127.0.0.1:$nport/metrics" | wc -c)
az_size=$(curl -s -H "$gz" "http://127.0.0.1:$aport/metrics" | wc -c)
nz_size=$(curl -s -H "$gz" "http://127.0.0.1:$nport/metrics" | wc -c)
rss_kb=$(rss_of $agent)
# A second, full-ring agent, started once the load is over. The default ring holds 900 samples per
# GPU (15 min at 1 s); this one samples every 100 ms into a 90 s ring (the same 900 samples) with
# gpusim's clock 10x faster (values move per sample as at 1 s) and flushes history every 1 s; it is
# read after 92 s. Its open history chunk then holds 900 samples per GPU where a 1 s agent holds at
# most 600 (10-minute chunks), so its figure is an upper bound.
full_ring=${BENCH_FULL_RING:-1}
if [ "$full_ring" = 1 ]; then
  printf 'ring_duration: 90s\nhistory:\n  flush_interval: 1s\n' >"$tmp/full.yaml"
  GPUSIM_SPEED=10 "$gw" --sim "$src/tests/scenarios/agent_bench8.yaml" agent --listen 127.0.0.1:0 --interval 100ms \
    --port-file "$tmp/fport" --config "$tmp/full.yaml" --db "$tmp/full.db" --log-level warn 2>"$tmp/full.log" &
  full=$!; pids+=($full); full_t0=$(date +%s)
fi

# CPU of the sampling threads (gw-sampler and the GPUs' readers gw-read-N) over the window, with no
# scrapes going on.
tids=$(grep -lE '^gw-(sampler|read-[0-9]+)$' /proc/$agent/task/*/comm 2>/dev/null | cut -d/ -f5 | tr '\n' ' ')
# schedstat's first field: nanoseconds on a CPU (finer than stat's clock ticks).
ticks() { for t in $1; do awk '{print $1}' "/proc/$agent/task/$t/schedstat"; done | awk '{s += $1} END {printf "%.0f", s}'; }
proc_ticks() { cat /proc/$agent/task/*/schedstat | awk '{s += $1} END {printf "%.0f", s}'; }
hz=1000000000
t0=$(ticks "$tids"); p0=$(proc_ticks); sleep "$cpu_window"; t1=$(ticks "$tids"); p1=$(proc_ticks)
rss_after=$(rss_of $agent)

# The full-ring agent: scraped as the first one was (64 connections, 5 s), then read after 5 s.
full_rss="n/a"; full_ring_kb="n/a"; full_api_ms="n/a"
if [ "$full_ring" = 1 ]; then
  fport=$(cat "$tmp/fport" 2>/dev/null)
  left=$((full_t0 + 92 - $(date +%s))); [ $left -gt 0 ] && sleep $left
  wrk -t2 -c64 -d5s -H "$gz" "http://127.0.0.1:$fport/metrics" >/dev/null 2>&1
  full_api_ms=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$fport/api/v1/samples?metric=utilization.gpu" |
    awk '{printf "%.1f ms", $1 * 1000}')
  sleep 5
  full_rss=$(awk '{printf "%.1f MB", $1 / 1024}' <<<"$(rss_of $full)")
  full_ring_kb=$(curl -s "http://127.0.0.1:$fport/metrics" | awk '/^gpuwatch_ring_bytes / {printf "%.0f kB", $2 / 1024}')
fi

# Optional: the whole agent's CPU with its ring full, at 1 s and the default config (rules included).
long_cpu="n/a (BENCH_AGENT_CPU_MINUTES)"
if [ -n "${BENCH_AGENT_CPU_MINUTES:-}" ]; then
  "$gw" --sim "$src/tests/scenarios/agent_bench8.yaml" agent --listen 127.0.0.1:0 --config /dev/null \
    --db "$tmp/long.db" --log-level warn 2>"$tmp/long.log" &
  long=$!; pids+=($long)
  sleep 1020   # 17 minutes: the 15-minute ring is full
  l0=$(cat /proc/$long/task/*/schedstat | awk '{s += $1} END {printf "%.0f", s}')
  sleep $((BENCH_AGENT_CPU_MINUTES * 60))
  l1=$(cat /proc/$long/task/*/schedstat | awk '{s += $1} END {printf "%.0f", s}')
  long_cpu=$(awk -v d=$((l1 - l0)) -v s=$((BENCH_AGENT_CPU_MINUTES * 60)) 'BEGIN {printf "%.3f %% of a core", 100 * d / 1e9 / s}')
fi

python3 - <<PY
a_rps, n_rps, az_rps, nz_rps = $a_rps, $n_rps, $az_rps, $nz_rps
ratio = lambda a, n: "%.1fx" % (a / n if n else float("inf"))
rows = [
  ("agent /metrics gzip req/s (64 conn, ${duration}s)", "%.0f" % az_rps, ">= 2x node_exporter"),
  ("node_exporter /metrics gzip req/s (2xx only)", "%.0f" % nz_rps, ""),
  ("ratio agent / node_exporter, gzip", ratio(az_rps, nz_rps), ">= 2x"),
  ("agent p99, gzip, back to back, 1 load thread", "%.3f ms (%.0f req/s)" % ($a1_p99, $a1_rps), "<= 5 ms"),
  ("node_exporter p99, same (2xx req/s)", "%.3f ms (%.0f req/s)" % ($n1_p99, $n1_rps), ""),
  ("floor (libmicrohttpd, fixed body) p99, 1 load thread", "$f1_p99 ms (%.0f req/s)" % $f1_rps, ""),
  ("agent p99, gzip, back to back, 2 load threads", "%.3f ms" % $az_p99, "(3 busy threads, 2 cores)"),
  ("node_exporter p99, same", "%.3f ms" % $nz_p99, ""),
  ("floor p99, 2 load threads", "$f2_p99 ms", ""),
  ("agent p99, gzip, 64 conn each pausing ${pace_ms} ms (in step)", "%.3f ms (%.0f req/s)" % ($ap_p99, $ap_rps), "<= 5 ms"),
  ("node_exporter p99, same pacing (2xx req/s)", "%.3f ms (%.0f req/s)" % ($np_p99, $np_rps), ""),
  ("agent p99, gzip, 64 conn each pausing $((pace_ms / 2))-$((pace_ms * 3 / 2)) ms at random", "%.3f ms (%.0f req/s)" % ($aj_p99, $aj_rps), "<= 5 ms"),
  ("node_exporter p99, same (2xx req/s)", "%.3f ms (%.0f req/s)" % ($nj_p99, $nj_rps), ""),
  ("agent /metrics identity req/s", "%.0f" % a_rps, ""),
  ("node_exporter /metrics identity req/s (2xx only)", "%.0f" % n_rps, ""),
  ("ratio agent / node_exporter, identity", ratio(a_rps, n_rps), ""),
  ("agent p99 latency, identity", "%.3f ms" % $a_p99, ""),
  ("node_exporter p99 latency, identity", "%.3f ms" % $n_p99, ""),
  ("non-2xx agent / node (identity; gzip)", "$a_err / $n_err; $az_err / $nz_err; $a1_err / $n1_err", "0 for the agent"),
  ("agent's work per scrape without HTTP, identity / gzip", "$page_us", ""),
  ("page size agent / node_exporter", "$a_size / $n_size bytes", ""),
  ("gzip page size agent / node_exporter", "$az_size / $nz_size bytes", ""),
  ("agent RSS at start (history on)", "%.1f MB" % ($rss_start / 1024), "<= 16 MB"),
  ("agent RSS after load / after all wrk runs / ${cpu_window}s idle", "%.1f / %.1f / %.1f MB" % ($rss_load / 1024, $rss_kb / 1024, $rss_after / 1024), "<= 16 MB"),
  ("agent RSS, full ring (900 samples/GPU, scaled), scraped", "$full_rss (ring $full_ring_kb)", "<= 16 MB"),
  ("/api/v1/samples, full ring, one metric, 8 GPUs (API thread)", "$full_api_ms", "off the HTTP thread"),
  ("sampler + reader threads CPU at 1 s (8 GPUs, ${cpu_window}s)", "%.3f %% of a core" % (100.0 * ($t1 - $t0) / $hz / $cpu_window), "<= 0.1 %"),
  ("whole agent CPU while idle", "%.3f %% of a core" % (100.0 * ($p1 - $p0) / $hz / $cpu_window), ""),
  ("alert evaluator CPU at 1 s, full ring, default rules", "$alerts_eval", ""),
  ("whole agent CPU, ring full, ${BENCH_AGENT_CPU_MINUTES:-0} min at 1 s", "$long_cpu", "<= 0.1 %"),
]
w = max(len(r[0]) for r in rows)
print("%-*s  %-22s %s" % (w, "measure", "value", "target"))
for r in rows:
    print("%-*s  %-22s %s" % (w, r[0], r[1], r[2]))
PY
