#!/usr/bin/env bash
# bench_abuse.sh - /metrics under hostile clients (docs/reliability.md, "Hostile clients"): an agent
# on 8 simulated GPUs at the defaults is scraped by wrk (1 thread, 2 connections, each pausing 20 ms
# between gzip scrapes: ~100 scrapes/s) for BENCH_ABUSE_SECONDS (default 15) while, in turn, nothing
# else, 1200 connections trickle a header line a second from one address, 1200 connections from 30
# addresses sit idle, 10,000 malformed requests arrive, and oversized requests (15 KB headers, 20 KB
# URLs, 1 GB Content-Lengths) come back to back (tests/bench/abuse_clients.py). For each: the
# scrapes' p99 (budget 50 ms), failed scrapes, and the agent's RSS after. Then a soak of
# BENCH_SOAK_MINUTES (default 10; 0 skips it) of churn (connections opened and dropped, proper,
# malformed and body-carrying requests every second) with a scrape every second: RSS at 1 minute,
# at the end, and its peak. Last, the cost of a wrong password check for an unknown user, a user
# whose hash costs 10 and one whose hash costs 6 (each uncached check must cost the same).
# Usage: scripts/bench_abuse.sh [BUILD_DIR]
set -u
build=$(cd "${1:-build}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
gw="${GPUWATCH:-$build/gpuwatch}"
secs=${BENCH_ABUSE_SECONDS:-15}
soak_min=${BENCH_SOAK_MINUTES:-10}
abuse="$src/tests/bench/abuse_clients.py"
for t in wrk python3 curl; do
  command -v "$t" >/dev/null || { echo "bench_abuse: $t is missing (scripts/deps.sh bench)"; exit 1; }
done
tmp=$(mktemp -d); pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
rss_of() { awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }
start_agent() { # NAME CONFIG_TEXT -> pid in $agent, port in $port
  printf '%s' "$2" >"$tmp/$1.yaml"
  "$gw" --sim "$src/tests/scenarios/agent_bench8.yaml" agent --listen 127.0.0.1:0 --port-file "$tmp/$1.port" \
    --config "$tmp/$1.yaml" --db "$tmp/$1.db" --log-level warn 2>"$tmp/$1.log" &
  agent=$!; pids+=($agent)
  for _ in $(seq 100); do [ -s "$tmp/$1.port" ] && break; sleep 0.1; done
  [ -s "$tmp/$1.port" ] || { echo "bench_abuse: the agent did not start"; cat "$tmp/$1.log"; exit 1; }
  port=$(cat "$tmp/$1.port")
  for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" && break; sleep 0.1; done
}
printf 'function delay()\n  return 20\nend\n' >"$tmp/pace.lua"
# wrk for SECONDS on the agent -> "p99_ms requests failed"
scrape() {
  wrk -t1 -c2 -d"$1s" --latency -s "$tmp/pace.lua" -H "Accept-Encoding: gzip" "http://127.0.0.1:$port/metrics" \
    >"$tmp/wrk.txt" 2>&1
  python3 - "$tmp/wrk.txt" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
n = int(re.search(r"(\d+) requests in", t).group(1))
m = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", t)
p99 = float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]
bad = sum(int(x) for x in re.findall(r"Non-2xx or 3xx responses: (\d+)", t))
e = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", t)
bad += sum(int(x) for x in e.groups()) if e else 0
print("%.2f %d %d" % (p99, n, bad))
PY
}

