#!/usr/bin/env bash
# test_install.sh - an installed gpuwatch works outside the build tree: `cmake --install --prefix P`
# puts gpusim's library, the gpusim tool, the scenarios, the modules, the man pages and the shell
# completions under P, and P/bin/gpuwatch --sim NAME finds gpusim and the scenario there. Proven three
# ways: the --sim lookup lines (GPUWATCH_DEBUG=sim) name only P; strace shows no file of the source
# or build tree touched; and the run succeeds with the source and build trees hidden under empty
# tmpfs mounts in a private mount namespace (as root, or in a user namespace of its own otherwise).
set -u
. "$(dirname "$0")/skiplib.sh"
BUILD=${GW_BUILD_DIR:?GW_BUILD_DIR not set}
SRC=${GW_SOURCE_DIR:?GW_SOURCE_DIR not set}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }

P=$TMP/prefix
cmake --install "$BUILD" --prefix "$P" >"$TMP/install.log" 2>&1
check '[ $? -eq 0 ]' "cmake --install: $(tail -3 "$TMP/install.log")"
for f in bin/gpuwatch bin/gpusim lib/gpuwatch/gpusim/libnvidia-ml.so.1 lib/gpuwatch/agent.so lib/gpuwatch/top.so \
         share/gpuwatch/scenarios/demo-8gpu.yaml share/gpuwatch/scenarios/thermal-throttle.yaml \
         share/gpuwatch/rules/gpuwatch-default.yaml share/man/man1/gpuwatch.1 share/man/man1/gpusim.1 \
         share/bash-completion/completions/gpuwatch share/zsh/site-functions/_gpuwatch \
         share/gpuwatch/slurm/prolog.sh share/gpuwatch/slurm/epilog.sh; do
  check '[ -e "$P/$f" ]' "installed $f"
done
nscen=$(ls "$SRC"/sim/scenarios/*.yaml | wc -l)
check '[ "$(ls "$P"/share/gpuwatch/scenarios/*.yaml | wc -l)" -eq "$nscen" ]' "every shipped scenario installed"

cd "$TMP" || exit 1
GW=$P/bin/gpuwatch
# the places --sim looked and what it used: the program's prefix only
GPUWATCH_DEBUG=sim "$GW" --sim demo-8gpu query >"$TMP/out" 2>"$TMP/err"
check '[ $? -eq 0 ]' "installed gpuwatch --sim demo-8gpu query: $(cat "$TMP/err")"
check '[ "$(wc -l <"$TMP/out")" -eq 9 ] && head -1 "$TMP/out" | grep -q "^index  name"' "query prints a header and 8 GPUs"
check 'grep -q "^gpuwatch: --sim: using $P/lib/gpuwatch/gpusim/libnvidia-ml.so.1 (the program.s prefix)$" "$TMP/err"' \
  "library from the prefix: $(grep using "$TMP/err")"
check 'grep -q "^gpuwatch: --sim: using $P/share/gpuwatch/scenarios/demo-8gpu.yaml (the program.s prefix)$" "$TMP/err"' \
  "scenario from the prefix"
check '! grep "using" "$TMP/err" | grep -q -e "$SRC" -e "$BUILD"' "nothing used from the source or build tree"
check 'grep -q "SIMULATED GPUs (gpusim: $P/share/gpuwatch/scenarios/demo-8gpu.yaml)" "$TMP/err"' "banner names the installed scenario"

# strace: not one file of the source or build tree is looked at
if strace -f -qq -e trace=open -o /dev/null true 2>/dev/null; then
  strace -f -qq -o "$TMP/trace" -e trace=open,openat,access,faccessat,faccessat2,stat,newfstatat,lstat,readlink,execve \
    "$GW" --sim thermal-throttle list >/dev/null 2>&1
  check '[ -s "$TMP/trace" ]' "strace recorded the run"
  check '! grep -q -e "$SRC/" -e "$BUILD/" "$TMP/trace"' \
    "no path of the source or build tree touched: $(grep -e "$SRC/" -e "$BUILD/" "$TMP/trace" | head -3)"
  check 'grep -q "$P/share/gpuwatch/scenarios/thermal-throttle.yaml" "$TMP/trace"' "the installed scenario was read"
else
  skip_part "strace cannot trace here (ptrace refused): the check that no file of the trees is touched" || bad "strace"
fi

# a private mount namespace with the source and build trees hidden: root makes one; another user
# makes it in a user namespace of its own (unshare -r), where the kernel allows that
ns="unshare -m"
[ "$(id -u)" -ne 0 ] && ns="unshare -r -m"
if $ns true 2>/dev/null; then
  hide="mount -t tmpfs none '$SRC'"
  case "$BUILD/" in "$SRC"/*) ;; *) hide="$hide && mount -t tmpfs none '$BUILD'" ;; esac
  $ns sh -c "$hide && [ -z \"\$(ls -A '$SRC')\" ] && '$GW' --sim demo-8gpu --query-gpu=index,name --format=csv,noheader" \
    >"$TMP/hidden" 2>"$TMP/hidden.err"
  check '[ $? -eq 0 ] && [ "$(wc -l <"$TMP/hidden")" -eq 8 ]' "runs with the trees hidden: $(cat "$TMP/hidden.err")"
  $ns sh -c "$hide && '$GW' --sim demo-8gpu top --once" >"$TMP/top" 2>&1
  check '[ $? -eq 0 ] && grep -q "H100" "$TMP/top"' "a module command (top) from the prefix with the trees hidden: $(head -3 "$TMP/top")"
else
  skip_part "no private mount namespace here ($ns refused): the run with the trees hidden" || bad "namespace"
fi

# the other installed pieces work from the prefix
check '"$GW" --complete scenarios | grep -qx demo-8gpu' "--complete scenarios lists the installed ones"
check '[ -z "$("$GW" --complete scenarios | sort | uniq -d)" ]' \
  "--complete scenarios lists each name once (installed and source tree both hold them): $("$GW" --complete scenarios | sort | uniq -d | head -3)"
"$P/bin/gpusim" render "$P/share/gpuwatch/scenarios/idle-1gpu.yaml" --duration 0s --metrics utilization.gpu >"$TMP/render" 2>&1
check '[ $? -eq 0 ] && [ "$(head -1 "$TMP/render")" = "t,gpu,utilization.gpu" ]' "installed gpusim renders: $(head -2 "$TMP/render")"
check 'MANPATH="$P/share/man" man -w gpuwatch 2>/dev/null | grep -q "$P/share/man/man1/gpuwatch.1"' "man finds the installed page"
check 'bash -c "source $P/share/bash-completion/completions/gpuwatch; COMP_WORDS=($GW qu); COMP_CWORD=1; _gpuwatch; [ \"\${COMPREPLY[*]}\" = query ]"' \
  "installed bash completion completes with the installed program"

echo "test_install: $pass passed, $fail failed"
skip_exit "$fail"
