#!/usr/bin/env python3
"""test_nvsmi_invocations.py - the nvidia-smi command lines of real scripts
(tests/data/nvidia-smi-invocations.tsv, each with its source) run as `gpuwatch --sim demo-8gpu ...`
in place of nvidia-smi, and their output compared with what nvidia-smi prints
(tests/data/nvidia-smi/): the csv header cell for cell, the number of columns and rows, each value's
kind and unit, -L's lines, the -q report's sections and key column, the lines the scripts grep or
awk, and -f log files. Loops (-l, -lms, pmon) are stopped with SIGINT after a while."""
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvsmi_ref as ref  # noqa: E402

GPUWATCH = os.path.abspath(os.environ.get("GPUWATCH", "build/gpuwatch"))
LIST = os.path.join(ref.SRC, "tests", "data", "nvidia-smi-invocations.tsv")
SCENARIO = "demo-8gpu"
NGPUS = 8

failures = []
HEADERS = ref.headers()
ALIASES = ref.aliases()
VALUES = {**ref.values("rtx4080-595"), **ref.values("h100-590")}
APPS_HEADER = dict(zip(ref.ref_command("h100-590", "query-compute-apps.csv").split("=", 1)[1].split(" ")[0].split(","),
                       ref.ref_lines("h100-590", "query-compute-apps.csv")[0].split(", ")))
APPS_ALIASES = {"name": "process_name", "used_memory": "used_gpu_memory"}


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, detail[:3000]), file=sys.stderr)


def invocations():
    with open(LIST) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cmd, source, reads = line.rstrip("\n").split("\t")
            yield cmd, source, reads


def expand(args):
    """nvidia-smi -> gpuwatch on gpusim; @board -> that capture's field list."""
    out = [GPUWATCH, "--sim", SCENARIO]
    for a in args[1:]:
        m = re.match(r"^--query-gpu=@(.+)$", a)
        out.append("--query-gpu=" + ",".join(ref.query_gpu(m.group(1))[0]) if m else a)
    return out


def opt_value(args, *names):
    for i, a in enumerate(args):
        for n in names:
            if a == n and i + 1 < len(args):
                return args[i + 1]
            if a.startswith(n + "="):
                return a.split("=", 1)[1]
    return None


def streaming(args):
    return any(a in ("-l", "--loop", "-lms", "--loop-ms") or a.startswith(("--loop=", "--loop-ms=")) for a in args) or \
        ("pmon" in args or "dmon" in args) and "-c" not in args


def run(args, cwd):
    env = dict(os.environ)
    if streaming(args):
        p = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        time.sleep(1.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        return p.returncode, out, err
    p = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=60, env=env)
    return p.returncode, p.stdout, p.stderr


def gpus_selected(args):
    ids = opt_value(args, "-i", "--id")
    return 1 if ids is not None else NGPUS


def check_query_gpu(name, args, text):
    fields = opt_value(args, "--query-gpu").split(",")
    fmt = (opt_value(args, "--format") or "csv").split(",")
    noheader, nounits = "noheader" in fmt, "nounits" in fmt
    lines = text.splitlines()
    want = [HEADERS[ALIASES.get(f, f)] for f in fields]
    if nounits:
        want = [ref.strip_unit(h) for h in want]
    if not noheader:
        check(lines and lines[0].split(", ") == want, "%s: the header is nvidia-smi's" % name,
              "want %s\ngot  %s" % (", ".join(want), lines[0] if lines else ""))
        check(lines.count(lines[0]) == 1, "%s: the header once" % name, text[:500])
        lines = lines[1:]
    n = gpus_selected(args)
    check(lines and len(lines) % n == 0, "%s: whole rounds of %d GPU row(s)" % (name, n), text[:500])
    for line in lines:
        cells = line.split(", ")
        check(len(cells) == len(fields), "%s: %d columns" % (name, len(fields)), line)
        for f, cell in zip(fields, cells):
            theirs = VALUES.get(ALIASES.get(f, f), "")
            st, so = ref.shape(theirs), ref.shape(cell)
            if nounits:
                st = re.sub(r"\[.*\]$", "", st)
                check(not so.endswith("]"), "%s: %s without its unit" % (name, f), cell)
            if st != "NA" and so != "NA":
                check(st == so, "%s: %s shaped as nvidia-smi prints it (%s)" % (name, f, theirs), cell)
            if f in ("temperature.gpu", "memory.used", "utilization.gpu", "power.draw", "index", "memory.total"):
                check(so != "NA", "%s: %s has a value" % (name, f), cell)
        if len(set(lines)) > 1 and "timestamp" in fields:
            break  # rows differ only by what moves


def check_compute_apps(name, args, text):
    fields = opt_value(args, "--query-compute-apps").split(",")
    fmt = (opt_value(args, "--format") or "csv").split(",")
    lines = text.splitlines()
    if "noheader" not in fmt:
        want = [APPS_HEADER[APPS_ALIASES.get(f, f)] for f in fields]
        if "nounits" in fmt:
            want = [ref.strip_unit(h) for h in want]
        check(lines and lines[0].split(", ") == want, "%s: compute-apps header is nvidia-smi's" % name, text[:300])
        lines = [ln for ln in lines[1:] if ln != lines[0]]
    check(lines, "%s: processes listed" % name, text)
    for line in lines:
        cells = line.split(", ")
        check(len(cells) == len(fields), "%s: %d columns" % (name, len(fields)), line)
        row = dict(zip(fields, cells))
        check(row.get("pid", "1").isdigit(), "%s: pid is a number" % name, line)
        mem = row.get("used_gpu_memory", row.get("used_memory"))
        if mem is not None:
            check(re.fullmatch(r"\d+( MiB)?", mem) is not None, "%s: used memory as nvidia-smi" % name, line)