start_agent main ""
sleep 2
echo "scrape p99 during each abuse (budget 50 ms), 8 GPUs, gzip, ~100 scrapes/s for ${secs}s:"
printf '  %-44s %9s %9s %7s %9s\n' "abuse" "p99 ms" "scrapes" "failed" "RSS MB"
for mode in none trickle idle malformed oversized; do
  case $mode in
    none) what="none (baseline)"; args=() ;;
    trickle) what="1200 trickling a header line/s, 1 address"; args=(trickle "$port" $((secs + 4)) 1200) ;;
    idle) what="1200 idle, 30 addresses"; args=(idle "$port" $((secs + 4)) 1200) ;;
    malformed) what="10,000 malformed requests"; args=(malformed "$port" $((secs + 2)) 10000) ;;
    oversized) what="oversized requests back to back"; args=(oversized "$port" $((secs + 2))) ;;
  esac
  ab=""
  if [ ${#args[@]} -gt 0 ]; then
    python3 "$abuse" "${args[@]}" >"$tmp/abuse.txt" 2>&1 &
    ab=$!; pids+=($ab)
    sleep 2
  fi
  read -r p99 n bad < <(scrape "$secs")
  [ -n "$ab" ] && wait "$ab" 2>/dev/null
  printf '  %-44s %9s %9s %7s %9s   %s\n' "$what" "$p99" "$n" "$bad" "$(rss_of $agent)" "$(cat "$tmp/abuse.txt" 2>/dev/null)"
  : >"$tmp/abuse.txt"
done
curl -s "http://127.0.0.1:$port/metrics" | grep '^gpuwatch_http_connections' | sed 's/^/  /'

if [ "$soak_min" -gt 0 ]; then
  python3 "$abuse" churn "$port" $((soak_min * 60)) >"$tmp/churn.txt" 2>&1 &
  ch=$!; pids+=($ch)
  : >"$tmp/soak.csv"; : >"$tmp/soak_lat.txt"
  end=$((SECONDS + soak_min * 60)); t=0
  while [ $SECONDS -lt $end ]; do
    curl -s -o /dev/null -w '%{time_total}\n' -H "Accept-Encoding: gzip" "http://127.0.0.1:$port/metrics" \
      >>"$tmp/soak_lat.txt"
    [ $((t % 10)) -eq 0 ] && echo "$t $(awk '/^VmRSS/ {print $2}' /proc/$agent/status)" >>"$tmp/soak.csv"
    sleep 1; t=$((t + 1))
  done
  wait "$ch" 2>/dev/null
  python3 - "$tmp/soak.csv" "$tmp/soak_lat.txt" "$soak_min" "$(cat "$tmp/churn.txt")" <<'PY'
import sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
lat = sorted(float(x) * 1000 for x in open(sys.argv[2]) if x.strip())
at1 = next((r for t, r in rows if t >= 60), rows[0][1])
print("soak, %s min of churn (%s), a scrape a second: RSS %.1f MB at 1 min, %.1f MB at the end, peak %.1f MB; "
      "scrape p99 %.1f ms over %d" % (sys.argv[3], sys.argv[4], at1 / 1024, rows[-1][1] / 1024,
                                       max(r for _, r in rows) / 1024, lat[int(0.99 * (len(lat) - 1))], len(lat)))
# RSS every 5 minutes: the ring (15 min) and the diagnosis window (30 min) fill first, then it must be flat
marks = [next((r for t, r in rows if t >= m * 60), None) for m in range(0, int(sys.argv[3]) + 1, 5)]
print("  RSS every 5 min (MB): " + " ".join("%.1f" % (r / 1024) for r in marks if r is not None))
PY
fi

# constant-cost password checks: users at cost 10 and 6, each check uncached (a wrong password)
h10=$("$gw" agent --hash-password pw10)
h6=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("pw6", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=64)))' 2>/dev/null)
if [ -n "$h6" ]; then
  start_agent auth "$(printf 'basic_auth_users:\n  ten: %s\n  six: %s\n' "'$h10'" "'$h6'")"
  med() { # USER -> median ms of 15 wrong-password checks
    for _ in $(seq 15); do curl -s -o /dev/null -w '%{time_total}\n' -u "$1:wrong" "http://127.0.0.1:$port/healthz"; done |
      sort -n | awk '{a[NR] = $1} END {printf "%.1f", a[int((NR + 1) / 2)] * 1000}'
  }
  echo "wrong-password check, median of 15 (each must cost bcrypt at cost 10): unknown user $(med nobody) ms," \
    "cost-10 user $(med ten) ms, cost-6 user $(med six) ms"
else
  echo "wrong-password check timing: skipped (python3 crypt module missing)"
fi
