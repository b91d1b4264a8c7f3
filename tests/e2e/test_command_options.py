#!/usr/bin/env python3
"""test_command_options.py - every command line mistake has one shape (issue 22): the test walks every
command, its subcommands and nvidia-smi's form, takes each option the parser knows (gpuwatch
--complete kinds: spelling, type, bounds, choices) and gives it values that are wrong for its type:
a flag given a value, words that are no number, duration, size or time, numbers just outside the
bounds, a choice misspelt, a file that does not exist, a value left out, and the option's own
name misspelt. Each must end before any work with exit status 2, nothing on stdout, and one line on
stderr that names the command and the option ("gpuwatch history: --since: ..."), with "did you mean"
naming the option or choice a typo was close to. gpusim's own command line is walked the same way."""
import os
import subprocess
import sys

GPUWATCH = os.path.abspath(os.environ.get("GPUWATCH", "build/gpuwatch"))
GPUSIM_TOOL = os.environ.get("GPUSIM_TOOL", "build/gpusim/gpusim")
SOURCE = os.environ.get("GW_SOURCE_DIR", ".")
SCENARIO = os.path.join(SOURCE, "sim", "scenarios", "demo-8gpu.yaml")
GUARD = "--zz-no-such-option"  # after the value: the command never runs, whatever the value does
GLOBAL = {"--sim", "--version", "--complete", "-h", "--help"}
failures = []
checked = 0


def check(cond, what, detail=""):
    global checked
    checked += 1
    if not cond:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, str(detail)[-1500:]), file=sys.stderr)


def gw(args, timeout=60):
    p = subprocess.run([GPUWATCH] + args, capture_output=True, text=True, timeout=timeout,
                       env=dict(os.environ, GPUWATCH_AGENT="none"))
    return p.returncode, p.stdout, p.stderr


def lines(err):
    return [l for l in err.splitlines() if l.strip()]


def typo(word):
    """The word with two letters of its middle swapped (a close misspelling), or None."""
    body = word.lstrip("-")
    if len(body) < 4:
        return None
    i = len(body) // 2
    if body[i - 1] == body[i]:
        return None
    swapped = body[:i - 1] + body[i] + body[i - 1] + body[i + 1:]
    return word[:len(word) - len(body)] + swapped


def bad_values(kind, lo, hi, choices):
    """(value, what must be in the error after 'OPT: ') for one option of this kind."""
    out = []
    if kind == "int":
        out.append(("5x", "expected a whole number"))
        if lo or hi:
            out.append((str(int(lo) - 1), "expected a whole number"))
        if hi:
            out.append((str(int(hi) + 1), "expected a whole number"))
    elif kind == "number":
        out += [("5x", "expected a number"), ("nan", "expected a number")]
        if lo or hi:
            out.append((repr(lo - 1), "expected a number"))
        if hi:
            out.append((repr(hi + 1), "expected a number"))
    elif kind == "duration":
        out += [("5x", "expected a duration"), ("-1s", "expected a duration")]
        if lo > 0:
            out.append(("%gs" % (lo / 2), "expected a duration"))
        if hi > 0:
            out.append(("%gs" % (hi * 2), "expected a duration"))
    elif kind == "size":
        out.append(("lots", "expected a size"))
    elif kind == "time":
        out.append(("yesterday", "expected a time"))
    elif kind == "choice":
        words = choices.split(",")
        out.append(("@@", "is not one of"))
        t = typo(words[0])
        if t and t not in words:
            out.append((t, "did you mean '%s'?" % words[0]))
    elif kind == "file":
        out.append(("/nonexistent/gw-file", "cannot read"))
    elif kind == "outfile":
        out.append(("/nonexistent/gw-dir/out", "no folder"))
    return out


def one_error(args, prefix, needle, what, form=False):
    rc, out, err = gw(args)
    ls = lines(err)
    # the form's unknown options are main's, with the program's hint after them
    if form and len(ls) == 2 and ls[1] == "Try 'gpuwatch --help'.":
        ls = ls[:1]
    check(rc == 2 and out == "" and len(ls) == 1 and ls[0].startswith(prefix) and needle in ls[0],
          "%s: exit 2, one line '%s...%s' (rc %d)" % (what, prefix, needle, rc), err)


