#!/usr/bin/env python3
"""test_cli.py - end-to-end checks of gpuwatch list/query/dmon/pmon/version against gpusim scenarios
in tests/scenarios/ (exact values for constants, ranges for generators, faults)."""
import concurrent.futures
import json
import os
import re
import signal
import subprocess
import sys
import time

from skiplib import skip_test

GPUWATCH = os.environ.get("GPUWATCH", "build/gpuwatch")
SRC = os.environ.get("GW_SOURCE_DIR", os.getcwd())
SCEN = os.path.join(SRC, "tests", "scenarios")
CONST = os.path.join(SCEN, "cli-const.yaml")
LOST = os.path.join(SCEN, "cli-lost.yaml")
WAVE = os.path.join(SCEN, "cli-wave.yaml")

failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, detail), file=sys.stderr)


def run(args, scenario=CONST, env=None, timeout=60):
    cmd = [GPUWATCH] + (["--sim", scenario] if scenario else []) + args
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=e)
    return p.returncode, p.stdout, p.stderr


def test_list():
    rc, out, err = run(["list"])
    lines = out.splitlines()
    check(rc == 0, "list exits 0", err)
    check(len(lines) == 3, "list: one line per GPU", out)
    pat = re.compile(r"^GPU (\d): (NVIDIA H100 80GB HBM3|NVIDIA L4) \(UUID: GPU-[0-9a-fA-F-]{36}\)$")
    for i, line in enumerate(lines):
        m = pat.match(line)
        check(m is not None and int(m.group(1)) == i, "list line as nvidia-smi -L", line)
    check("NVIDIA L4" in lines[2], "list: third GPU is the L4", out)
    check(err.startswith("SIMULATED GPUs (gpusim: %s)" % CONST), "simulation banner on stderr", err)
    check("SIMULATED" not in out, "stdout has no banner")


FIELDS = "index,name,memory.total,memory.used,utilization.gpu,temperature.gpu,power.draw,power.limit,fan.speed,pstate"


def test_query_csv():
    rc, out, err = run(["query", "--fields", FIELDS, "--format", "csv"])
    check(rc == 0, "query csv exits 0", err)
    lines = out.splitlines()
    check(lines[0] == "index, name, memory.total [MiB], memory.used [MiB], utilization.gpu [%], temperature.gpu, "
          "power.draw [W], power.limit [W], fan.speed [%], pstate", "query csv header", lines[0])
    check(len(lines) == 4, "query csv: header + 3 rows", out)
    for i in range(2):
        cells = lines[1 + i].split(", ")
        check(cells[:9] == [str(i), "NVIDIA H100 80GB HBM3", "81559 MiB", "20000 MiB", "75 %", "55", "400.25 W",
                            "700.00 W", "[N/A]"], "query csv values of GPU %d" % i, lines[1 + i])
        check(re.match(r"^P\d+$", cells[9]) is not None, "pstate as P<n>", cells[9])
    l4 = lines[3].split(", ")
    check(l4[1:8] == ["NVIDIA L4", "23034 MiB", "512 MiB", "10 %", "40", "30.50 W", "72.00 W"], "query csv L4", lines[3])

    rc, out, _ = run(["query", "--fields", "memory.used,power.draw,fan.speed", "--format", "csv,noheader,nounits", "-i", "0"])
    check(out == "20000, 400.25, [N/A]\n", "csv noheader nounits (nvidia-smi spelling)", out)
    rc, out, _ = run(["query", "--fields", "memory.used", "--format", "csv", "--noheader", "--nounits", "-i", "2"])
    check(out == "512\n", "--noheader --nounits", out)


