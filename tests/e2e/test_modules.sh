#!/usr/bin/env bash
# test_modules.sh - the program/module split: the gpuwatch program links none of the big
# libraries (HTTP/TLS, SQLite, ncurses), each module links only what its commands use, every
# module loads (all symbols resolve against the program), a copied install layout finds its
# modules, and a missing module is one clear line with exit status 3.
set -u
GW=${GPUWATCH:?GPUWATCH not set}
SRC=${GW_SOURCE_DIR:?GW_SOURCE_DIR not set}
MODS=$(dirname "$GW")/modules
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '; }

prog=$(needed "$GW")
for lib in libmicrohttpd libz.so libsqlite3 libncursesw libgnutls libyaml libcurl; do
  check '[[ "$prog" != *"$lib"* ]]' "the program links $lib: $prog"
done
check '[[ "$(needed "$MODS/top.so")" == *libncursesw* ]]' "top.so links ncurses"
check '[[ "$(needed "$MODS/run.so")" == *libhwloc* && "$(needed "$MODS/run.so")" != *libncursesw* ]]' \
  "run.so links hwloc, not ncurses: $(needed "$MODS/run.so")"
check '[[ "$(needed "$MODS/agent.so")" == *libmicrohttpd* ]]' "agent.so links libmicrohttpd"
check '[[ "$(needed "$MODS/agent.so")" == *libz.so* ]]' "agent.so links zlib (gzip /metrics): $(needed "$MODS/agent.so")"
check '[[ "$(needed "$MODS/agent.so")" != *libncursesw* ]]' "agent.so links ncurses: $(needed "$MODS/agent.so")"
check '[[ "$(needed "$MODS/history.so")" == *libsqlite3* && "$(needed "$MODS/history.so")" != *libmicrohttpd* ]]' \
  "history.so: $(needed "$MODS/history.so")"

# every command of every module runs (--help goes through the module's own option parser)
for cmd in agent config history events rules top run jobs; do
  "$GW" "$cmd" --help >"$TMP/out" 2>&1; rc=$?
  check '[ $rc -eq 0 ] && grep -qi "usage" "$TMP/out"' "$cmd --help: rc=$rc $(head -3 "$TMP/out")"
done
"$GW" rules check "$SRC/deploy/rules/gpuwatch-default.yaml" >"$TMP/out" 2>&1
check '[ $? -eq 0 ] && grep -q "rules OK" "$TMP/out"' "rules check through the module: $(cat "$TMP/out")"

# an install layout: bin/gpuwatch + lib/gpuwatch/*.so
mkdir -p "$TMP/prefix/bin" "$TMP/prefix/lib/gpuwatch"
cp "$GW" "$TMP/prefix/bin/gpuwatch"
cp "$MODS"/*.so "$TMP/prefix/lib/gpuwatch/"
"$TMP/prefix/bin/gpuwatch" rules check "$SRC/deploy/rules/gpuwatch-default.yaml" >"$TMP/out" 2>&1
check '[ $? -eq 0 ]' "installed layout finds lib/gpuwatch: $(cat "$TMP/out")"

# GPUWATCH_MODULE_DIR comes first
mkdir -p "$TMP/moddir"
cp "$MODS/rules.so" "$TMP/moddir/rules.so"
rm "$TMP/prefix/lib/gpuwatch/rules.so"
GPUWATCH_MODULE_DIR="$TMP/moddir" "$TMP/prefix/bin/gpuwatch" rules check "$SRC/deploy/rules/gpuwatch-default.yaml" >"$TMP/out" 2>&1
check '[ $? -eq 0 ]' "GPUWATCH_MODULE_DIR: $(cat "$TMP/out")"

# a missing module: one line naming the module and where it was looked for, exit 3
"$TMP/prefix/bin/gpuwatch" rules check x >"$TMP/out" 2>"$TMP/err"; rc=$?
check '[ $rc -eq 3 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "needs the rules module" "$TMP/err" && grep -q "lib/gpuwatch" "$TMP/err"' \
  "missing module: rc=$rc $(cat "$TMP/err")"
# a broken module file: dlopen's reason is shown, no crash
echo "not an ELF file" >"$TMP/moddir/top.so"
GPUWATCH_MODULE_DIR="$TMP/moddir" "$TMP/prefix/bin/gpuwatch" top --once >"$TMP/out" 2>"$TMP/err"; rc=$?
check '[ $rc -eq 3 ] && grep -q "needs the top module" "$TMP/err"' "broken module: rc=$rc $(cat "$TMP/err")"
# the built-in commands need no module at all
"$TMP/prefix/bin/gpuwatch" query --help >/dev/null 2>&1; check '[ $? -eq 0 ]' "query --help without modules"

echo "test_modules: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
