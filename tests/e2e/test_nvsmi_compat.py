#!/usr/bin/env python3
"""test_nvsmi_compat.py - gpuwatch with nvidia-smi's spellings, against what nvidia-smi prints
(tests/data/nvidia-smi/: an H100 on driver 590, an RTX 4080 SUPER on 595), on gpusim
(tests/scenarios/nvsmi-compat.yaml: an H100 and an RTX 4080). --query-gpu of every field nvidia-smi
has (headers exact, value shapes and units), the -q report's layout, --query-compute-apps, -L, dmon's
header, the new fields' values, -l/-lms/-f loops, "did you mean" for every kind of typo, and what the
nvidia-smi form refuses."""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvsmi_ref as ref  # noqa: E402

GPUWATCH = os.environ.get("GPUWATCH", "build/gpuwatch")
COMPAT = os.path.join(ref.SRC, "tests", "scenarios", "nvsmi-compat.yaml")
BOARD_GPU = {"h100-590": "0", "rtx4080-595": "1"}  # which GPU of the scenario each capture's board is

failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, detail), file=sys.stderr)


def run(args, scenario=COMPAT, env=None, timeout=60):
    cmd = [GPUWATCH] + (["--sim", scenario] if scenario else []) + args
    e = dict(os.environ)
    e["GPUSIM_SPEED"] = "0"
    e.update(env or {})
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=e)
    return p.returncode, p.stdout, p.stderr


def not_read():
    """The nvidia-smi fields gpuwatch knows but does not read (last section of --help-query-gpu)."""
    rc, out, _ = run(["--help-query-gpu"], scenario=None)
    section = out.split("nvidia-smi fields gpuwatch does not read", 1)[1]
    names = set()
    for name, alias in re.findall(r'^"([^"]+)"(?: or "([^"]+)")?', section, re.M):
        names.update(x for x in (name, alias) if x)
    return names


def test_query_gpu_every_field():
    skip = not_read()
    check(len(skip) > 30, "the not-read section lists the vGPU/fabric/platform/... fields", str(skip))
    for board, gpu in BOARD_GPU.items():
        fields, hdr, vals = ref.query_gpu(board)
        rc, out, err = run(["--query-gpu=" + ",".join(fields), "--format=csv", "-i", gpu])
        check(rc == 0, "%s: --query-gpu of nvidia-smi's %d fields exits 0" % (board, len(fields)), err)
        lines = out.splitlines()
        check(len(lines) == 2, "%s: header and one row" % board, out[:500])
        ours_h, ours_v = lines[0].split(", "), lines[1].split(", ")
        check(ours_h == hdr, "%s: the header is nvidia-smi's, cell for cell" % board,
              "\n".join("%s | %s" % (a, b) for a, b in zip(hdr, ours_h) if a != b))
        check(len(ours_v) == len(vals), "%s: as many values as nvidia-smi" % board, "%d %d" % (len(ours_v), len(vals)))
        for f, theirs, ours in zip(fields, vals, ours_v):
            st, so = ref.shape(theirs), ref.shape(ours)
            if st == "NA":
                continue  # nvidia-smi had no value there: any answer is as good
            if so == "NA":
                check(f in skip or f in ("fan.speed", "serial"), "%s: %s has a value (nvidia-smi: %s)" % (board, f, theirs))
            else:
                check(st == so, "%s: %s is printed as nvidia-smi prints it" % (board, f),
                      "nvidia-smi %r (%s), gpuwatch %r (%s)" % (theirs, st, ours, so))
        # nounits drops the header's and the values' units; noheader the header
        rc, out, _ = run(["--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits", "-i", gpu])
        lines = out.splitlines()
        check(len(lines) == 1, "%s: noheader prints the row only" % board, out[:300])
        for f, cell in zip(fields, lines[0].split(", ")):
            check(not re.search(r"\d (MiB|W|%|MHz|us|KB/s)$", cell), "%s: nounits: %s has no unit" % (board, f), cell)
        rc, out, _ = run(["--query-gpu=" + ",".join(fields), "--format=csv,nounits", "-i", gpu])
        check(out.splitlines()[0].split(", ") == [ref.strip_unit(h) for h in hdr],
              "%s: nounits headers are the names alone" % board, out.splitlines()[0][:300])


