#!/usr/bin/env bash
# test_top_kill.sh - signals from top on simulated GPUs. A scenario that names a real host pid (a
# `sleep` started here) must never get it signalled: `k` and `K` say "simulated GPUs: no signal sent"
# and the sleep survives. The scenario's `parent` (gpuwatch's parent: a small python3 wrapper that
# records the signals it gets) does get them: `k` offers INT, TERM and KILL, y sends, n does not.
# "Nothing was sent" is checked after an explicit sign that it would have been by then: a later key
# whose effect shows (mark: top reads keys in order), and for the wrapper a marker signal sent by the
# test after the key was handled, logged after any signal sent before it (Python runs the handlers
# of pending signals in signal-number order, and SIGURG is above SIGINT and SIGTERM).
. "$(dirname "$0")/top_lib.sh"

sleep 300 &
victim=$!
trap 'kill $victim 2>/dev/null; cleanup' EXIT
# alive PID: the process exists and is not a zombie (a signalled child of ours stays one until reaped)
alive() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)" != Z ]; }
cat > "$WORK/kill.yaml" <<YAML
seed: 1
gpus:
  - preset: h100-sxm
    processes:
      - {pid: $victim, name: sleep, user: tester, type: C, memory_mib: 4000, sm: 50}
      - {pid: parent, name: wrapper, user: tester, type: C, memory_mib: 2000, sm: 20}
      - {pid: 3999998, name: elsewhere, user: bob, type: C, memory_mib: 10, sm: 1}
YAML
# gpuwatch runs under a wrapper that logs SIGINT/SIGTERM and keeps waiting for it.
cat > "$WORK/wrap.py" <<'PY'
import signal, subprocess, sys
log = sys.argv[1]
def note(sig, frame):
    with open(log, "a") as f:
        f.write(signal.Signals(sig).name + "\n")
signal.signal(signal.SIGINT, note)
signal.signal(signal.SIGTERM, note)
signal.signal(signal.SIGURG, note)
sys.exit(subprocess.call(sys.argv[2:]))
PY
# flushed PID: sends the wrapper the marker SIGURG and waits until it is logged (see above)
urgs() { cat "$WORK/signals" 2>/dev/null | grep -c SIGURG; }
flushed() {
  local n
  n=$(urgs)
  kill -URG "$1" || fail "the wrapper is gone"
  local end=$((SECONDS + WAIT_S))
  while [ "$(urgs)" -le "$n" ]; do
    [ "$SECONDS" -ge "$end" ] && fail "the wrapper never logged the marker signal"
    sleep 0.05
  done
}
session k 120 30 \
  "exec 2>$WORK/k.err; python3 $WORK/wrap.py $WORK/signals $GPUWATCH --sim $WORK/kill.yaml top; echo \$? > $WORK/k.rc; sleep 600"
wait_for k " $victim "
wait_for k "SIMULATED GPUs"
# Sorted by GPU memory: the sleep (4000 MiB) is the first, selected row.
keys k k
wait_for k "simulated GPUs: no signal sent \(pid $victim is the scenario's"
keys k K
wait_for k "simulated GPUs: no signal sent \(pid $victim"
screen k | grep -q "Send SIGKILL" && fail "a y/n question for a scenario's pid"
keys k y                                                # nothing to confirm
mark k                                                  # y has been handled
alive "$victim" || fail "the host process $victim named by the scenario was signalled"
ok "a host pid named by a scenario is never signalled"

# The wrapper (the scenario's `parent`): the menu, INT (graceful), then TERM; n sends nothing.
keys k Down
keys k k
wait_for k "Signal to pid [0-9]+ \(python3\): i INT \(graceful stop\)  t TERM  K KILL"
keys k i
wait_for k "Send SIGINT to pid [0-9]+ \(python3\)\? y/n"
wrapper=$(screen k | sed -n 's/.*Send SIGINT to pid \([0-9]*\) (python3).*/\1/p' | head -1)
[ -n "$wrapper" ] || fail "no pid in the question"
keys k y
wait_for k "SIGINT sent to pid $wrapper"
flushed "$wrapper"
grep -q SIGINT "$WORK/signals" || fail "the wrapper did not get SIGINT"
keys k k
wait_for k "Signal to pid"
keys k t
wait_for k "Send SIGTERM to pid"
keys k n
wait_for k "no signal sent"
flushed "$wrapper"                                      # a SIGTERM sent on n would be logged by now
grep -q SIGTERM "$WORK/signals" && fail "n sent SIGTERM"
keys k k
keys k t
wait_for k "Send SIGTERM to pid"
keys k y
wait_for k "SIGTERM sent to pid"
flushed "$wrapper"
grep -q SIGTERM "$WORK/signals" || fail "the wrapper did not get SIGTERM"
ok "INT and TERM reach the scenario's parent after y; n sends nothing"

keys k Down
keys k k
wait_for k "simulated GPUs: no signal sent \(pid 3999998"
ok "other scenario pids refused"
quit k
alive "$victim" || fail "the host process $victim died"
