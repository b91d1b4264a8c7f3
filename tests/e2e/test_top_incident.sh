#!/usr/bin/env bash
# test_top_incident.sh - `gpuwatch top` on 80x24 during an incident (tests/scenarios/top_thermal.yaml:
# a throttled, hot H100, a lost A100): the throttle reasons wrap instead of cutting the SM clock,
# pending alerts read as pending, the alert list takes the free rows and `e` expands it, `c` says why
# no chart shows, `?` fits, pausing does not turn the GPUs STALE, host CPU/memory bars, tensor-core
# activity where the GPU has GPM (and nothing where it has not), and `t` shows a process's family.
. "$(dirname "$0")/top_lib.sh"

start s 80 24 --sim "$SCEN/top_thermal.yaml" top
wait_for s " H100 80GB HBM3 "
wait_for s "SM 1455 MHz  MEM 2619 MHz  throttle: sw power cap,"
n=$(screen s | grep -n "throttle: sw power cap," | cut -d: -f1)
screen s | sed -n "$((n + 1))p" | grep -q "^    sw thermal slowdown" || fail "the throttle reasons did not wrap onto the next line"
ok "throttle reasons wrap; the clocks stay whole"

wait_for s "TENSOR [0-9]+%"                             # H100 preset: GPM
screen s | grep "11501 MHz" | grep -q "TENSOR" && fail "TENSOR shown for a GPU without GPM"
wait_for s "CPU [▕][^ ]* *[▏] +[0-9]+%  MEM [▕]"
ok "tensor activity only where reported; host CPU and memory bars"

# Alerts: GPU 1 is lost from 2 s on (firing); the hot H100's rules are pending, with a countdown.
wait_for s "^CRIT GPULost: GPU 1"
wait_for s "^pending CRIT GPUTemperatureCritical \(would fire in [0-9]+s\): GPU 0"
l1=$(screen s | grep -n "^CRIT GPULost" | cut -d: -f1)
l2=$(screen s | grep -n "^pending CRIT" | cut -d: -f1)
[ "$l1" -lt "$l2" ] || fail "the firing alert is not listed before the pending ones"
# Two processes leave rows free: all five alerts are listed, the last one too.
wait_for s "^pending INFO GPUPowerCapped \(would fire in [0-9]+m[0-9]+s\)"
keys s e
wait_for s "alert list: expanded"
keys s e
wait_for s "alert list: normal"
ok "alerts: firing first, pending with a countdown, in the free rows"

keys s c                                                # selected -> all GPUs: no room on 80x24
wait_for s "terminal too small for charts: need [0-9]+ rows, have 24"
keys s c c                                              # off, then back to the selected GPU
ok "c says why no chart shows"

keys s '?'
wait_for s "gpuwatch top - keys"
wait_for s "pending   an alert whose condition holds"    # the last help line
wait_for s "colours: core 80/90 C"
screen s | grep -q "^  k         signal it: i INT" || fail "help: the signal menu line"
keys s x
wait_gone s "gpuwatch top - keys"
ok "help fits 80x24"

keys s p
wait_for s "PAUSED"
frozen=$(screen s | head -1)
sleep 3.5                                               # more than 3 intervals
keys s '?'
wait_for s "gpuwatch top - keys"
keys s x
wait_gone s "gpuwatch top - keys"
wait_for s "PAUSED"
screen s | grep -q "STALE" && fail "a paused screen marked GPUs STALE"
[ "$(screen s | head -1)" = "$frozen" ] || fail "the clock moved while paused"
keys s p
wait_gone s "PAUSED"
ok "pause: no STALE, the clock stops"

# The process tree of the trainer (pid: parent = the shell tmux started): gpuwatch is its child.
wait_for s "trainer|bash|sh "
keys s t
wait_for s "PROCESS TREE of pid [0-9]+"
wait_for s "└ [0-9]+ .*gpuwatch --sim"
screen s | grep -Eq "^ *(└ )?[0-9]+ \[GPU 0 29.3 GiB\] " || fail "the GPU process is not marked in the tree"
keys s t
wait_for s "PROCESSES 2"
ok "process tree"
quit s
