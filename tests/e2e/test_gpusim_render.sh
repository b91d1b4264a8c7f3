#!/usr/bin/env bash
# test_gpusim_render.sh - `gpusim render` writes the scenario's values (checked against the
# generators' definitions) and `gpusim check` reports errors with FILE:LINE:COL.
set -u
TOOL=${GPUSIM_TOOL:?GPUSIM_TOOL not set}
SRC=${GW_SOURCE_DIR:?GW_SOURCE_DIR not set}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }

# --help and usage errors
"$TOOL" --help >"$TMP/help" 2>&1; check '[ $? -eq 0 ] && grep -q "gpusim render" "$TMP/help"' "--help"
"$TOOL" frobnicate >/dev/null 2>&1; check '[ $? -eq 2 ]' "unknown command exits 2"

# every shipped scenario checks clean
for f in "$SRC"/sim/scenarios/*.yaml; do
  "$TOOL" check "$f" >/dev/null 2>"$TMP/err"; rc=$?; check '[ $rc -eq 0 ]' "check $f: $(cat "$TMP/err")"
done

# errors carry the file, line and column
"$TOOL" check "$SRC/tests/scenarios/gpusim-bad-key.yaml" >/dev/null 2>"$TMP/err"; rc=$?
check '[ $rc -eq 1 ] && grep -q "gpusim-bad-key.yaml:5:5: unknown key .metrcs." "$TMP/err"' "bad key: $(cat "$TMP/err")"
"$TOOL" check "$SRC/tests/scenarios/gpusim-bad-duration.yaml" >/dev/null 2>"$TMP/err"; rc=$?
check '[ $rc -eq 1 ] && grep -q "gpusim-bad-duration.yaml:6:44: expected a duration" "$TMP/err"' "bad duration: $(cat "$TMP/err")"
"$TOOL" render "$SRC/tests/scenarios/gpusim-bad-key.yaml" >/dev/null 2>&1; check '[ $? -eq 1 ]' "render of a bad scenario exits 1"
"$TOOL" render "$SRC/sim/scenarios/idle-1gpu.yaml" --metrics no.such.metric >/dev/null 2>&1
check '[ $? -eq 2 ]' "unknown --metrics exits 2"

# exact values: ramp, steps, sine, and empty rows inside the lost window
EX="$SRC/tests/scenarios/gpusim-render-exact.yaml"
"$TOOL" render "$EX" --step 10s --duration 100s --metrics utilization.gpu,power.draw,temperature.gpu,memory.total >"$TMP/exact.csv"
check '[ "$(head -1 "$TMP/exact.csv")" = "t,gpu,utilization.gpu,power.draw,temperature.gpu,memory.total" ]' "exact header"
check '[ "$(wc -l <"$TMP/exact.csv")" -eq 23 ]' "11 steps x 2 GPUs + header"
check 'awk -F, "NR>1 && \$2==0 && \$3 != \$1 {exit 1}" "$TMP/exact.csv"' "ramp: utilization.gpu == t"
check 'grep -q "^10,0,10,100,60,81920$" "$TMP/exact.csv"' "t=10: sine at its peak, steps first value"
check 'grep -q "^30,0,30,250.5,40,81920$" "$TMP/exact.csv"' "t=30: second step, sine at its trough"
check 'grep -q "^70,0,70,300,40,81920$" "$TMP/exact.csv" && grep -q "^20,0,20,100,50,81920$" "$TMP/exact.csv"' "t=70: last step; t=20: sine at its mean"
check 'grep -q "^20,1,,,,$" "$TMP/exact.csv" && grep -q "^30,1,,,,$" "$TMP/exact.csv"' "lost GPU rows are empty"
check 'grep -q "^40,1,40,250.5,50,81920$" "$TMP/exact.csv"' "GPU back after the lost window"

# --gpu and --start select rows
"$TOOL" render "$EX" --start 5s --step 1s --duration 2s --gpu 1 --metrics utilization.gpu >"$TMP/sel.csv"
check '[ "$(cat "$TMP/sel.csv" | tr "\n" " ")" = "t,gpu,utilization.gpu 5,1,5 6,1,6 7,1,7 " ]' "--gpu/--start: $(tr '\n' ' ' <"$TMP/sel.csv")"

# training-8gpu: utilization within its clamps, power under the cap, all 8 GPUs
"$TOOL" render "$SRC/sim/scenarios/training-8gpu.yaml" --step 1s --duration 60s \
  --metrics utilization.gpu,power.draw,power.limit,memory.total >"$TMP/train.csv"
check '[ "$(wc -l <"$TMP/train.csv")" -eq $((61 * 8 + 1)) ]' "training rows"
check 'awk -F, "NR>1 && (\$3 < 95 || \$3 > 99) {exit 1}" "$TMP/train.csv"' "training utilization in [95,99]"
check 'awk -F, "NR>1 && (\$4 >= \$5 || \$4 < 600) {exit 1}" "$TMP/train.csv"' "training power near but under the cap"
check 'awk -F, "NR>1 && \$6 != 81559 {exit 1}" "$TMP/train.csv"' "H100 memory.total"
check '[ "$(cut -d, -f2 "$TMP/train.csv" | sort -u | grep -c .)" -eq 9 ]' "8 GPUs"

# data-pipeline-stall: the square wave (3 s high, 3 s low). Utilization is the mean of the last
# sample period (167 ms on H100), so a whole second reports the phase that just ended.
"$TOOL" render "$SRC/sim/scenarios/data-pipeline-stall.yaml" --step 1s --duration 11s --gpu 0 --metrics utilization.gpu >"$TMP/stall.csv"
check 'awk -F, "NR>1 { ph = \$1 % 6; hi = (ph > 0 && ph <= 3) || \$1 == 0; if ((hi && \$3 < 90) || (!hi && \$3 > 10)) exit 1 }" "$TMP/stall.csv"' "stall square wave"
# ... and right after the edge at 3 s the period holds both phases
"$TOOL" render "$SRC/sim/scenarios/data-pipeline-stall.yaml" --start 3.1s --step 1s --duration 0s --gpu 0 --metrics utilization.gpu >"$TMP/edge.csv"
check 'awk -F, "NR==2 && (\$3 < 35 || \$3 > 50) {exit 1}" "$TMP/edge.csv"' "stall edge averaged: $(tail -1 "$TMP/edge.csv")"

# thermal-throttle: reasons switch on as the temperature crosses the thresholds
"$TOOL" render "$SRC/sim/scenarios/thermal-throttle.yaml" --step 10s --duration 80s \
  --metrics temperature.gpu,clocks_event_reasons.sw_thermal_slowdown,clocks_event_reasons.hw_thermal_slowdown,clocks.sm >"$TMP/therm.csv"
check 'grep -q "^10,0,[0-9]*,0,0,1980$" "$TMP/therm.csv"' "cool at 10 s"
check 'grep -q "^70,0,92,1,1,990$" "$TMP/therm.csv"' "throttled at 70 s"

# short-stalls: 0.6 s of compute per second; read on whole seconds a 167 ms period sees the wait,
# a 1 s period the duty cycle
"$TOOL" render "$SRC/sim/scenarios/short-stalls.yaml" --start 1s --step 1s --duration 5s --metrics utilization.gpu >"$TMP/short.csv"
check 'awk -F, "NR>1 && ((\$2 == 0 && \$3 != 0) || (\$2 == 1 && \$3 != 60)) {exit 1}" "$TMP/short.csv"' "short stalls: $(tr '\n' ' ' <"$TMP/short.csv")"

# hbm-throttle: HBM past 95 C slows GPU 0 while its core is cool; GPU 1 is not slowed
"$TOOL" render "$SRC/sim/scenarios/hbm-throttle.yaml" --start 60s --duration 0s \
  --metrics temperature.gpu,temperature.memory,clocks_event_reasons.sw_thermal_slowdown >"$TMP/hbm.csv"
check 'grep -q "^60,0,[0-7][0-9],\(9[5-9]\|10[0-4]\),1$" "$TMP/hbm.csv" && grep -q "^60,1,[0-9]*,[0-9]*,0$" "$TMP/hbm.csv"' "hbm throttle: $(tr '\n' ' ' <"$TMP/hbm.csv")"

# pcie-bound: transfers clamped at the link (gen 4: 31.5 GB/s at x16, 15.75 GB/s at x8)
"$TOOL" render "$SRC/sim/scenarios/pcie-bound.yaml" --step 10s --duration 30s --metrics pcie.rx_throughput >"$TMP/pcie.csv"
check 'awk -F, "NR>1 && ((\$2 < 3 && \$3 != 31504000) || (\$2 == 3 && \$3 != 15752000)) {exit 1}" "$TMP/pcie.csv"' "pcie clamp"

# power-capping: at the cap with sw_power_cap
"$TOOL" render "$SRC/sim/scenarios/power-capping.yaml" --step 5s --duration 30s --metrics power.draw,clocks_event_reasons.sw_power_cap >"$TMP/cap.csv"
check 'awk -F, "NR>1 && (\$3 != 450 || \$4 != 1) {exit 1}" "$TMP/cap.csv"' "power capped at 450 W"

# --processes: the leaking process's ramp, exactly
"$TOOL" render "$SRC/sim/scenarios/memory-leak.yaml" --processes --step 5m --duration 10m >"$TMP/procs.csv"
check '[ "$(head -1 "$TMP/procs.csv")" = "t,gpu,pid,name,type,used_memory_mib,sm,mem,enc,dec" ]' "processes header"
check 'grep -q "^300,0,20001,leaky_server,C,40500,60,,,$" "$TMP/procs.csv" && grep -q "^600,0,20001,leaky_server,C,79000,60,,,$" "$TMP/procs.csv"' "leak ramp"
check '[ "$(grep -c ",20002,python3,C,1500,10,,,$" "$TMP/procs.csv")" -eq 3 ]' "flat neighbour"

# the format example in docs/gpusim.md is a valid scenario
awk '/^```yaml$/ {on = 1; next} /^```$/ {if (on) exit} on' "$SRC/docs/gpusim.md" >"$TMP/doc.yaml"
printf 't,clocks.sm\n0,1000\n60,1980\n' >"$TMP/trace.csv"
"$TOOL" check "$TMP/doc.yaml" >"$TMP/doc.out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -q "ok (9 GPUs, 1 events, 4 faults)" "$TMP/doc.out"' "docs example: $(cat "$TMP/doc.out")"

# determinism: two renders are identical
"$TOOL" render "$SRC/sim/scenarios/demo-8gpu.yaml" --step 0.5s --duration 30s >"$TMP/a.csv"
"$TOOL" render "$SRC/sim/scenarios/demo-8gpu.yaml" --step 0.5s --duration 30s >"$TMP/b.csv"
check 'cmp -s "$TMP/a.csv" "$TMP/b.csv"' "render is deterministic"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
