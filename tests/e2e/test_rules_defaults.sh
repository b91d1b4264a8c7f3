#!/usr/bin/env bash
# The shipped default rules load, and their unit tests (tests/rules/*.yaml) pass in `gpuwatch rules test`;
# a broken rule file is refused with FILE:LINE:COL and exit status 1.
set -eu
cd "$GW_SOURCE_DIR"
"$GPUWATCH" rules check deploy/rules/gpuwatch-default.yaml
"$GPUWATCH" rules test tests/rules/*.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'groups:\n- name: g\n  rules:\n  - alert: X\n    condition: {metric: temperature.gpu, op: ">", threshold: hot}\n' > "$tmp/bad.yaml"
if "$GPUWATCH" rules check "$tmp/bad.yaml" 2> "$tmp/err"; then
  echo "FAIL: a bad rule file was accepted" >&2; exit 1
fi
grep -q "bad.yaml:5:62: threshold: unknown metric 'hot'" "$tmp/err" || { echo "FAIL: no located error:" >&2; cat "$tmp/err" >&2; exit 1; }
# A failing unit test exits 1 and shows what it expected and what it got.
sed 's/eval_time: 10m/eval_time: 9m/' tests/rules/temperature.yaml | sed "s|\.\./\.\./deploy|$GW_SOURCE_DIR/deploy|" > "$tmp/t.yaml"
if "$GPUWATCH" rules test "$tmp/t.yaml" > "$tmp/out"; then
  echo "FAIL: a wrong expectation passed" >&2; exit 1
fi
grep -q "FAILED" "$tmp/out" && grep -q "expected (2)" "$tmp/out" && grep -q "got (1)" "$tmp/out" || { cat "$tmp/out" >&2; exit 1; }
echo "rules defaults: OK"
