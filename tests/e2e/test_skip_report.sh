#!/usr/bin/env bash
# test_skip_report.sh - skips say so: a small CTest project whose tests skip through the helpers
# (skiplib.sh, skiplib.py, tests/unit/skip.h) run by scripts/test.sh, as `make test` runs ours.
# CTest reports them as skipped (exit status 77), the end of the run lists each with its reason, a
# test that passes or fails is not listed, and with GW_REQUIRE_ALL=1 every skip is a failure.
set -u
SRC=${GW_SOURCE_DIR:?GW_SOURCE_DIR not set}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }

P=$TMP/project
mkdir -p "$P"
cat >"$P/sh_skips.sh" <<EOF
. "$SRC/tests/e2e/skiplib.sh"
need_command gw-no-such-tool-here gw-no-such-package
EOF
cat >"$P/sh_part.sh" <<EOF
. "$SRC/tests/e2e/skiplib.sh"
fail=0
skip_part "the frobnicator part needs a frobnicator" || fail=1
skip_exit \$fail
EOF
cat >"$P/py_part.py" <<EOF
import sys
sys.path.insert(0, "$SRC/tests/e2e")
from skiplib import exit_status, skip_part
skip_part("python part: no widget here")
sys.exit(exit_status(0))
EOF
cat >"$P/c_skip.c" <<'EOF'
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "skip.h"
static void skipped_case(void **st)
{
    (void)st;
    skip_case("a C case that needs a device");
    fail_msg("skip_case went on");
}
static void passing_case(void **st)
{
    (void)st;
    assert_int_equal(1 + 1, 2);
}
int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(skipped_case), cmocka_unit_test(passing_case)};
    return skip_result(cmocka_run_group_tests(tests, NULL, NULL));
}
EOF
cat >"$P/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.18)
project(skips C)
enable_testing()
find_package(PkgConfig REQUIRED)
pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)
add_executable(c_skip c_skip.c)
target_include_directories(c_skip PRIVATE $SRC/tests/unit)
target_link_libraries(c_skip PkgConfig::CMOCKA)
add_test(NAME sh_skips COMMAND bash \${CMAKE_SOURCE_DIR}/sh_skips.sh)
add_test(NAME sh_part COMMAND bash \${CMAKE_SOURCE_DIR}/sh_part.sh)
add_test(NAME py_part COMMAND python3 \${CMAKE_SOURCE_DIR}/py_part.py)
add_test(NAME c_skip COMMAND c_skip)
add_test(NAME passes COMMAND true)
set_tests_properties(sh_skips sh_part py_part c_skip passes PROPERTIES SKIP_RETURN_CODE 77)
EOF
cmake -S "$P" -B "$P/build" >"$TMP/cmake.log" 2>&1 && cmake --build "$P/build" >>"$TMP/cmake.log" 2>&1
check '[ $? -eq 0 ]' "the small project builds: $(tail -5 "$TMP/cmake.log")"

env -u GW_REQUIRE_ALL "$SRC/scripts/test.sh" 1 "$P/build" >"$TMP/out" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "skips alone are no failure (exit status $rc): $(cat "$TMP/out")"
for t in sh_skips sh_part py_part c_skip; do
  check 'grep -q "^ *[0-9]*/[0-9]* Test *#[0-9]*: $t .*Skipped" "$TMP/out"' "CTest reports $t as skipped"
done
check 'grep -q "^skipped tests (4):" "$TMP/out"' "the list at the end counts 4: $(sed -n '/^skipped tests/,$p' "$TMP/out")"
check 'grep -q "build/sh_skips: gw-no-such-tool-here is not installed (Debian package gw-no-such-package" "$TMP/out"' \
  "a missing command names its package"
check 'grep -q "build/sh_part: the frobnicator part needs a frobnicator" "$TMP/out"' "a skipped part of a shell test"
check 'grep -q "build/py_part: python part: no widget here" "$TMP/out"' "a skipped part of a Python test"
check 'grep -q "build/c_skip: a C case that needs a device" "$TMP/out"' "a skipped cmocka case"
check '! sed -n "/^skipped tests/,\$p" "$TMP/out" | grep -q passes' "a passing test is not listed"

GW_REQUIRE_ALL=1 "$SRC/scripts/test.sh" 1 "$P/build" >"$TMP/all" 2>&1
rc=$?
check '[ $rc -ne 0 ]' "GW_REQUIRE_ALL=1: a skip fails the run"
check '[ "$(grep -c "Failed" "$TMP/all")" -ge 4 ]' "GW_REQUIRE_ALL=1: each skipping test fails: $(grep -E "Test +#" "$TMP/all")"
check 'grep -q "GW_REQUIRE_ALL=1: every check must run here" "$TMP/all"' "GW_REQUIRE_ALL=1 says why"

# A test that exits 77 without the helpers is still listed (and fails under GW_REQUIRE_ALL=1).
cat >>"$P/CMakeLists.txt" <<'EOF'
add_test(NAME bare COMMAND sh -c "exit 77")
set_tests_properties(bare PROPERTIES SKIP_RETURN_CODE 77)
EOF
cmake "$P/build" >/dev/null 2>&1
GW_REQUIRE_ALL=1 "$SRC/scripts/test.sh" 1 "$P/build" >"$TMP/bare" 2>&1
check 'grep -q "build/bare: (the test printed no reason" "$TMP/bare"' "a bare exit 77 is listed: $(sed -n '/^skipped tests/,$p' "$TMP/bare")"

echo "test_skip_report: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
