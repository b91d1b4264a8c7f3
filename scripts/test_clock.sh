#!/usr/bin/env bash
# Runs the tests of BUILD as on a machine booted UPTIME seconds ago (default 30): ctest in a time
# namespace whose monotonic and boot-time clocks are moved back (unshare --time, as root), so that
# every clock a test or gpuwatch reads that counts from the boot is small (docs/HANDBOOK.md, "Time in
# tests"). Extra arguments go to ctest (-R PATTERN, -j N). Usage: scripts/test_clock.sh BUILD [UPTIME] [CTEST ARGS...]
set -eu
build=$1
shift
uptime_s=30
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then
  uptime_s=$1
  shift
fi
now=$(cut -d. -f1 /proc/uptime)
back=$((now > uptime_s ? now - uptime_s : 0))
cd "$build"
exec unshare --time --fork --monotonic=-"$back" --boottime=-"$back" \
  bash -c 'echo "test_clock: uptime in here: $(cut -d" " -f1 /proc/uptime) s"; exec ctest --output-on-failure "$@"' _ "$@"