def check_list(name, args, text):
    lines = text.splitlines()
    check(len(lines) == gpus_selected(args), "%s: one line per GPU" % name, text)
    for ln in lines:
        check(re.fullmatch(r"GPU \d+: NVIDIA [^()]+ \(UUID: GPU-[0-9a-f-]{36}\)", ln) is not None,
              "%s: -L line" % name, ln)


def check_report(name, args, text, source):
    theirs = {p: c for p, c in ref.q_paths(ref.ref_lines("h100-590", "q.txt"))}
    with open(os.path.join(ref.REF, "documented-d-blocks.txt")) as f:  # the blocks only -d adds
        theirs.update(ref.q_paths([l for l in f.read().split("\n") if not l.startswith("#")]))
    ours = ref.q_paths(text.split("\n"))
    check(len(ours) > 5, "%s: a report" % name, text[:300])
    for p, c in ours:
        check(p in theirs and theirs[p] == c, "%s: -q line %s as nvidia-smi's" % (name, p), str(c))
    lines = text.split("\n")
    if "NR==11" in source:
        check(len(lines) > 10 and re.fullmatch(r"\d+", (lines[10].split() + [""] * 5)[4]) is not None,
              "%s: awk 'NR==11{print $5}' reads the temperature" % name, "\n".join(lines[:12]))
    if "GPU Current Temp" in source:
        temps = [ln.split()[4] for ln in lines if "GPU Current Temp" in ln]
        check(temps and all(t.isdigit() for t in temps), "%s: $5 of 'GPU Current Temp' is a number" % name, str(temps))
    if "/Used/" in source:
        used = [ln.split()[2] for ln in lines if "Used" in ln]
        check(used and used[0].isdigit(), "%s: $3 of the first 'Used' line is a number" % name, str(used[:3]))
    if "Persistence Mode" in source:
        check(re.search(r"^    Persistence Mode +: (Enabled|Disabled)$", text, re.M) and "Power Limit" in text,
              "%s: the lines grep finds" % name, text[:200])
    if "Process ID" in source:
        check(re.search(r"^        Process ID +: \d+$", text, re.M) and re.search(r"Power Draw +: [\d.]+ W", text),
              "%s: the lines gawk reads" % name, text[:200])
    sections = opt_value(args, "-d", "--display")
    if sections:
        tops = {p.split("/")[1] for p, c in ours if p.startswith("GPU/")}
        allowed = {"MEMORY": {"FB Memory Usage", "BAR1 Memory Usage", "Conf Compute Protected Memory Usage"},
                   "TEMPERATURE": {"Temperature"},
                   "UTILIZATION": {"Utilization", "GPU Utilization Samples", "Memory Utilization Samples",
                                   "ENC Utilization Samples", "DEC Utilization Samples"},
                   "POWER": {"GPU Power Readings", "Power Samples"},
                   "CLOCK": {"Clocks", "Applications Clocks", "Default Applications Clocks", "Max Clocks",
                             "SM Clock Samples", "Memory Clock Samples"},
                   "VOLTAGE": {"Voltage"}}
        want = set().union(*(allowed[s.upper()] for s in sections.split(",")))
        check(tops == want, "%s: -d %s shows those sections" % (name, sections), str(tops))


def check_pmon(name, text):
    lines = text.splitlines()
    check(len(lines) >= 3 and lines[0].startswith("# gpu ") and lines[1].startswith("# Idx "),
          "%s: pmon's two header lines" % name, text[:300])
    want = ref.ref_lines("h100-590", "pmon.txt")[0].split()
    check(lines[0].split()[:len(want) - 1] == want[:-1], "%s: pmon's columns as nvidia-smi's (then user, container)" % name,
          lines[0])
    for ln in lines[2:]:
        check(ln.split()[0] == "0", "%s: -i 0 rows" % name, ln)


def main():
    n = 0
    for cmd, source, reads in invocations():
        n += 1
        name = "[%s] %s" % (source.split(":")[0], cmd[:70])
        args = shlex.split(cmd)
        check(os.path.basename(args[0]) == "nvidia-smi", "%s: an nvidia-smi command line" % name)
        args = expand(args)
        with tempfile.TemporaryDirectory() as tmp:
            rc, out, err = run(args, tmp)
            check(rc == 0, "%s: exits 0" % name, err)
            check(err.startswith("SIMULATED GPUs") and err.count("\n") == 1, "%s: nothing on stderr but the banner" % name, err)
            log = opt_value(args, "-f", "--filename")
            if log:
                check(out == "", "%s: -f: nothing on stdout" % name, out[:200])
                with open(os.path.join(tmp, log)) as f:
                    out = f.read()
        if opt_value(args, "--query-gpu"):
            check_query_gpu(name, args, out)
        elif opt_value(args, "--query-compute-apps"):
            check_compute_apps(name, args, out)
        elif "-L" in args or "--list-gpus" in args:
            check_list(name, args, out)
        elif "-q" in args or "--query" in args:
            check_report(name, args, out, source)
        elif "pmon" in args:
            check_pmon(name, out)
        else:
            check(False, "%s: a kind the test knows" % name)
    check(n >= 30, "at least 30 invocations", str(n))
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        sys.exit(1)
    print("ok: %d invocations" % n)


if __name__ == "__main__":
    main()