def test_aliases_print_canonical_names():
    table = ref.aliases()
    check(len(table) >= 20, "help-query-gpu has its 'or' aliases", str(table))
    names = sorted(table)
    rc, out, err = run(["--query-gpu=" + ",".join(names), "--format=csv", "-i", "0"])
    check(rc == 0, "every alias of nvidia-smi resolves", err)
    hdr = out.splitlines()[0].split(", ")
    heads = ref.headers()
    for alias, h in zip(names, hdr):
        check(h == heads[table[alias]], "alias %s prints nvidia-smi's header %r" % (alias, heads[table[alias]]), h)


def test_q_layout():
    for board, gpu in BOARD_GPU.items():
        rc, out, err = run(["-q", "-i", gpu])
        check(rc == 0, "%s: -q exits 0" % board, err)
        lines = out.split("\n")
        check(lines[:3] == ["", "==============NVSMI LOG==============", ""], "-q starts as nvidia-smi", repr(lines[:3]))
        check(re.match(r"^Timestamp {46}: \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$", lines[3]) is not None,
              "-q timestamp line", lines[3])
        theirs = ref.q_paths(ref.ref_lines(board, "q.txt"))
        where = {p: (i, c) for i, (p, c) in enumerate(theirs)}
        ours = ref.q_paths(lines)
        check(len(ours) > 120, "%s: -q prints the catalog's fields (%d lines)" % (board, len(ours)))
        last = -1
        for p, c in ours:
            if p not in where:
                check(False, "%s: -q line %s is one of nvidia-smi's" % (board, p))
                continue
            i, col = where[p]
            check(col == c, "%s: -q %s has its ':' at nvidia-smi's column %s" % (board, p, col), str(c))
            check(i > last, "%s: -q %s comes in nvidia-smi's order" % (board, p))
            last = i
        sections = [p for p, c in ours if c is None and p.count("/") == 1]
        check(len(sections) >= 20, "%s: -q has nvidia-smi's sections" % board, str(sections))


def test_q_display_filter():
    rc, out, err = run(["-q", "-d", "TEMPERATURE", "-i", "0"])
    lines = out.split("\n")
    # simsam8/.dotfiles reads line 11, field 5 of `nvidia-smi -q -d temperature`
    check(len(lines) > 11 and lines[10].split()[4:5] == ["59"], "-q -d TEMPERATURE: line 11 field 5 is the temperature",
          "\n".join(lines[:14]))
    check("FB Memory Usage" not in out and "Product Name" not in out, "-d shows only its sections", out)
    rc, out, _ = run(["-q", "-d", "memory,POWER", "-i", "1"])
    check("FB Memory Usage" in out and "GPU Power Readings" in out and "Temperature" not in out,
          "-d takes several sections, in any case", out)
    used = [ln.split()[2] for ln in out.splitlines() if ln.strip().startswith("Used ")]
    check(used and used[0].isdigit(), "kpa28-git's awk '/Used/ {print $3}' reads a number", out)
    rc, out, err = run(["-q", "-d", "TEMPRATURE"])
    check(rc == 2 and "did you mean 'TEMPERATURE'?" in err, "-d typo names the section", err)
    rc, out, _ = run(["-q", "-d", "PIDS", "-i", "0"])
    check(re.search(r"^        Process ID {24}: 11345$", out, re.M) is not None and "./gpu_burn" in out,
          "-q PIDS lists the process as nvidia-smi", out)


