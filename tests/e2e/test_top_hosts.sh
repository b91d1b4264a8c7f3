#!/usr/bin/env bash
# test_top_hosts.sh - `top --hosts` / `--hosts-file`: four real agents on gpusim (8 GPUs each,
# ephemeral ports on 127.0.0.1) on one screen at 200x50 (every GPU of every host) and at 80x24 (the
# list scrolls to every one of them, fewer columns); a sort by UTIL reorders each host's GPUs, r
# reverses it; j groups them by job; the agents' findings in one panel, worst first, f expands it;
# a stopped agent is marked unreachable (connection refused)
# while the others keep updating; a frozen one is marked after its timeout and comes back when it
# resumes; Enter opens a host's single-host view and q there returns to the fleet; q quits cleanly.
# Bad host lists and hosts files are refused before anything starts.
. "$(dirname "$0")/top_lib.sh"

# The agents diagnose every 2 s (not every minute), so that their findings reach the panel soon.
printf 'diagnosis:\n  interval: 2s\n' >"$WORK/agent.yaml"
agents=()
trap 'for p in "${agents[@]}"; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done; cleanup' EXIT
for i in 1 2 3 4; do
  "$GPUWATCH" --sim "$SCEN/fleet_8gpu.yaml" agent --config "$WORK/agent.yaml" --listen 127.0.0.1:0 --db "$WORK/h$i.db" \
    --port-file "$WORK/port$i" 2>"$WORK/agent$i.err" &
  agents+=($!)
done
addr=()
for i in 1 2 3 4; do
  for _ in $(seq 400); do [ -s "$WORK/port$i" ] && break; sleep 0.05; done
  [ -s "$WORK/port$i" ] || { cat "$WORK/agent$i.err" >&2; fail "agent $i did not start"; }
  addr+=("127.0.0.1:$(cat "$WORK/port$i")")
done
{
  echo "# the test's agents"
  for a in "${addr[@]}"; do echo "  $a   # an agent on gpusim"; done
  echo
} >"$WORK/hosts"

