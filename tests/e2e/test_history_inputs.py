#!/usr/bin/env python3
"""test_history_inputs.py - the history commands given what they did not expect (issue 21 items 15,
16, 19): a FIFO, a device or a folder as --db (or a FIFO beside the file as its -wal) is refused at
once with a message, never opened (SQLite would block on a FIFO for ever); a chart of any size asked
for is one clear error past the limits, never an overflow; --metric with no metric in it says so."""
import os
import subprocess
import sys
import tempfile

GPUWATCH = os.path.abspath(os.environ.get("GPUWATCH", "build/gpuwatch"))
TMP = tempfile.TemporaryDirectory(prefix="gw-hist-inputs-")
ENV = dict(os.environ, GPUWATCH_AGENT="none")
ENV.pop("GPUWATCH_HISTORY_DB", None)
failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, str(detail)[-2000:]), file=sys.stderr)
    else:
        print("ok - %s" % what)


def gw(args, timeout=60):
    try:
        p = subprocess.run([GPUWATCH] + args, capture_output=True, text=True, timeout=timeout, env=ENV)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % timeout


def main():
    fifo = os.path.join(TMP.name, "fifo.db")
    os.mkfifo(fifo)
    real = os.path.join(TMP.name, "real.db")
    # a real (empty) history file whose -wal is a FIFO
    rc, _, err = gw(["--sim", "demo-8gpu", "run", "--db", real, "--", "true"])
    check(rc == 0 and os.path.exists(real), "a real history file to start from", err)
    os.mkfifo(real + "-wal") if not os.path.exists(real + "-wal") else None
    folder = os.path.join(TMP.name, "folder")
    os.mkdir(folder)
    commands = [["history", "--metric", "utilization.gpu", "--db", "DB"], ["events", "--db", "DB"],
                ["diagnose", "--db", "DB"], ["jobs", "--db", "DB"],
                ["history", "export", "--db", "DB", "--out", os.path.join(TMP.name, "exp")]]
    for path, what in ((fifo, "a FIFO"), ("/dev/zero", "a device"), (folder, "a folder"), (real, "a FIFO")):
        for cmd in commands:
            args = [path if a == "DB" else a for a in cmd]
            rc, out, err = gw(args)
            named = (real + "-wal" if path == real else path) in err and what in err
            check(rc == 1 and named, "%s --db %s: refused at once, naming %s (rc %s)"
                  % (cmd[0] if cmd[1] != "export" else "history export", what, what, rc), err)

    for w, h in (("65547", "65540"), ("100000", "20"), ("80", "2147483648"), ("19", "20"), ("-5", "20"), ("x", "20")):
        rc, out, err = gw(["history", "--db", real, "--metric", "utilization.gpu", "--format", "chart",
                           "--width", w, "--height", h])
        check(rc == 2 and ("--width" in err or "--height" in err) and len(err.strip().splitlines()) == 1,
              "history --width %s --height %s: one error naming the option (rc %s)" % (w, h, rc), err)
    for m in (",", ",,", " , "):
        rc, _, err = gw(["history", "--db", real, "--metric", m])
        check(rc == 2 and "--metric" in err, "history --metric %r: an error naming --metric (rc %s)" % (m, rc), err)
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        sys.exit(1)


main()