def test_compute_apps():
    for board, gpu in BOARD_GPU.items():
        want = ref.ref_lines(board, "query-compute-apps.csv")
        fields = ref.ref_command(board, "query-compute-apps.csv").split("=", 1)[1].split(" ")[0]
        rc, out, err = run(["--query-compute-apps=" + fields, "--format=csv", "-i", gpu])
        lines = out.splitlines()
        check(rc == 0 and lines[0] == want[0], "%s: compute-apps header is nvidia-smi's" % board, out + err)
        check(len(lines) == 2, "%s: one process" % board, out)
        shapes = [ref.shape(v) for v in want[1].split(", ")]
        ours = [ref.shape(v) for v in lines[1].split(", ")]
        for f, a, b in zip(fields.split(","), shapes, ours):
            check(a == b or (a == "NA") or (f == "gpu_serial" and "NA" in (a, b)),
                  "%s: compute-apps %s shaped as nvidia-smi's" % (board, f), "%s %s" % (a, b))
    rc, out, _ = run(["--query-compute-apps=pid,name,used_memory,gpu_uuid", "--format=csv,noheader,nounits"])
    rows = [ln.split(", ") for ln in out.splitlines()]
    check(len(rows) == 2 and rows[0][:3] == ["11345", "./gpu_burn", "15690"] and rows[1][:3] == ["5022", "ffmpeg", "503"],
          "aliases name and used_memory, noheader, nounits", out)
    rc, out, _ = run(["query", "--query-compute-apps=pid,user,container", "--format", "json"])
    data = json.loads(out)
    check(data[0] == {"pid": 11345, "user": "alice", "container": None}, "compute-apps json with gpuwatch's fields", out)


def test_list_and_dmon_header():
    pat = r"GPU \d+: NVIDIA [^()]+ \(UUID: GPU-[0-9a-f-]{36}\)"
    for board in ref.BOARDS:
        want = ref.ref_lines(board, "list.txt")
        check(len(want) == 1 and re.fullmatch(pat, want[0]), "%s: the -L pattern fits nvidia-smi's line" % board, want)
    for args in (["-L"], ["--list-gpus"], ["list"]):
        rc, out, _ = run(args)
        lines = out.splitlines()
        check(rc == 0 and len(lines) == 2 and all(re.fullmatch(pat, ln) for ln in lines), "%s as nvidia-smi -L" % args,
              out)
    rc, out, _ = run(["-L", "-i", "1"])
    check(out.startswith("GPU 1: NVIDIA GeForce RTX 4080 SUPER (UUID: GPU-"), "-L -i 1", out)
    for board in ref.BOARDS:
        want = ref.ref_lines(board, "dmon.txt")[:2]
        rc, out, _ = run(["dmon", "-c", "1"])
        check(out.splitlines()[:2] == want, "%s: dmon's header lines byte for byte" % board, out)


