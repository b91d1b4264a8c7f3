"""checks.py - a check that counts and goes on, for the end-to-end tests that report every failure
of a run rather than stop at the first (agentlib.check stops)."""
import sys


class Checks:
    def __init__(self):
        self.passed = 0
        self.failures = []

    def __call__(self, cond, what, detail=""):
        """Counts cond; a failure is printed (what, then detail) and kept. Returns cond."""
        if cond:
            self.passed += 1
        else:
            self.failures.append(what)
            print("FAIL: %s%s" % (what, "\n" + detail if detail else ""), file=sys.stderr)
        return cond