def test_query_json_and_table():
    rc, out, err = run(["query", "--fields", FIELDS + ",clocks_event_reasons.gpu_idle,uuid,timestamp,count", "--format", "json"])
    check(rc == 0, "query json exits 0", err)
    data = json.loads(out)
    check(len(data) == 3, "json: one object per GPU", out)
    g = data[0]
    check(g["index"] == 0 and g["name"] == "NVIDIA H100 80GB HBM3", "json identity", g)
    check(g["memory.used"] == 20000 and isinstance(g["memory.used"], int), "json integer", g)
    check(g["power.draw"] == 400.25, "json number", g)
    check(g["fan.speed"] is None, "json null for unsupported", g)
    check(isinstance(g["clocks_event_reasons.gpu_idle"], bool), "json bool for Active/Not Active", g)
    check(g["count"] == 3, "json count", g)
    check(re.match(r"^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d{3}$", g["timestamp"]) is not None, "timestamp format", g)

    rc, out, err = run(["query"])
    lines = out.splitlines()
    check(rc == 0 and len(lines) == 4, "default table: header + 3 rows", out + err)
    check(lines[0].split()[:2] == ["index", "name"], "table header", lines[0])
    check("20000 MiB" in lines[1], "table values with units", lines[1])


def test_query_select_and_errors():
    rc, out, _ = run(["query", "--fields", "uuid", "--format", "csv,noheader"])
    uuids = out.split()
    rc, out, _ = run(["query", "--fields", "index", "--format", "csv,noheader", "--id", uuids[1]])
    check(out == "1\n", "--id by UUID", out)
    rc, out, _ = run(["query", "--fields", "pci.bus_id", "--format", "csv,noheader"])
    bus = out.split()
    rc, out, _ = run(["query", "--fields", "index", "--format", "csv,noheader", "--id", bus[2].lower()])
    check(out == "2\n", "--id by PCI bus id", out)
    rc, out, _ = run(["query", "--fields", "index", "--format", "csv,noheader", "-i", "0,2"])
    check(out == "0\n2\n", "--id index list", out)
    rc, _, err = run(["query", "-i", "7"])
    check(rc == 2 and "gpuwatch query:" in err, "--id out of range: usage error", err)


def test_usage_errors_and_help():
    rc, _, err = run(["query", "--fields", "index,nonsense"])
    check(rc == 2 and "nonsense" in err, "unknown field: exit 2", err)
    for cmd in (["query", "--bogus"], ["dmon", "-s", "x"], ["pmon", "-d", "0"], ["list", "extra"], ["dmon", "-c", "zero"]):
        rc, _, err = run(cmd)
        check(rc == 2 and err.startswith("gpuwatch %s: " % cmd[0]), "usage error exit 2: %s" % cmd, err)
    for cmd in ("list", "query", "dmon", "pmon", "version"):
        rc, out, _ = run([cmd, "--help"], scenario=None)
        check(rc == 0 and out.startswith("usage: gpuwatch %s" % cmd), "%s --help" % cmd, out)
    rc, out, _ = run(["query", "--help-fields"], scenario=None)
    check(rc == 0 and re.search(r"^  memory\.used +\[MiB\] +\S", out, re.M) is not None, "--help-fields lists the catalog", out[:400])


def test_backend_missing():
    for cmd in (["list"], ["query"], ["dmon", "-c", "1"], ["pmon", "-c", "1"], ["version"]):
        rc, out, err = run(cmd, scenario=None, env={"GPUWATCH_NVML_LIB": "/nonexistent/libnvidia-ml.so.1"})
        check(rc == 3, "no library: exit 3 (%s)" % cmd[0], err)
        check(len(err.strip().splitlines()) == 1 and err.startswith("gpuwatch %s: " % cmd[0]), "one error line (%s)" % cmd[0], err)


def test_version():
    rc, out, err = run(["version"])
    check(rc == 0, "version exits 0", err)
    check(re.search(r"^gpuwatch version +: 0\.1\.0$", out, re.M) is not None, "gpuwatch version", out)
    check(re.search(r"^DRIVER version +: 590\.48\.01$", out, re.M) is not None, "driver version", out)
    check(re.search(r"^CUDA Version +: 13\.1$", out, re.M) is not None, "CUDA version", out)
    check("gpusim (simulated)" in out, "backend says simulated", out)