def test_new_fields_values():
    fields = ("compute_mode,persistence_mode,accounting.mode,accounting.buffer_size,display_active,display_attached,"
              "addressing_mode,ecc.errors.corrected.volatile.dram,ecc.errors.corrected.volatile.device_memory,"
              "ecc.errors.corrected.volatile.sram,ecc.errors.corrected.volatile.l1_cache,remapped_rows.histogram.max,"
              "remapped_rows.histogram.high,clocks.applications.gr,clocks.default_applications.graphics,"
              "encoder.stats.sessionCount,encoder.stats.averageFps,encoder.stats.averageLatency,temperature.gpu.tlimit,"
              "pci.baseClass,pci.subClass,inforom.img,inforom.ecc,gsp.mode.current,c2c.mode,pcie.link.gen.gpumax,"
              "retired_pages.sbe,driver_model.current,power.draw.average")
    rc, out, err = run(["--query-gpu=" + fields, "--format=csv,noheader"])
    rows = [ln.split(", ") for ln in out.splitlines()]
    check(rc == 0 and len(rows) == 2, "new fields: two rows", out + err)
    check(rows[0] == ["Exclusive_Process", "Enabled", "Enabled", "4000", "Disabled", "No", "None", "12", "12", "2",
                      "[N/A]", "2560", "4", "1755 MHz", "1980 MHz", "2", "184", "62844", "28", "0x3", "0x2",
                      "G520.0200.00.05", "7.16", "Enabled", "Disabled", "5", "[N/A]", "[N/A]", "631.95 W"],
          "H100: the scenario's values through NVML, as nvidia-smi prints them", ", ".join(rows[0]))
    check(rows[1] == ["Default", "Enabled", "Disabled", "4000", "Enabled", "Yes", "HMM", "[N/A]", "[N/A]", "[N/A]",
                      "[N/A]", "[N/A]", "[N/A]", "3165 MHz", "3165 MHz", "0", "0", "0", "[N/A]", "0x3", "0x0",
                      "G002.0000.00.03", "[N/A]", "Enabled", "[N/A]", "4", "[N/A]", "[N/A]", rows[1][28]],
          "RTX 4080: the GeForce values (persistence set by the scenario)", ", ".join(rows[1]))
    rc, out, _ = run(["query", "--fields", "compute_mode,persistence_mode,addressing_mode,pci.domain,temperature.gpu.tlimit",
                      "--format", "json", "-i", "0"])
    g = json.loads(out)[0]
    check(g == {"compute_mode": "Exclusive_Process", "persistence_mode": True, "addressing_mode": "None",
                "pci.domain": "0x0000", "temperature.gpu.tlimit": 28}, "new fields typed in JSON", out)
    rc, out, _ = run(["--query-gpu=index,hostname,module.power.requested_limit,fabric.state", "--format=csv", "-i", "0"])
    check(out == "index, hostname, module.power.limit [W], fabric.state\n0, [N/A], [N/A], [N/A]\n",
          "fields gpuwatch does not read: nvidia-smi's header (alias canonical), [N/A]", out)


def stream(args, seconds, sig=signal.SIGINT):
    e = dict(os.environ)
    p = subprocess.Popen([GPUWATCH, "--sim", COMPAT] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=e)
    time.sleep(seconds)
    p.send_signal(sig)
    out, err = p.communicate(timeout=20)
    return p.returncode, out, err


def test_loops():
    rc, out, err = stream(["--query-gpu=timestamp,index,utilization.gpu", "--format=csv", "-lms", "200", "-i", "0"], 1.5)
    lines = out.splitlines()
    check(rc == 0, "-lms ends with status 0 on SIGINT", err)
    check(lines[0] == "timestamp, index, utilization.gpu [%]" and lines.count(lines[0]) == 1, "-lms: the header once",
          out)
    stamps = [time.mktime(time.strptime(ln.split(", ")[0][:19], "%Y/%m/%d %H:%M:%S")) + float(ln.split(", ")[0][19:])
              for ln in lines[1:]]
    check(5 <= len(stamps) <= 9, "-lms 200 for 1.5 s: about 7 rows", out)
    gaps = [b - a for a, b in zip(stamps, stamps[1:])]
    check(all(0.15 < g < 0.4 for g in gaps), "-lms 200: rows 200 ms apart", str(gaps))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "log.csv")
        rc, out, err = stream(["--query-gpu=index,memory.used", "--format=csv,nounits", "-l", "1", "-f", path], 2.3,
                              signal.SIGTERM)
        with open(path) as f:
            text = f.read().splitlines()
        check(rc == 0 and out == "", "-f writes the file, not stdout", out + err)
        check(text[0] == "index, memory.used" and len(text) == 1 + 2 * 3, "-l 1 -f: header once, 3 rounds of 2 GPUs",
              "\n".join(text))
    # -l with no number after it: nvidia-smi's 5 s (the first round comes at once)
    rc, out, err = stream(["-l", "--format=csv,noheader", "--query-gpu=index", "-i", "0"], 0.8)
    check(rc == 0 and out == "0\n", "-l without a value loops (5 s) and takes the next option as an option", out + err)
    rc, out, err = stream(["-q", "-d", "UTILIZATION", "-lms", "300", "-i", "0"], 1.0)
    check(rc == 0 and out.count("==============NVSMI LOG==============") >= 3, "-q -lms repeats the report", out[:300])
    for bad in (["-lms", "0"], ["-l", "-3"], ["--loop-ms", "abc"]):
        rc, out, err = run(["--query-gpu=index", "--format=csv"] + bad)
        check(rc == 2 and ("-l" in err or "--loop-ms" in err), "bad loop value %s: usage error" % bad, err)


