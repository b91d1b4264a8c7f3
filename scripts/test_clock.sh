#!/usr/bin/env bash
# Runs the tests of BUILD as on a machine booted UPTIME seconds ago (default 30) and, with --days N,
# at a date N days from today (negative: before): ctest in a time namespace whose monotonic and
# boot-time clocks are moved back (unshare --time, as root), so that every clock that counts from the
# boot is small; the wall clock moved by BUILD/test-tools/libfakedate.so (tests/tools/fakedate.c,
# LD_PRELOAD; the normal build only, and Go programs such as Prometheus keep the real date).
# docs/HANDBOOK.md, "Time in tests". Extra arguments go to ctest (-R PATTERN, -j N).
# Usage: scripts/test_clock.sh BUILD [--uptime S] [--days N] [CTEST ARGS...]
set -eu
build=$(cd "$1" && pwd)
shift
uptime_s=30
days=0
while [ $# -gt 0 ]; do
  case $1 in
    --uptime) uptime_s=$2; shift 2 ;;
    --days) days=$2; shift 2 ;;
    *) break ;;
  esac
done
now=$(cut -d. -f1 /proc/uptime)
back=$((now > uptime_s ? now - uptime_s : 0))
if [ "$days" != 0 ]; then
  lib=$build/test-tools/libfakedate.so
  [ -f "$lib" ] || { echo "test_clock: $lib is not built (the normal build has it)" >&2; exit 2; }
  export LD_PRELOAD="$lib${LD_PRELOAD:+ $LD_PRELOAD}" GW_FAKEDATE_OFFSET=$((days * 86400))
fi
cd "$build"
exec unshare --time --fork --monotonic=-"$back" --boottime=-"$back" \
  bash -c 'echo "test_clock: uptime $(cut -d" " -f1 /proc/uptime) s, date $(date -u +%FT%TZ)"
           exec ctest --output-on-failure "$@"' _ "$@"