# ---- the command line ----
expect_usage "--hosts: .*expected HOST:PORT" --hosts "${addr[0]},http://x:1"
expect_usage "--hosts: item 2: ${addr[0]} is listed twice" --hosts "${addr[0]},${addr[0]}"
expect_usage "--hosts: .*expected HOST:PORT.*got ''" --hosts "${addr[0]},"
expect_usage "--hosts: one agent \(--host\) or many" --hosts "${addr[0]}" --host "${addr[1]}"
expect_usage "--hosts-file: one agent \(--host\) or many" --hosts-file "$WORK/hosts" --host "${addr[1]}"
printf '%s\nnot-an-address\n\n%s  # twice\n' "${addr[0]}" "${addr[0]}" >"$WORK/bad"
err=$("$GPUWATCH" top --hosts-file "$WORK/bad" 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || fail "a bad hosts file exited $rc"
grep -q "$WORK/bad:2:1: expected HOST:PORT" <<<"$err" || fail "bad line 2 not located: $err"
grep -q "$WORK/bad:4:1: ${addr[0]} is listed twice" <<<"$err" || fail "repeated host on line 4 not located: $err"
printf '# nothing\n\n' >"$WORK/empty"
expect_usage "$WORK/empty: no HOST:PORT in the file" --hosts-file "$WORK/empty"
mkfifo "$WORK/fifo"
expect_usage "--hosts-file" --hosts-file "$WORK/fifo"
ok "bad --hosts lists and hosts files: one clear error each, exit 2"

# ---- the snapshot: every agent's GPUs once each has answered ----
for _ in $(seq 200); do
  out=$("$GPUWATCH" top --once --hosts-file "$WORK/hosts" 2>&1) && [ "$(grep -c "  8 GPUs  up" <<<"$out")" = 4 ] && break
  sleep 0.1
done
[ "$(grep -c "  8 GPUs  up" <<<"$out")" = 4 ] || fail "--once: not 4 hosts up: $out"
for a in "${addr[@]}"; do
  [ "$(grep -Ec "^$a +[0-7] " <<<"$out")" = 8 ] || fail "--once: not 8 GPU lines of $a: $out"
done
out=$("$GPUWATCH" top --once --hosts "${addr[0]},127.0.0.1:1" 2>&1) || fail "--once with one host down exited $?"
grep -q "^127.0.0.1:1  UNREACHABLE since [0-9:]*: connection refused" <<<"$out" || fail "--once: refused host: $out"
ok "--once: 4 hosts x 8 GPUs; an unreachable host said as such"

# ---- 200x50: everything on one screen ----
gpu_lines() { screen "$1" | grep -Ec "^127\.0\.0\.1:[0-9]+ +[0-7] +[0-9]+%"; }
start big 200 50 top --hosts-file "$WORK/hosts" --interval 1
wait_for big "fleet: 4 hosts, 4 up"
wait_for big " SIMULATED GPUs "
for _ in $(seq 200); do [ "$(gpu_lines big)" = 32 ] && break; sleep 0.05; done
[ "$(gpu_lines big)" = 32 ] || fail "200x50: not 32 GPU lines ($(gpu_lines big))"
for a in "${addr[@]}"; do wait_for big "^▪ .*\($a\)  8 GPUs  up"; done
screen big | grep -q "THROTTLE" || fail "200x50: no THROTTLE column"
ok "200x50: 4 hosts x 8 GPUs, every column"

# Sorting by UTIL (one s from the GPU index), largest first; r: smallest first. The utilizations of
# the first host's lines, as shown, must be in order, and the GPUs no longer by index.
utils_of() { screen "$1" | grep -E "^${addr[0]} +[0-7] " | awk '{print $3}' | tr -d '%' | paste -sd' '; }
gpus_of() { screen "$1" | grep -E "^${addr[0]} +[0-7] " | awk '{print $2}' | paste -sd' '; }
sorted() { # sorted "LIST" -r|"": the list is in that order
  [ "$(tr ' ' '\n' <<<"$1" | sort -n $2 | paste -sd' ')" = "$1" ]
}
[ "$(gpus_of big)" = "0 1 2 3 4 5 6 7" ] || fail "the first sort is not by GPU: $(gpus_of big)"
keys big s
wait_for big "UTIL▼"
sorted "$(utils_of big)" -r || fail "UTIL▼: utilizations not largest first: $(utils_of big)"
[ "$(gpus_of big)" != "0 1 2 3 4 5 6 7" ] || fail "UTIL▼ did not reorder the GPUs"
keys big r
wait_for big "UTIL▲"
sorted "$(utils_of big)" "" || fail "UTIL▲: utilizations not smallest first: $(utils_of big)"
ok "sorting by UTIL reorders each host's GPUs; r reverses"

keys big j
wait_for big "by job \(j: by host\)"
wait_for big "^▪ slurm job 4242 llama  16 GPUs on 4 hosts"
wait_for big "^▪ k8s ml-team/bert-train"
wait_for big "^▪ \(no job\)"
[ "$(gpu_lines big)" = 32 ] || fail "by job: not 32 GPU lines"
keys big j
wait_for big "by host \(j: by job\)"
ok "j groups the GPUs by job (Slurm job, pod without its ordinal, none) and back"

# The fleet's findings, worst first, with their host: GPU 0 of every agent runs hot. More than the
# panel's lines: the last says how many more; f shows them all.
wait_for big "^WARN 127\.0\.0\.1:[0-9]+  thermal  GPU 0  since [0-9:]+ " 120
wait_for big "more findings? \(f: expand the list\)" 120
keys big f
for _ in $(seq 1200); do [ "$(screen big | grep -Ec "  thermal  GPU 0  since")" = 4 ] && break; sleep 0.1; done
[ "$(screen big | grep -Ec "  thermal  GPU 0  since")" = 4 ] || fail "f: not the 4 agents' thermal findings"
tags=$(screen big | grep -Eo "^(CRIT|WARN|INFO) 127\.0\.0\.1" | cut -c1-4 | sed 's/CRIT/3/;s/WARN/2/;s/INFO/1/' | paste -sd' ')
sorted "$tags" -r || fail "findings not worst first: $tags"
keys big f
wait_for big "more findings? \(f: expand the list\)"
ok "the agents' findings in one panel, worst first, with their host; f expands it"

# ---- 80x24: fewer columns, the list scrolls to every GPU ----
start small 80 24 top --hosts-file "$WORK/hosts" --interval 1
wait_for small "fleet: 4 hosts, 4 up"
wait_for small "lines 1-[0-9]+ of 36"
screen small | grep -q "THROTTLE" && fail "80x24: the THROTTLE column should give way"
screen small | grep -q "JOB / USER" || fail "80x24: no JOB column"
seen=$(screen small | grep -Eo "^127\.0\.0\.1:[0-9]+ +[0-7] " | sort -u)
for _ in $(seq 8); do
  keys small NPage
  mark small
  seen=$(printf '%s\n%s\n' "$seen" "$(screen small | grep -Eo "^127\.0\.0\.1:[0-9]+ +[0-7] ")" | sort -u)
done
n=$(grep -c . <<<"$seen")
[ "$n" = 32 ] || fail "80x24: scrolling showed $n of 32 GPU lines: $seen"
ok "80x24: the list scrolls to all 4 x 8 GPUs; columns dropped by priority"
quit small

# A stopped agent: unreachable (connection refused) at its next read; the others go on updating
# (GPU 7's utilization moves: a sine).
kill "${agents[2]}"
wait "${agents[2]}" 2>/dev/null
wait_for big "^▪ .*${addr[2]}\)?  UNREACHABLE since [0-9:]+: connection refused"
wait_for big "fleet: 4 hosts, 3 up, 1 unreachable"
util_moves big "${addr[0]}" 7
ok "a stopped agent is unreachable (connection refused); the others keep updating"

# A frozen agent: no answer within the timeout, then back when it resumes.
kill -STOP "${agents[3]}"
wait_for big "^▪ .*${addr[3]}.*UNREACHABLE since [0-9:]+: no answer in 2 s"
kill -CONT "${agents[3]}"
wait_for big "^▪ .*\(${addr[3]}\)  8 GPUs  up"
wait_for big "fleet: 4 hosts, 3 up, 1 unreachable"
ok "a frozen agent: unreachable after its 2 s timeout, and up again when it answers"

# Enter on a host opens its single-host view; q there comes back to the fleet.
keys big Home
keys big Enter
wait_for big "^gpuwatch top  .* \(http://${addr[0]}\)  driver"
wait_for big "python3"
keys big q
wait_for big "fleet: 4 hosts"
wait_gone big "\(http://${addr[0]}\)  driver"
ok "Enter opens the host's single-host view; q returns to the fleet"
quit big
ok "q quits cleanly (exit 0)"