def test_typos():
    cases = [
        (["qurey"], None, "gpuwatch: unknown command 'qurey' \u2014 did you mean 'query'?"),
        (["Dmon"], None, "gpuwatch: unknown command 'Dmon' \u2014 did you mean 'dmon'?"),
        (["verison"], None, "did you mean 'version'?"),
        (["--qurey-gpu=index"], None, "unknown option '--qurey-gpu' \u2014 did you mean '--query-gpu'?"),
        (["query", "--feilds", "index"], COMPAT, "unknown option '--feilds' \u2014 did you mean '--fields'?"),
        (["query", "--fields", "temprature.gpu"], COMPAT, "field \"temprature.gpu\" is not a valid field to query \u2014 "
                                                          "did you mean 'temperature.gpu'?"),
        (["--query-gpu=memory.usd", "--format=csv"], COMPAT, "did you mean 'memory.used'?"),
        (["--query-gpu=clocks.applications.graphic", "--format=csv"], COMPAT, "did you mean 'clocks.applications.graphics'?"),
        (["--query-gpu=index", "--format=cvs"], COMPAT, "'cvs' is not one of table,csv,json \u2014 did you mean 'csv'?"),
        (["--query-gpu=index", "--format=csv,noheadr"], COMPAT, "did you mean 'noheader'?"),
        (["--query-compute-apps=pid,used_memroy", "--format=csv"], COMPAT, "did you mean 'used_memory'?"),
        (["dmon", "--formt", "csv"], COMPAT, "did you mean '--format'?"),
        (["list"], "demo-8gu", "no scenario named 'demo-8gu' \u2014 did you mean 'demo-8gpu'?"),
    ]
    for args, scenario, want in cases:
        if scenario is None:
            rc, out, err = run(args, scenario=None)
        elif scenario == COMPAT:
            rc, out, err = run(args)
        else:
            rc, out, err = run(args, scenario=scenario)
        check(rc == 2 and want in err, "typo %s: %s" % (args, want), err)
    rc, out, err = run(["frobnicate"], scenario=None)
    check(rc == 2 and "unknown command 'frobnicate'" in err and "did you mean" not in err,
          "nothing close: no suggestion", err)


def test_refusals():
    for args, want in ((["-pl", "300"], "changes GPU settings"), (["-r"], "changes GPU settings"),
                       (["--query-accounted-apps=pid", "--format=csv"], "is not answered"),
                       (["-L", "-q"], "do not go together"),
                       (["--query-gpu=index", "--query-compute-apps=pid", "--format=csv"], "do not go together")):
        rc, out, err = run(args)
        check(rc == 2 and want in err and out == "", "nvidia-smi form refuses %s" % args, err)


def test_help_lists():
    rc, out, _ = run(["--help-query-gpu"], scenario=None)
    for board in ref.BOARDS:
        fields, _, _ = ref.query_gpu(board)
        missing = [f for f in fields if f not in out]
        check(not missing, "%s: --help-query-gpu names every field nvidia-smi has" % board, str(missing))
    rc, out, _ = run(["--help-query-compute-apps"], scenario=None)
    want = re.findall(r'^"([^"]+)"', "\n".join(ref.ref_lines("h100-590", "help-query-compute-apps.txt")), re.M)
    check(want and all(w in out for w in want), "--help-query-compute-apps names nvidia-smi's fields", out)


def main():
    for t in (test_query_gpu_every_field, test_aliases_print_canonical_names, test_q_layout, test_q_display_filter,
              test_compute_apps, test_list_and_dmon_header, test_new_fields_values, test_loops, test_typos,
              test_refusals, test_help_lists):
        t()
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
