#!/usr/bin/env bash
# test_top_findings.sh - top's own diagnosis on gpusim, at 80x24. sim/scenarios/data-pipeline-stall.yaml
# (four H100s whose input pipeline stalls: a 6 s busy/idle square wave) runs twice as fast
# (GPUSIM_SPEED=2: a 3 s cycle), and top.yaml's diagnosis: section makes top diagnose every 4 s and
# accept a 5 s stall, so findings come within seconds instead of minutes. Checks: "none yet" before
# the first run, then one input_stall finding per GPU with the period, the mark on every GPU's line,
# `f` and its list, Enter and the evidence and advice, Esc and `f` back; --once says a snapshot is
# not diagnosed; a steady scenario gives no finding; an NVLink link down and PCIe replays, which top
# does not show, are read for the diagnosis (tests/scenarios/top_nvlink.yaml) and marked; diagnosis.enabled:
# false leaves no panel.
. "$(dirname "$0")/top_lib.sh"
mkdir -p "$XDG_CONFIG_HOME/gpuwatch"
cat > "$XDG_CONFIG_HOME/gpuwatch/top.yaml" <<'EOF'
diagnosis:
  interval: 4s
  thresholds:
    input_stall.min_duration_s: 5
EOF
STALL="$GW_SOURCE_DIR/sim/scenarios/data-pipeline-stall.yaml"

export GPUSIM_SPEED=2
start s 80 24 --sim "$STALL" top -d 0.25
wait_for s "FINDINGS none yet: first diagnosis at [0-9:]+, then every 4s over the last 30m"
ok "before the first run: when it is"
# WARN, or CRIT where a loaded machine read a GPU's idle share past the critical line (the
# detector's thresholds are test_diag_detect's): the panel is what is checked here
wait_for s "^(WARN|CRIT) input_stall  GPU [0-3]  since [0-9]{2}:[0-9]{2} \([0-9]+s\)  GPU [0-3] waits for input" 60
for g in 0 1 2 3; do
  wait_for s "^(WARN|CRIT) input_stall  GPU $g "
  screen s | grep -E "^ ?$g  H100" | grep -q "⚠ input stall" || fail "no mark on GPU $g's line"
done
ok "one finding per GPU, worst first; a mark on each GPU's line"
keys s f
wait_for s "^FINDINGS 4, worst first"
wait_for s "up/down: select a finding  Enter: its evidence and advice"
keys s Down Enter
wait_for s "^FINDING 2 of 4: (WARN|CRIT) input_stall"
wait_for s "evidence: .*period_s=(2\.[7-9]|3\.[0-3])[0-9]* s"   # a 6 s cycle at twice the speed
wait_for s "utilization.gpu \(%\): 0\.\.100"
wait_for s "- Give the DataLoader more workers"
screen s | grep -q "PROCESSES" && fail "the detail left the process table on the screen"
keys s Right
wait_for s "^FINDING 3 of 4"
keys s Escape
wait_for s "^FINDINGS 4, worst first"
keys s f
wait_gone s "^FINDINGS 4, worst first"
wait_for s "PROCESSES 4"
ok "f lists them, Enter shows one's evidence and advice"
quit s
unset GPUSIM_SPEED

out=$("$GPUWATCH" --sim "$STALL" top --once) || fail "--once exited $?"
echo "$out" | grep -q "^none in a snapshot: top diagnoses its readings while it runs, every 4s over the last 30m" ||
  fail "--once: no word on the diagnosis: $out"
ok "--once: a snapshot is not diagnosed"

# Steady GPUs: the runs find nothing, and say over how long.
start q 100 30 --sim "$SCEN/top_16gpu.yaml" top --layout compact
wait_for q "FINDINGS none over the last [0-9]+s \(diagnosed at [0-9:]+, next at [0-9:]+\)"
screen q | grep -q "⚠" && fail "a mark on a steady GPU"
quit q
ok "steady GPUs: no finding"

# Failures only metrics top does not show reveal: its local source reads what the detectors need.
start n 100 30 --sim "$SCEN/top_nvlink.yaml" top -d 0.5
wait_for n "^CRIT nvlink_errors  GPU 1 .*NVLink errors on 1 link\(s\): link 7: went down" 60
wait_for n "^WARN pcie_degraded  GPU 0 .*replays [0-9]+ times a minute"
screen n | grep -A3 -E "^ ?1 +H100" | grep -q "⚠ NVLink 7 down" || fail "no NVLink mark on GPU 1"
quit n
ok "NVLink and PCIe replays: read for the diagnosis, found and marked"

printf 'diagnosis:\n  enabled: false\n' > "$XDG_CONFIG_HOME/gpuwatch/top.yaml"
start o 80 24 --sim "$STALL" top
wait_for o "PROCESSES 4"
screen o | grep -q "FINDINGS" && fail "a findings panel with the diagnosis off"
keys o f
wait_for o "findings: diagnosis is off"
quit o
"$GPUWATCH" --sim "$STALL" top --once | grep -q "FINDINGS" && fail "--once: findings with the diagnosis off"
ok "diagnosis off: no panel"
