#!/usr/bin/env python3
"""test_skips.py - the tests ctest skipped (exit status 77, SKIP_RETURN_CODE) in each build folder,
read from BUILD/ctest-junit.xml (scripts/test.sh writes it), each with the reasons it printed on its
"SKIP: ..." lines. Exit status 1 when a test was skipped and GW_REQUIRE_ALL=1, or when a folder has
no results. Usage: scripts/test_skips.py BUILD..."""
import os
import sys
import xml.etree.ElementTree as ET


def skipped(build):
    """[(test name, [reason, ...])] of the tests skipped in build, or None without results."""
    path = os.path.join(build, "ctest-junit.xml")
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print("test_skips: %s: %s" % (path, e), file=sys.stderr)
        return None
    found = []
    for case in root.iter("testcase"):
        if case.find("skipped") is None:
            continue
        out = case.findtext("system-out") or ""
        reasons = [line.strip()[len("SKIP:"):].strip() for line in out.splitlines() if line.strip().startswith("SKIP:")]
        found.append((case.get("name"), reasons or ["(the test printed no reason: exit status 77 without a SKIP: line)"]))
    return found


def main(builds):
    rc = 0
    total = 0
    lines = []
    for b in builds:
        found = skipped(b)
        if found is None:
            rc = 1
            continue
        for name, reasons in found:
            total += 1
            where = "%s/%s" % (os.path.basename(os.path.normpath(b)), name)
            lines += ["  %s: %s" % (where, r) for r in reasons]
    if total == 0:
        print("skipped tests: none")
    else:
        print("skipped tests (%d):" % total)
        print("\n".join(lines))
        if os.environ.get("GW_REQUIRE_ALL") == "1":
            print("GW_REQUIRE_ALL=1: every test must run here; a skipped test is a failure "
                  "(scripts/deps.sh test installs what the tests need)")
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
