#!/usr/bin/env bash
# test_top_kill.sh - select a real child process in top's table and send it SIGTERM after a y/n
# confirmation; answering n sends nothing; a pid that is not here is refused with a clear message.
. "$(dirname "$0")/top_lib.sh"

sleep 300 &
victim=$!
cat > "$WORK/kill.yaml" <<YAML
seed: 1
gpus:
  - preset: h100-sxm
    processes:
      - {pid: $victim, name: sleep, user: tester, type: C, memory_mib: 1234, sm: 50}
      - {pid: 3999998, name: elsewhere, user: bob, type: C, memory_mib: 10, sm: 1}
YAML
start k 120 30 --sim "$WORK/kill.yaml" top
wait_for k " $victim "
# Sort by memory (default, descending): the victim (1.2 GiB) is the first, selected row.
keys k k
wait_for k "Send SIGTERM to pid $victim"
keys k n
wait_for k "no signal sent"
kill -0 "$victim" 2>/dev/null || fail "n still killed the process"
keys k k
wait_for k "Send SIGTERM to pid $victim"
keys k y
wait_for k "SIGTERM sent to pid $victim"
i=0; while kill -0 "$victim" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
wait "$victim" 2>/dev/null
kill -0 "$victim" 2>/dev/null && fail "process $victim still alive"
ok "SIGTERM after confirmation"
# The other pid is not in this pid namespace: refused, nothing sent.
keys k Down
keys k K
wait_for k "Send SIGKILL to pid 3999998"
keys k y
wait_for k "not sent: pid 3999998 is gone or not visible here"
ok "refused for a pid not visible here"
quit k