DMON_H1 = "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk "
DMON_H2 = "# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz "


def test_dmon():
    rc, out, err = run(["dmon", "-c", "3", "-d", "0.2"])
    check(rc == 0, "dmon exits 0", err)
    lines = out.split("\n")
    check(lines[0] == DMON_H1 and lines[1] == DMON_H2, "dmon headers byte-exact", out)
    rows = [l for l in lines[2:] if l]
    check(len(rows) == 9, "dmon -c 3 on 3 GPUs: 9 rows", out)
    for r in rows:
        check(len(r) == len(DMON_H1) and r.endswith(" "), "dmon row width and trailing space", repr(r))
    first = rows[0].split()
    check(first[0] == "0" and first[1] == "400" and first[2] == "55" and first[3] == "61" and first[4] == "75"
          and first[5] == "30" and first[10] == "2619", "dmon values of GPU 0", rows[0])
    check(rows[2].split()[3] == "-", "dmon '-' for unsupported mtemp on the L4", rows[2])
    rc, out, _ = run(["dmon", "-c", "2", "-d", "0.1", "-s", "pucvmet", "-i", "1"])
    rows = [l for l in out.split("\n")[2:] if l]
    check(len(out.split("\n")[0].split()) == 23 and len(rows) == 2, "dmon -s pucvmet: 21 columns + gpu", out)
    check(rows[0].split()[12:14] == ["-", "-"], "pviol/tviol '-' on the first row", rows[0])
    check(rows[1].split()[12] != "-" and rows[1].split()[13] in ("0", "1"), "pviol/tviol on the second row", rows[1])
    check(rows[1].split()[14] == "20000", "fb = memory.used MiB", rows[1])
    rc, out, _ = run(["dmon", "-c", "1", "--format", "csv", "-s", "p"])
    check(out.splitlines()[0] == "gpu, pwr [W], gtemp [C], mtemp [C]" and out.splitlines()[1] == "0, 400, 55, 61",
          "dmon csv", out)
    rc, out, _ = run(["dmon", "-c", "1", "-s", "p", "-o", "DT", "-i", "1"])
    lines = out.splitlines()
    check(lines[:2] == ["#Date        Time         gpu    pwr  gtemp  mtemp ", "#YYYYMMDD    HH:MM:SS     Idx      W      C      C "]
          and re.match(r"^ \d{8}    \d\d:\d\d:\d\d       1    400     55     61 $", lines[2]) is not None, "dmon -o DT", out)
    rc, out, _ = run(["dmon", "-c", "1", "--format", "json", "-i", "2"])
    row = json.loads(out.splitlines()[0])
    check(row["gpu"] == 2 and row["sm"] == 10 and row["mtemp"] is None and row["lost"] is False, "dmon json", out)