def walk(cmd_words, kinds_args, prefix, form=False):
    rc, out, err = gw(["--complete", "kinds"] + kinds_args)
    check(rc == 0, "--complete kinds %s" % kinds_args, err)
    base = ["--sim", SCENARIO] + cmd_words
    for line in out.splitlines():
        spelling, kind, lo, hi, choices = line.split(" ", 4)
        if spelling in GLOBAL or spelling == "--hash-password":
            continue
        lo, hi = float(lo), float(hi)
        what = "%s %s" % (" ".join(cmd_words) or "(nvidia-smi form)", spelling)
        for value, needle in bad_values(kind, lo, hi, choices):
            one_error(base + [spelling, value, GUARD], prefix, "%s: " % spelling, "%s %r" % (what, value), form)
            rc, _, err = gw(base + [spelling, value, GUARD])
            check(needle in err, "%s %r: says %r" % (what, value, needle), err)
        if kind == "flag" and spelling.startswith("--"):
            one_error(base + [spelling + "=1", GUARD], prefix, "%s: takes no value" % spelling, what + "=1", form)
        if kind in ("text", "path", "file", "outfile", "int", "number", "size", "time", "choice"):
            one_error(base + [spelling, "--", "x"], prefix, "%s: needs a value" % spelling, what + " (no value)",
                      form)
        if kind == "custom":  # checked by the layer that knows it: an error names it, or the value passes
            rc, out, err = gw(base + [spelling, "@@", GUARD])
            ls = lines(err)
            check(rc == 2 and out == "" and len(ls) == 1 and ls[0].startswith(prefix) and
                  ("%s: " % spelling in ls[0] or GUARD in ls[0]), "%s '@@': one line naming it or the guard" % what,
                  err)
        t = typo(spelling) if spelling.startswith("--") else None
        if t:
            one_error(base + [t, GUARD], prefix, "unknown option '%s'" % t, what + " misspelt", form)
            rc, _, err = gw(base + [t, GUARD])
            check("did you mean '" in err, "%s misspelt %s: a suggestion" % (what, t), err)


def main():
    rc, out, err = gw(["--complete", "commands"])
    commands = [c for c in out.split() if c != "help"]
    check(len(commands) >= 15, "the commands: %s" % commands)
    for c in commands:
        rc, out, _ = gw(["--complete", "options", c])
        subs = [w for w in out.split() if not w.startswith("-")]
        walk([c], [c], "gpuwatch %s: " % c)
        for s in subs:
            walk([c, s], [c, s], "gpuwatch %s %s: " % (c, s))
        t = typo(c)
        if t and t not in commands:
            rc, _, err = gw([t])
            check(rc == 2 and "did you mean '%s'?" % c in err, "command %s misspelt %s: a suggestion" % (c, t), err)
        if subs:
            t = typo(subs[0])
            if t and t not in subs:
                rc, _, err = gw([c, t])
                check(rc == 2 and "did you mean '%s'?" % subs[0] in err and err.startswith("gpuwatch %s: " % c),
                      "%s %s misspelt %s: a suggestion" % (c, subs[0], t), err)
    walk([], ["-"], "gpuwatch: ", form=True)
    # gpusim's own command line
    for args, needle in ((["render", SCENARIO, "--step", "5x"], "gpusim render: --step: expected a duration"),
                         (["render", SCENARIO, "--step", "0"], "gpusim render: --step: expected a duration"),
                         (["render", SCENARIO, "--duration", "-1s"], "gpusim render: --duration: expected a duration"),
                         (["render", SCENARIO, "--start", "soon"], "gpusim render: --start: expected a duration"),
                         (["render", SCENARIO, "--gpu", "99"], "gpusim render: --gpu: no GPU '99' (8 GPUs: 0-7)"),
                         (["render", SCENARIO, "--gpu", "1-"], "gpusim render: --gpu: '1-' is not a GPU index"),
                         (["render", SCENARIO, "--metrics", "power.darw"],
                          "gpusim render: --metrics: unknown metric 'power.darw' \u2014 did you mean 'power.draw'?"),
                         (["render", SCENARIO, "--processes=1"], "gpusim render: --processes: takes no value"),
                         (["render", SCENARIO, "--stpe", "1s"], "did you mean '--step'?"),
                         (["render", SCENARIO, "--step"], "gpusim render: --step: needs a value"),
                         (["rendr", SCENARIO], "did you mean 'render'?"), (["render"], "gpusim render: needs")):
        p = subprocess.run([GPUSIM_TOOL] + args, capture_output=True, text=True, timeout=60)
        ls = lines(p.stderr)
        check(p.returncode == 2 and p.stdout == "" and len(ls) == 1 and needle in ls[0],
              "gpusim %s: exit 2, one line with %r (rc %d)" % (" ".join(args[:1] + args[2:]), needle, p.returncode),
              p.stderr)
    print("%d checks" % checked)
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        sys.exit(1)


main()
