# skiplib.sh - skips that say so, for the end-to-end shell tests (sourced; docs/HANDBOOK.md, "Skips").
# A check that cannot run on this machine says why ("SKIP: reason" on stdout); the test then exits
# 77, which ctest reports as skipped (SKIP_RETURN_CODE), and `make test` lists the reasons at the
# end. Under GW_REQUIRE_ALL=1 (CI) every check must run: a skip is a failure.
GW_SKIPPED=0

# skip_test REASON: the whole test cannot run here; exits.
skip_test() {
  echo "SKIP: $*"
  if [ "${GW_REQUIRE_ALL:-0}" = 1 ]; then
    echo "FAIL: GW_REQUIRE_ALL=1: every check must run here (skipped: $*)"
    exit 1
  fi
  exit 77
}

# skip_part REASON: one part cannot run here; the test goes on and ends with skip_exit.
# Returns 1 under GW_REQUIRE_ALL=1 (the part counts as failed), else 0.
skip_part() {
  echo "SKIP: $*"
  if [ "${GW_REQUIRE_ALL:-0}" = 1 ]; then
    echo "FAIL: GW_REQUIRE_ALL=1: every check must run here (skipped: $*)"
    GW_SKIPPED=-1
    return 1
  fi
  [ "$GW_SKIPPED" -ge 0 ] && GW_SKIPPED=$((GW_SKIPPED + 1))
  return 0
}

# need_command COMMAND PACKAGE: skips the test when COMMAND is not installed.
need_command() {
  command -v "$1" >/dev/null 2>&1 || skip_test "$1 is not installed (Debian package $2; scripts/deps.sh test installs it)"
}

# skip_exit FAILURES: ends the test: 1 after a failure (or a skip under GW_REQUIRE_ALL=1), 77 when a
# part was skipped, else 0.
skip_exit() {
  [ "${1:-0}" -gt 0 ] && exit 1
  [ "$GW_SKIPPED" -lt 0 ] && exit 1
  [ "$GW_SKIPPED" -gt 0 ] && exit 77
  exit 0
}
