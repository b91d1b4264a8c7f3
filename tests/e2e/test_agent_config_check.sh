#!/usr/bin/env bash
# test_agent_config_check.sh - `gpuwatch config check`: OK for the shipped example, every error
# with FILE:LINE:COL and status 1 for a broken file.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
out=$("$GPUWATCH" config check "$GW_SOURCE_DIR/deploy/gpuwatch.yaml" 2>&1) || fail "example config: $out"
[ "$out" = "$GW_SOURCE_DIR/deploy/gpuwatch.yaml: OK" ] || fail "example config output: $out"
cat > "$tmp/bad.yaml" <<'YAML'
listen: ":9400"
interval: 5ms
exporter:
  series: dcgm
  metrics: [DCGM_FI_DEV_GPU_TEMP, not_a_metric]
color: blue
YAML
out=$("$GPUWATCH" config check "$tmp/bad.yaml" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "status $rc for a bad file"
echo "$out" | grep -q "^$tmp/bad.yaml:2:11: interval" || fail "interval error: $out"
echo "$out" | grep -q "^$tmp/bad.yaml:5:35: exporter.metrics: unknown metric 'not_a_metric'" || fail "metric error: $out"
echo "$out" | grep -q "^$tmp/bad.yaml:6:1: unknown key 'color'" || fail "unknown key error: $out"
[ "$(echo "$out" | wc -l)" -eq 3 ] || fail "expected 3 errors: $out"
printf 'exporter:\n  series: [dcgm\n' > "$tmp/syntax.yaml"
out=$("$GPUWATCH" config check "$tmp/syntax.yaml" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "^$tmp/syntax.yaml:3:" || fail "syntax error: $rc $out"
out=$("$GPUWATCH" config check "$tmp/none.yaml" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "cannot read: No such file" || fail "missing file: $rc $out"
echo PASS
