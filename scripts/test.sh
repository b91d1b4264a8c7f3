#!/usr/bin/env bash
# Runs every test of each build folder with ctest, JOBS at once, then lists the tests that were
# skipped, each with the reason it printed ("SKIP: ..."; tests/e2e/skiplib.sh, skiplib.py,
# tests/unit/skip.h). Exit status 1 when a test failed, or when one was skipped and GW_REQUIRE_ALL=1
# (CI: every test must run). Usage: scripts/test.sh JOBS BUILD...
set -u
jobs=$1
shift
src=$(cd "$(dirname "$0")/.." && pwd)
rc=0
for b in "$@"; do
  dir=$(cd "$b" && pwd) || { rc=1; continue; }
  rm -f "$dir/ctest-junit.xml"
  # The whole output of a skipped (or passed) test is kept, so that its reason is never cut off.
  (cd "$dir" && ctest --output-on-failure -j"$jobs" --test-output-size-passed 262144 \
    --output-junit "$dir/ctest-junit.xml") || rc=1
done
python3 "$src/scripts/test_skips.py" "$@" || rc=1
exit $rc