def test_dmon_timing_and_sigint():
    t0 = time.monotonic()
    rc, out, _ = run(["dmon", "-c", "20", "-d", "0.1", "-s", "u", "-i", "0"])
    took = time.monotonic() - t0
    check(rc == 0 and len(out.splitlines()) == 22, "dmon -d 0.1 -c 20 rows", out)
    # at least the 19 intervals of 0.1 s; far less than 20 of the default 1 s
    check(1.85 <= took < 15, "20 samples at 0.1 s take about 2 s (took %.2f s)" % took)
    cmd = [GPUWATCH, "--sim", CONST, "dmon", "-d", "0.2"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = p.stdout.readline() + p.stdout.readline() + p.stdout.readline()
    p.send_signal(signal.SIGINT)
    rest, err = p.communicate(timeout=10)
    check(p.returncode == 0, "dmon ends with exit 0 on SIGINT", err)
    check(first.startswith(DMON_H1) and (first + rest).endswith("\n"), "dmon output complete after SIGINT", first + rest)


def test_dmon_gpu_lost():
    rc, out, err = run(["dmon", "-d", "0.5", "-c", "14", "-s", "pu"], scenario=LOST)
    check(rc == 0, "dmon exits 0 with a lost GPU", err)
    rows = [l for l in out.split("\n")[2:] if l]
    check(len(rows) == 42, "14 samples x 3 GPUs", out)
    lost = [i // 3 for i, r in enumerate(rows) if r.endswith("# GPU is lost")]
    marked = [r for r in rows if r.endswith("# GPU is lost")]
    check(all(r.split()[0] == "1" for r in marked), "only GPU 1 is marked lost", out)
    check(all(set(r.split()[1:10]) == {"-"} for r in marked), "a lost row shows '-'", out)
    check(2 <= len(lost) <= 6, "GPU 1 lost for about 2 s (4 samples at 0.5 s), got %d" % len(lost), out)
    check(lost and min(lost) >= 3 and max(lost) <= 9, "lost between 2 s and 4 s", out)
    check(not rows[-2].endswith("# GPU is lost") and rows[-2].split()[0] == "1" and rows[-2].split()[1] != "-",
          "GPU 1 comes back", out)
    others = [r for r in rows if r.split()[0] in ("0", "2")]
    check(len(others) == 28 and all("-" not in r.split()[1:3] for r in others), "the other GPUs go on", out)


GONE = os.path.join(SCEN, "cli-gone.yaml")


def test_gpu_lost_from_start():
    rc, out, err = run(["list"], scenario=GONE)
    check(rc == 0 and out.splitlines()[1] == "GPU 1: [GPU is lost]", "list marks a lost GPU", out + err)
    rc, out, err = run(["query", "--fields", "index,name,memory.used", "--format", "csv,noheader"], scenario=GONE)
    check(rc == 0 and out.splitlines() == ["0, NVIDIA H100 80GB HBM3, 1234 MiB", "1, [GPU is lost], [GPU is lost]"],
          "query csv of a lost GPU", out + err)
    rc, out, err = run(["query", "--fields", "index,memory.used", "--format", "json"], scenario=GONE)
    data = json.loads(out)
    check(data[1] == {"index": 1, "memory.used": None, "gpu_lost": True} and "gpu_lost" not in data[0], "query json of a lost GPU", out)
    rc, out, err = run(["pmon", "-c", "1"], scenario=GONE)
    check(rc == 0 and out.splitlines()[3].endswith("# GPU is lost"), "pmon marks a lost GPU", out + err)


FAULTS = os.path.join(SCEN, "cli-faults.yaml")
SLOW = os.path.join(SCEN, "cli-slow.yaml")


def test_faults():
    rc, out, err = run(["dmon", "-c", "6", "-d", "0.1", "-s", "pu"], scenario=FAULTS)
    rows = [l.split() for l in out.splitlines()[2:]]
    check(rc == 0 and len(rows) == 12, "dmon with failing calls: every row printed", out + err)
    gpu0 = [r for r in rows if r[0] == "0"]
    gpu1 = [r for r in rows if r[0] == "1"]
    check(all(r[2] == "55" for r in gpu0), "GPU 0 temperature unaffected", out)
    check(any(r[2] == "-" for r in gpu1) and any(r[2] == "55" for r in gpu1), "GPU 1: failed reads '-', others 55", out)
    check(all(r[8] == "-" for r in rows), "missing symbol nvmlDeviceGetJpgUtilization: jpg '-'", out)
    check("lost" not in out, "a failing call is not a lost GPU", out)
    rc, out, _ = run(["query", "--fields", "utilization.jpeg,utilization.ofa", "--format", "csv,noheader"], scenario=FAULTS)
    check(out.splitlines() == ["[N/A], 0 %"] * 2, "query: [N/A] for the missing symbol's metric", out)
    t0 = time.monotonic()
    rc, out, err = run(["dmon", "-c", "4", "-d", "0.1", "-s", "p"], scenario=SLOW)
    took = time.monotonic() - t0
    rows = out.splitlines()[2:]
    check(rc == 0 and len(rows) == 4 and all(r.split()[1] == "250" for r in rows), "slow call: one row per sample", out + err)
    check(took >= 0.9, "a 250 ms call per sample stretches the interval (took %.2f s)" % took)


def test_pmon_and_processes():
    me = str(os.getpid())
    rc, out, err = run(["pmon", "-c", "1"])
    check(rc == 0, "pmon exits 0", err)
    lines = out.splitlines()
    check(lines[0].startswith("# gpu         pid   type     sm    mem    enc    dec    jpg    ofa    user"), "pmon header", out)
    procs = [l for l in lines[2:] if l.split()[1] == me]
    check(len(procs) == 2, "pmon lists the scenario's parent process on GPUs 0 and 1", out)
    if procs:
        cols = procs[0].split()
        check(cols[2] == "C" and cols[3] == "95", "pmon type and sm", procs[0])
    rc, out, _ = run(["pmon", "-c", "1", "-s", "um", "-i", "0"])
    row = [l for l in out.splitlines()[2:] if l.split()[1] == me]
    check(len(row) == 1 and row[0].split()[9] == "2048", "pmon -s um: fb column", out)
    idle = [l for l in lines[2:] if l.split()[0] == "2"]
    check(len(idle) == 1 and set(idle[0].split()[1:]) == {"-"}, "idle GPU prints a '-' line", out)
    rc, out, err = run(["query", "--processes", "--format", "csv"])
    lines = out.splitlines()
    check(lines[0] == "pid, process_name, gpu_uuid, used_gpu_memory [MiB], user, container", "--processes header", out)
    mine = [l for l in lines[1:] if l.startswith(me + ", ")]
    check(len(mine) == 2 and all(l.split(", ")[3] == "2048 MiB" for l in mine), "--processes rows", out)
    rc, out, err = run(["query", "--processes", "--format", "json", "-i", "1"])
    data = json.loads(out)
    check(len(data) == 1 and data[0]["pid"] == int(me) and data[0]["used_gpu_memory"] == 2048, "--processes json", out)


def test_generators():
    t0 = time.monotonic()
    rc, out, err = run(["query", "--fields", "memory.used,utilization.gpu", "--format", "csv,noheader,nounits"], scenario=WAVE)
    took = time.monotonic() - t0
    used, util = (int(x) for x in out.split(", "))
    check(1000 <= used <= 1000 + 1000 * (took + 0.5), "ramp: memory.used within the ramp (%d)" % used, out + err)
    check(20 <= util <= 80, "sine: utilization within mean +- amplitude (%d)" % util, out)
    rc, out, err = run(["dmon", "-c", "8", "-d", "0.25", "-s", "pu"], scenario=WAVE)
    rows = [l.split() for l in out.splitlines()[2:]]
    sm = [int(r[4]) for r in rows]
    temps = {int(r[2]) for r in rows}
    check(all(20 <= v <= 80 for v in sm) and max(sm) - min(sm) >= 10, "dmon follows the sine (%s)" % sm, out)
    check(temps <= {40, 70} or all(40 <= t <= 70 for t in temps), "square between low and high (%s)" % temps, out)


def main():
    lib = os.environ.get("GPUSIM_LIB", "")
    if lib and not os.path.exists(lib):
        skip_test("gpusim is not built (%s missing)" % lib)
    def guarded(name, fn):
        try:
            fn()
        except Exception as e:  # a crash in one test is a failure, the others still run
            failures.append(name)
            print("FAIL: %s raised %r" % (name, e), file=sys.stderr)

    tests = [(n, f) for n, f in sorted(globals().items()) if n.startswith("test_") and callable(f)]
    # The tests are independent processes; four at a time keeps the file well under a minute under ASan.
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        for _ in pool.map(lambda t: guarded(*t), tests):
            pass
    if failures:
        print("%d check(s) failed" % len(failures), file=sys.stderr)
        return 1
    print("test_cli: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
