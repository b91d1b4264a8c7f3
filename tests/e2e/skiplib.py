"""skiplib.py - skips that say so, for the end-to-end Python tests (docs/HANDBOOK.md, "Skips").
A check that cannot run on this machine says why ("SKIP: reason" on stdout); the test then exits
77, which ctest reports as skipped (SKIP_RETURN_CODE), and `make test` lists the reasons at the
end. Under GW_REQUIRE_ALL=1 (CI) every check must run: a skip is a failure."""
import os
import shutil
import sys

SKIP_STATUS = 77
_skipped = 0
_required_failed = False


def require_all():
    return os.environ.get("GW_REQUIRE_ALL") == "1"


def skip_test(reason):
    """The whole test cannot run here: exits (77, or 1 under GW_REQUIRE_ALL=1)."""
    print("SKIP: " + reason, flush=True)
    if require_all():
        print("FAIL: GW_REQUIRE_ALL=1: every check must run here (skipped: %s)" % reason, flush=True)
        sys.exit(1)
    sys.exit(SKIP_STATUS)


def skip_part(reason):
    """One part cannot run here; the test goes on and ends with exit_status(). Returns False under
    GW_REQUIRE_ALL=1 (the part counts as failed), else True."""
    global _skipped, _required_failed
    print("SKIP: " + reason, flush=True)
    if require_all():
        print("FAIL: GW_REQUIRE_ALL=1: every check must run here (skipped: %s)" % reason, flush=True)
        _required_failed = True
        return False
    _skipped += 1
    return True


def need_command(cmd, package):
    """The path of cmd; skips the test when it is not installed."""
    path = shutil.which(cmd)
    if not path:
        skip_test("%s is not installed (Debian package %s; scripts/deps.sh test installs it)" % (cmd, package))
    return path


def exit_status(failed):
    """The test's exit status: 1 after a failure (or a skip under GW_REQUIRE_ALL=1), 77 when a part
    was skipped, else 0."""
    if failed or _required_failed:
        return 1
    return SKIP_STATUS if _skipped else 0
