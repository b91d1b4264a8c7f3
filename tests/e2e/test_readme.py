#!/usr/bin/env python3
"""test_readme.py - README.md's examples run as written: every `$ ` line of a fenced block is run
(from the source tree, build/gpuwatch standing for the gpuwatch under test) and its output compared
with the lines the README shows under it: exactly when the example freezes gpusim's clock
(GPUSIM_SPEED=0), else line by line with the numbers free and everything else (names, units, words,
column count) as shown."""
import os
import re
import subprocess
import sys

GPUWATCH = os.path.abspath(os.environ.get("GPUWATCH", "build/gpuwatch"))
SRC = os.environ.get("GW_SOURCE_DIR", os.getcwd())

failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, detail), file=sys.stderr)


def examples(text):
    """(command, expected output lines) of every `$ ` line in a fenced block."""
    out = []
    for block in re.findall(r"^```[a-z]*\n(.*?)^```", text, re.M | re.S):
        lines = block.split("\n")[:-1]
        if not lines or not lines[0].startswith("$ "):
            continue
        for line in lines:
            if line.startswith("$ "):
                out.append((line[2:], []))
            else:
                out[-1][1].append(line)
    return out


def tokens(line):
    """A line's words, each number (and a run's job id) replaced by '#': what must match when the
    values move."""
    return [re.sub(r"^(-?\d+(\.\d+)?|\d{8}-\d{6}-[0-9a-f]{4})$", "#", t) for t in re.split(r"[\s,]+", line.strip()) if t]


def main():
    with open(os.path.join(SRC, "README.md")) as f:
        found = examples(f.read())
    check(len(found) >= 9, "README has its examples", str(len(found)))
    for cmd, want in found:
        check(cmd.startswith(("build/gpuwatch ", "GPUSIM_")), "example runs the built gpuwatch: %s" % cmd)
        shell = cmd.replace("build/gpuwatch", GPUWATCH)
        p = subprocess.run(["bash", "-o", "pipefail", "-c", shell], cwd=SRC, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=60)
        # what the terminal shows, but for the banner gpusim prints on stderr (the README says it once)
        got = [l for l in p.stdout.rstrip("\n").split("\n") if not l.startswith("SIMULATED GPUs (gpusim: ")]
        if "did you mean" not in "\n".join(want):
            check(p.returncode == 0, "exits 0: %s" % cmd, p.stdout)
        if "GPUSIM_SPEED=0" in cmd:
            check(got == want, "exact output: %s" % cmd, "want:\n%s\ngot:\n%s" % ("\n".join(want), "\n".join(got)))
            continue
        check(len(got) == len(want), "as many lines as shown: %s" % cmd, "\n".join(got))
        for w, g in zip(want, got):
            check(tokens(w) == tokens(g), "line as shown (numbers aside): %s" % cmd, "want %r\ngot  %r" % (w, g))


if __name__ == "__main__":
    main()
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        sys.exit(1)
    print("ok")
