#!/usr/bin/env bash
# test_top_once.sh - `top --once` and top off a terminal print one plain snapshot; bad options fail clearly.
. "$(dirname "$0")/top_lib.sh"
out=$("$GPUWATCH" --sim "$SCEN/top_thermal.yaml" top --once) || fail "--once exited $?"
echo "$out" | grep -q "SIMULATED GPUs" || fail "no SIMULATED banner"
echo "$out" | grep -Eq "^0 +NVIDIA H100 80GB HBM3 +73% +40.0 GiB/80.0 GiB +700/700 W +92°C!! +97°C!" || fail "GPU 0 line: $out"
echo "$out" | grep -q "throttle: sw power cap, sw thermal slowdown" || fail "throttle words: $out"
echo "$out" | grep -q "ghost-infer" || fail "process missing: $out"
echo "$out" | grep -Eq "^pending CRIT GPUTemperatureCritical \(would fire in (1m00s|59s)\): GPU 0" || fail "alerts section: $out"
echo "$out" | grep -q "^CRIT GPUTemperatureCritical" && fail "a pending alert printed as firing: $out"
"$GPUWATCH" --sim "$SCEN/top_16gpu.yaml" top --once | grep -q "^no alerts" || fail "no alerts on a cool scenario"
# --temp-crit also moves the rule: at 95 C the 92 C core is no longer critical.
"$GPUWATCH" --sim "$SCEN/top_thermal.yaml" top --once --temp-crit 95 | grep -q "GPUTemperatureCritical" && fail "--temp-crit did not reach the rules"
echo "$out" | grep -q $'\e' && fail "escape sequences in the snapshot"
ok "--once snapshot"
# Not a terminal: the same snapshot, without --once.
"$GPUWATCH" --sim "$SCEN/top_thermal.yaml" top </dev/null | grep -q "PROCESSES" || fail "pipe snapshot"
ok "snapshot when stdout is not a terminal"
# Thresholds are configurable: at 95 / 100, 92 C is no longer marked.
"$GPUWATCH" --sim "$SCEN/top_thermal.yaml" top --once --temp-warn 95 --temp-crit 100 | grep -Eq " 92°C +97°C" || fail "--temp-warn"
ok "--temp-warn/--temp-crit"
for bad in "--interval 0" "--layout wide" "--temp-warn 99 --temp-crit 90" "--bogus" "--user u"; do
  # shellcheck disable=SC2086
  err=$("$GPUWATCH" --sim "$SCEN/top_thermal.yaml" top $bad 2>&1 >/dev/null); rc=$?
  [ "$rc" = 2 ] || fail "top $bad exited $rc"
  echo "$err" | grep -q "gpuwatch top" || fail "top $bad: unclear error '$err'"
done
ok "bad options"
