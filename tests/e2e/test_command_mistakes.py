#!/usr/bin/env python3
"""test_command_mistakes.py - command-line mistakes a new user makes (issue 21 item 19), each one
clear error, found before any work: `diagnose --replay` longer than a scenario's week is refused
before replaying; `config check` and `agent --listen` refuse a port out of range; `rules test` of a
missing file says so on stderr, not stdout; `--complete scenarios` lists each name once."""
import os
import subprocess
import sys
import tempfile
import time

GPUWATCH = os.path.abspath(os.environ.get("GPUWATCH", "build/gpuwatch"))
TMP = tempfile.TemporaryDirectory(prefix="gw-mistakes-")
failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, str(detail)[-2000:]), file=sys.stderr)
    else:
        print("ok - %s" % what)


def gw(args, timeout=120):
    t0 = time.monotonic()
    p = subprocess.run([GPUWATCH] + args, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0


def main():
    for d in ("100000h", "8d", "604801s", "1y"):
        rc, out, err, took = gw(["--sim", "demo-8gpu", "diagnose", "--replay", d])
        check(rc == 2 and "--replay" in err and "7d" in err and not out,
              "diagnose --replay %s: refused before replaying (rc %d, %.1f s)" % (d, rc, took), err)
    for listen, good in ((":99999", False), (":65536", False), (":-1", False), (":abc", False), ("9400", False),
                         ("[::1:9400", False), (":", False), (":65535", True), ("127.0.0.1:0", True),
                         ("[::1]:9400", True)):
        path = os.path.join(TMP.name, "c.yaml")
        with open(path, "w") as f:
            f.write('listen: "%s"\n' % listen)
        rc, out, err, _ = gw(["config", "check", path])
        check((rc == 0) == good and (good or ("listen" in err and "c.yaml:1:" in err)),
              "config check listen %r: %s (rc %d)" % (listen, "accepted" if good else "refused at its line", rc),
              out + err)
        if not good:
            rc, out, err, _ = gw(["agent", "--listen", listen])
            check(rc == 2 and "--listen" in err, "agent --listen %r: a usage error (rc %d)" % (listen, rc), err)
    for missing in (os.path.join(TMP.name, "missing.yaml"), "/nonexistent/dir/tests.yaml"):
        rc, out, err, _ = gw(["rules", "test", missing])
        check(rc == 1 and out == "" and missing in err, "rules test of a missing file: the error on stderr", out + err)
    rc, out, _, _ = gw(["--complete", "scenarios"])
    names = out.split()
    check(rc == 0 and names and len(names) == len(set(names)), "--complete scenarios: each name once (%d names)"
          % len(names), out)
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        sys.exit(1)


main()
