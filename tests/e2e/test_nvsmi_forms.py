#!/usr/bin/env python3
"""test_nvsmi_forms.py - the nvidia-smi forms beyond --query-gpu, against real nvidia-smi output
(tests/data/nvidia-smi/: the captures' summary tables and topo -m, a 595 driver's -q -x from telegraf's
test data, the 590 -q and help texts), comparing structure, field names and units, not values: the
summary table (bare gpuwatch, -i, the cutting of long names), -x (parsed with an XML parser, -d),
--help-query-gpu / --help-query-compute-apps, topo -m, --query-remapped-rows, --query-retired-pages,
and every -q -d section with the real tool's words (the utilization, power and clock sample blocks,
SUPPORTED_CLOCKS, FBC_STATS, VOLTAGE)."""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvsmi_ref as ref  # noqa: E402

GPUWATCH = os.environ.get("GPUWATCH", "build/gpuwatch")
GPUSIM_TOOL = os.environ.get("GPUSIM_TOOL", "build/gpusim/gpusim")
SCEN = os.path.join(ref.SRC, "tests", "scenarios")
COMPAT = os.path.join(SCEN, "nvsmi-compat.yaml")
FORMS = os.path.join(SCEN, "nvsmi-forms.yaml")

failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, detail), file=sys.stderr)


def run(args, scenario=FORMS, t0="60"):
    cmd = [GPUWATCH] + (["--sim", scenario] if scenario else []) + args
    env = dict(os.environ, GPUSIM_SPEED="0", GPUSIM_T0=t0)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
    return p.returncode, p.stdout, p.stderr


def fixture(name):
    with open(os.path.join(ref.REF, name)) as f:
        lines = f.read().split("\n")
    return [l for l in lines[1:] if l != ""] if name.endswith(".txt") or name.endswith(".csv") else lines


# --- the summary table -------------------------------------------------------------------------
# (first column, last column + 1, what the slice holds) of each kind of line, from the 590 layout;
# the captures must fit the same specification as gpuwatch's output.
NUM = r" *(\d+|N/A)"
GPU_ROWS = [
    [(0, 1, r"\|"), (1, 5, r" *\d+"), (5, 7, "  "), (7, 34, r".{27}"), (34, 38, "    "), (38, 41, r"(On |Off|N/A)"),
     (41, 42, " "),
     (42, 43, r"\|"), (43, 46, "   "), (46, 62, r"[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\.\d"), (62, 63, " "),
     (63, 66, r" *(On|Off|N/A)"), (66, 68, r" \|"), (68, 89, r" *(\d+|N/A|On)"), (89, 91, r" \|")],
    [(0, 1, r"\|"), (1, 5, r" *(\d+%|N/A)"), (5, 11, r" +(\d+C|N/A)"), (11, 15, "    "), (15, 18, r"(P\d+|N/A) *"),
     (18, 33, r" *(\d+W|N/A)"), (33, 36, " / "), (36, 41, r" *(\d+W|N/A)"), (41, 43, r" \|"),
     (43, 54, r" *(\d+MiB|N/A)"), (54, 57, " / "), (57, 66, r" *(\d+MiB|N/A)"), (66, 68, r" \|"),
     (68, 76, r" *(\d+%|N/A)"), (76, 89, r" *(Default|E\. Process|E\. Thread|Prohibited|N/A)"), (89, 91, r" \|")],
    [(0, 1, r"\|"), (1, 42, " {41}"), (42, 43, r"\|"), (43, 67, " {24}"), (67, 68, r"\|"),
     (68, 89, r" *(Enabled|Disabled|N/A)"), (89, 91, r" \|")],
]
PROC_ROW = [(0, 1, r"\|"), (1, 6, r" *\d+"), (6, 12, r" *(N/A|\d+ )"), (12, 17, r" *(N/A|\d+ )"), (17, 33, r" *\d+"),
            (33, 40, r" *(C|G|C\+G|M|M\+C)"), (40, 43, "   "), (43, 79, r".{36}"), (79, 89, r" *(\d+MiB|N/A)"),
            (89, 91, r" \|")]


def fits(line, spec):
    if len(line) != 91:
        return False
    return all(re.fullmatch(rx, line[a:b]) for a, b, rx in spec)


def table_parts(lines):
    """(header lines, GPU rows in threes, process rows) of a summary table."""
    gpus, procs = [], []
    eq = [i for i, l in enumerate(lines) if l.startswith("|====")]
    k = eq[0] + 1
    while k + 2 < len(lines) and lines[k].startswith("|") and "MIG devices" not in lines[k]:
        gpus.append(lines[k:k + 3])
        k += 4  # three lines and the rule
    for l in lines[eq[-1] + 1:]:
        if l.startswith("|") and "No running processes" not in l:
            procs.append(l)
    return lines[:eq[0] + 1], gpus, procs


def test_summary_table():
    rc, out, err = run([])
    check(rc == 0 and "SIMULATED GPUs" in err, "bare gpuwatch prints the summary table", err)
    ours = out.rstrip("\n").split("\n")
    refs = {b: fixture(b + "-table.txt") for b in ("h100-590", "rtx4080-595", "h100mig-590")}
    check(re.fullmatch(r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4} {7}", ours[0]), "the date line", ours[0])
    for board, lines in refs.items():
        hdr, gpus, procs = table_parts(lines)
        ohdr, ogpus, oprocs = table_parts(ours)
        # the box and the column titles, driver and CUDA versions apart
        norm = lambda ls: [re.sub(r"\d+\.\d+(\.\d+)?", "V", l) for l in ls[1:]]
        check(norm(hdr) == norm(ohdr), "%s: the header box and titles as nvidia-smi" % board,
              "\n".join(ohdr) + "\nwant\n" + "\n".join(hdr))
        for rows in gpus:
            for line, spec in zip(rows, GPU_ROWS):
                check(fits(line, spec), "%s: the capture fits the column specification" % board, line)
        for p in procs:
            check(fits(p, PROC_ROW), "%s: the capture's process row fits the specification" % board, p)
    _, ogpus, oprocs = table_parts(ours)
    check(len(ogpus) == 4, "a GPU block per GPU", str(ogpus))
    for rows in ogpus:
        for line, spec in zip(rows, GPU_ROWS):
            check(fits(line, spec), "gpuwatch's GPU rows fit nvidia-smi's columns", line)
    check(len(oprocs) == 4 and all(fits(p, PROC_ROW) for p in oprocs), "gpuwatch's process rows fit", "\n".join(oprocs))
    # names: up to 27 characters as they are, longer ones 24 and "..." (the captures' RTX 4080 SUPER)
    names = ["NVIDIA GeForce RTX 3090 Ti", "NVIDIA A100-SXM4-80GB xxxxx", "NVIDIA A100-SXM4-80GB xxxxxx",
             "NVIDIA RTX 6000 Ada Generation Workstation"]
    for rows, name in zip(ogpus, names):
        want = name if len(name) <= 27 else name[:24] + "..."
        check(rows[0][7:34].rstrip() == want, "GPU name %r shows as %r" % (name, want), rows[0])
    ref_rtx = table_parts(refs["rtx4080-595"])[1][0][0]
    check(ref_rtx[7:34].rstrip() == "NVIDIA GeForce RTX 4080 SUPER"[:24] + "...", "the capture cuts its name so", ref_rtx)
    pnames = {"4150101": "short", "4150102": "/opt/a/abcdefghijklmnopqrstuvwxyz01",
              "4150103": "/very/long/path/to/a/python/environment/bin/python3.11", "4150104": "a<b>&'c\""}
    for p in oprocs:
        pid = p[17:33].strip()
        name = pnames[pid]
        want = name if len(name) <= 36 else "..." + name[-33:]
        check(p[43:79].rstrip() == want, "process name %r shows as %r" % (name, want), p)
    # -i: one GPU's block and its processes only
    rc, out, _ = run(["-i", "1"])
    _, g1, p1 = table_parts(out.rstrip("\n").split("\n"))
    check(rc == 0 and len(g1) == 1 and g1[0][0][1:5].strip() == "1" and len(p1) == 1 and p1[0][1:6].strip() == "1",
          "-i 1: GPU 1 and its process", out)
    rc, out, _ = run(["-i", "3"])
    check("No running processes found" in out, "a GPU without processes: the real tool's words", out)
    rc, _, err = run(["-i", "9"])
    check(rc == 2 and "9" in err, "-i with a GPU that is not there: a usage error", err)


# --- -x ----------------------------------------------------------------------------------------
UNIT_RE = re.compile(r"^-?[\d.]+( MiB| %| C| W| MHz| KB/s| us|x| bank\(s\)| sec| mV)$")


def paths(elem, prefix=""):
    """{path: [text, ...]} of an element tree, and the order of paths met."""
    out, order = {}, []

    def walk(e, p):
        path = p + "/" + e.tag
        out.setdefault(path, []).append((e.text or "").strip())
        if path not in order:
            order.append(path)
        for c in e:
            walk(c, path)
    walk(elem, prefix)
    return out, order


def test_xml():
    rpaths, rorder = {}, []
    for name in ("rtx4000ada-595-x.xml", "rtx3080-595-x.xml"):  # the first has processes and remapped rows
        with open(os.path.join(ref.REF, name)) as f:
            text = f.read()
        check(text.startswith('<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v13.dtd">'),
              "%s is nvidia-smi's XML" % name)
        p, o = paths(ET.fromstring(text))
        for k, v in p.items():
            rpaths.setdefault(k, []).extend(v)
        rorder = rorder or o
    for args in (["-q", "-x"], ["-x", "-q"], ["--xml-format", "-q"], ["-q", "-x", "-i", "0,3"]):
        rc, out, err = run(args)
        check(rc == 0, "%s exits 0" % args, err)
        check(out.startswith('<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v13.dtd">\n'),
              "%s: the declaration and DOCTYPE of nvidia-smi's XML" % args, out[:200])
        try:
            root = ET.fromstring(out)
        except ET.ParseError as e:
            check(False, "%s: well-formed XML" % args, str(e))
            continue
        check(root.tag == "nvidia_smi_log", "%s: the root is nvidia_smi_log" % args, root.tag)
        gpus = root.findall("gpu")
        want_n = 2 if "-i" in args else 4
        check(len(gpus) == want_n and root.findtext("attached_gpus") == "4",
              "%s: one <gpu> per GPU asked for, attached_gpus all" % args, str(len(gpus)))
        for g in gpus:
            check(re.fullmatch(r"[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\.0", g.get("id", "")) and
                  g.get("id") == g.findtext("pci/pci_bus_id"), "%s: <gpu id> is the bus id" % args, g.get("id"))
        opaths, oorder = paths(root)
        extra = [p for p in opaths if p not in rpaths]
        check(not extra, "%s: every element gpuwatch writes is one of nvidia-smi's, at the same place" % args,
              str(extra))
        common = [p for p in rorder if p in opaths]
        check(common == [p for p in oorder if p in rpaths], "%s: elements in nvidia-smi's order" % args,
              str([p for p in oorder if p in rpaths][:40]))
        check(len(common) > 120, "%s: most of nvidia-smi's elements are there" % args, str(len(common)))
        for p, texts in opaths.items():
            unit = [UNIT_RE.match(t).group(1) for t in rpaths.get(p, []) if UNIT_RE.match(t)]
            for t in texts:
                if unit and t not in ("N/A", "") and not t.startswith("Requested"):
                    check(t.endswith(unit[0]), "%s: %s has nvidia-smi's unit '%s'" % (args, p, unit[0]), t)
        names = [e.text for e in root.iter("process_name")]
        check("-i" in args or "a<b>&'c\"" in names, "%s: a process name with <, >, &, quotes comes back intact" % args, str(names))
    # -d: the asked sections only
    rc, out, _ = run(["-q", "-x", "-d", "MEMORY"])
    root = ET.fromstring(out)
    tags = {c.tag for c in root.find("gpu")}
    check(tags == {"fb_memory_usage", "bar1_memory_usage", "cc_protected_memory_usage"}, "-x -d MEMORY", str(tags))
    # a value in XML has the -q text's value, the PCI numbers without 0x
    rc, qtext, _ = run(["-q", "-i", "0"])
    root = ET.fromstring(run(["-q", "-x", "-i", "0"])[1])
    check("Bus                                            : 0x18" in qtext and root.findtext("gpu/pci/pci_bus") == "18",
          "pci_bus: 0x18 in the text, 18 in XML (as nvidia-smi)", root.findtext("gpu/pci/pci_bus") or "")
    check(root.findtext("gpu/fb_memory_usage/total") == "81559 MiB", "fb total as in the text",
          root.findtext("gpu/fb_memory_usage/total") or "")


# --- --help-query-* ----------------------------------------------------------------------------
BLOCK = re.compile(r'^("[^"]+"(?: or "[^"]+")*)\n(.+)$', re.M)


def test_help_layout():
    for opt, fixture_name in (("--help-query-gpu", "h100-590-help-query-gpu.txt"),
                              ("--help-query-compute-apps", "h100-590-help-query-compute-apps.txt"),
                              ("--help-query-retired-pages", "h100-590-help-query-retired-pages.txt")):
        with open(os.path.join(ref.REF, fixture_name)) as f:
            want = f.read().split("\n", 1)[1]
        rc, out, _ = run([opt], scenario=None)
        check(rc == 0, "%s exits 0" % opt)
        check(out.split("\n")[0] == want.split("\n")[0] and out.split("\n")[1] == "",
              "%s: nvidia-smi's first line" % opt, out[:100])
        rnames = {n for n in re.findall(r'^"([^"]+)"', want, re.M) if ": " not in n}
        onames = set(re.findall(r'^"([^"]+)"', out, re.M))
        check(rnames <= onames, "%s: every field of nvidia-smi's, quoted at the start of a line" % opt,
              str(rnames - onames))
        # each field block is the quoted names, then the description, then a blank line
        for m in re.finditer(r'^"[^\n]*\n', out, re.M):
            nxt = out[m.end():].split("\n", 2)
            check(BLOCK.match(m.group(0) + nxt[0]) and nxt[0] and nxt[1] == "",
                  "%s: %s then a description and a blank line" % (opt, m.group(0).strip()), str(nxt[:2]))
    # aliases as nvidia-smi writes them
    rc, out, _ = run(["--help-query-gpu"], scenario=None)
    for alias, field in list(ref.aliases().items())[:20]:
        check(re.search(r'^"%s"( or "[^"]+")* or "%s"' % (re.escape(field), re.escape(alias)), out, re.M),
              "--help-query-gpu: \"%s\" or \"%s\"" % (field, alias))


# --- topo -m -----------------------------------------------------------------------------------
def test_topo():
    want = fixture("h100-590-topo.txt")
    legend = want[want.index("Legend:"):]
    for scenario, cells in ((FORMS, None), ("demo-8gpu", {"NV18"}), (COMPAT, None)):
        rc, out, err = run(["topo", "-m"], scenario=scenario)
        check(rc == 0, "topo -m on %s exits 0" % scenario, err)
        lines = [l for l in out.split("\n") if l != ""]
        hdr = lines[0]
        ngpu = len(re.findall(r"GPU\d+", hdr))
        check(hdr == "\t\x1b[4m" + "".join("GPU%d\t" % i for i in range(ngpu)) +
              "CPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m", "%s: the header row as nvidia-smi's" % scenario,
              repr(hdr))
        check(want[0].endswith("CPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m") and want[0].startswith("\t\x1b[4mGPU0"),
              "the capture's header has that shape")
        check(lines[ngpu + 1:] == legend, "%s: the legend word for word" % scenario, "\n".join(lines[ngpu + 1:]))
        for i in range(ngpu):
            f = lines[1 + i].split("\t")
            check(f[0] == "GPU%d" % i and f[1 + i] == " X " and len(f) == ngpu + 5 and f[-2] == "",
                  "%s: row %d as the capture's (GPU, cells, CPUs, node, an empty cell, GPU NUMA ID)" % (scenario, i),
                  repr(lines[1 + i]))
            for j, c in enumerate(f[1:1 + ngpu]):
                if j != i:
                    check(re.fullmatch(r"NV\d+|PIX|PXB|PHB|NODE|SYS", c), "%s: a legend word in each cell" % scenario, c)
                    if cells:
                        check(c in cells, "%s: %s between GPU %d and %d" % (scenario, cells, i, j), c)
            check(re.fullmatch(r"\d+(-\d+)?(,\d+(-\d+)?)*", f[1 + ngpu]) and re.fullmatch(r"\d+", f[2 + ngpu]),
                  "%s: CPU and NUMA affinity" % scenario, repr(lines[1 + i]))
        got = [l.split("\t") for l in lines[1:ngpu + 1]]
        want_row = want[1].split("\t")
        check(len(want_row) == 6 and want_row[1] == " X ", "the capture's one-GPU row", repr(want[1]))
        if scenario == FORMS:  # switches [[0, 1], [2, 3]], nodes 0 / 1, no NVLink
            check(got[0][2] == "PIX" and got[2][4] == "PIX" and got[0][3] == "SYS" and got[1][4] == "SYS",
                  "PIX behind one switch, SYS across NUMA nodes", str(got))
            check(got[0][5] == "0-3" and got[3][5] == "4-7" and got[0][6] == "0" and got[3][6] == "1",
                  "each GPU's node CPUs and node", str(got))
    rc, _, err = run(["topo"])
    check(rc == 2 and "-m" in err, "topo without -m: usage error naming -m", err)


# --- --query-remapped-rows, --query-retired-pages ----------------------------------------------
def test_rows_and_pages():
    fields = "gpu_bus_id,gpu_uuid,remapped_rows.correctable,remapped_rows.uncorrectable,remapped_rows.pending," \
             "remapped_rows.failure"
    rc, out, err = run(["--query-remapped-rows=" + fields, "--format=csv"])
    lines = out.rstrip("\n").split("\n")
    check(rc == 0 and lines[0] == fields.replace(",", ", "), "--query-remapped-rows: the header", out)
    rc2, q, _ = run(["--query-gpu=remapped_rows.correctable,remapped_rows.uncorrectable,remapped_rows.pending,"
                     "remapped_rows.failure", "--format=csv,noheader"])
    for row, qrow in zip(lines[1:], q.rstrip("\n").split("\n")):
        c = row.split(", ")
        qc = qrow.split(", ")
        check(len(c) == 6 and re.fullmatch(r"[0-9A-F]{8}:.*", c[0]), "a row per GPU, bus id first", row)
        if qc[0] == "[N/A]":
            check(c[2:] == ["[N/A]"] * 4, "a GPU without row remapping: [N/A]", row)
        else:
            yn = {"Yes": "1", "No": "0"}
            check(c[2:4] == qc[0:2] and c[4:6] == [yn[qc[2]], yn[qc[3]]],
                  "the counts of --query-gpu, pending and failure as 0/1", row + " / " + qrow)
    check(len(lines) == 5 and lines[2].split(", ")[2] == "3" and lines[2].split(", ")[4] == "1",
          "GPU 1's remapped rows (3 correctable, one pending)", out)
    ref_lines = fixture("h100-590-query-retired-pages.csv")
    fields = ref.ref_command("h100-590", "query-retired-pages.csv").split("=", 1)[1].split(" ")[0]
    rc, out, err = run(["--query-retired-pages=" + fields, "--format=csv"], scenario=COMPAT)
    lines = out.rstrip("\n").split("\n")
    check(rc == 0 and lines[0] == ref_lines[0], "--query-retired-pages: nvidia-smi's header", out)
    shape = lambda l: [c if c in ("[N/A]", "Single Bit ECC", "Double Bit ECC") else "x" for c in l.split(", ")]
    check([shape(l) for l in lines[1:3]] == [shape(l) for l in ref_lines[1:3]],
          "a GPU without page retirement: a row per cause with [N/A], as nvidia-smi on an H100", out)
    check(len(lines) == 5, "two rows per GPU", out)
    rc, out, _ = run(["--query-retired-pages=gpu_uuid", "--format=csv,noheader", "-i", "1"], scenario=COMPAT)
    check(rc == 0 and len(out.strip().split("\n")) == 2, "noheader and -i", out)
    rc, _, err = run(["--query-remapped-rows=remapped_rows.pendng", "--format=csv"])
    check(rc == 2 and "did you mean 'remapped_rows.pending'" in err, "a mistyped field: the closest name", err)


# --- -q -d sections ----------------------------------------------------------------------------
def sections(text):
    """{section name: [labels]} of depth-1 lines of a -q report."""
    out, cur = {}, None
    for l in text.split("\n"):
        if re.match(r"^    \S", l):
            cur = l[4:].split(":")[0].strip()
            out[cur] = []
        elif re.match(r"^      +\S", l) and cur:
            out[cur].append(l.strip().split(":")[0].strip())
    return out


SAMPLE_KEYS = ["Duration", "Number of Samples", "Max", "Min", "Avg"]
D_SECTIONS = {
    "MEMORY": {"FB Memory Usage", "BAR1 Memory Usage", "Conf Compute Protected Memory Usage"},
    "UTILIZATION": {"Utilization", "GPU Utilization Samples", "Memory Utilization Samples", "ENC Utilization Samples",
                    "DEC Utilization Samples"},
    "ECC": {"ECC Mode", "ECC Errors"},
    "TEMPERATURE": {"Temperature"},
    "POWER": {"GPU Power Readings", "Power Samples"},
    "CLOCK": {"Clocks", "Applications Clocks", "Default Applications Clocks", "Max Clocks", "SM Clock Samples",
              "Memory Clock Samples"},
    "COMPUTE": {"Compute Mode"},
    "PIDS": {"Processes"},
    "PERFORMANCE": {"Performance State", "Clocks Event Reasons", "Clocks Event Reasons Counters"},
    "PAGE_RETIREMENT": {"Retired Pages"},
    "ROW_REMAPPER": {"Remapped Rows"},
    "ENCODER_STATS": {"Encoder Stats"},
    "FBC_STATS": {"FBC Stats"},
    "VOLTAGE": {"Voltage"},
    "SUPPORTED_CLOCKS": {"Supported Clocks"},
    "ACCOUNTING": {"Accounting Mode", "Accounting Mode Buffer Size"},
}


def test_display_sections():
    full = sections("\n".join(ref.ref_lines("h100-590", "q.txt")))
    for d, want in D_SECTIONS.items():
        rc, out, err = run(["-q", "-d", d, "-i", "0"], scenario=COMPAT)
        got = sections(out)
        check(rc == 0 and set(got) == want, "-d %s: the sections %s" % (d, sorted(want)), str(sorted(got)))
        for name, labels in got.items():
            if name in full:  # in the capture: the same words in the same order
                uniq = lambda ls: list(dict.fromkeys(ls))
                check([l for l in uniq(full[name]) if l in labels] == uniq(labels),
                      "-d %s: %s's lines are nvidia-smi's, in its order" % (d, name), str(labels))
            if name.endswith("Samples"):
                check(labels == SAMPLE_KEYS, "-d %s: %s has %s" % (d, name, SAMPLE_KEYS), str(labels))
    # the sample blocks: numbers that hold together, and follow the load (0 idle, both ends of a square wave)
    for scenario, lo, hi in (("idle-1gpu", 0, 0), ("data-pipeline-stall", None, None)):
        rc, out, _ = run(["-q", "-d", "UTILIZATION", "-i", "0"], scenario=scenario, t0="120")
        block = out.split("GPU Utilization Samples", 1)[1].split("Memory Utilization Samples")[0]
        vals = dict(re.findall(r"(\w[\w ]*\w) +: (.*)", block))
        n = int(vals["Number of Samples"])
        mx, mn, avg = (float(vals[k].split()[0]) for k in ("Max", "Min", "Avg"))
        check(n > 10 and re.fullmatch(r"\d+\.\d\d sec", vals["Duration"]) and mn <= avg <= mx,
              "%s: samples over seconds, min <= avg <= max" % scenario, block)
        if lo is not None:
            check(mx == hi and mn == lo, "%s: an idle GPU's samples are 0 %%" % scenario, block)
        else:
            check(mx >= 90 and mn <= 10, "%s: the square wave's both ends are in the buffer" % scenario, block)
        check(vals["Max"].endswith(" %"), "utilization samples in %", block)
    rc, out, _ = run(["-q", "-d", "POWER,CLOCK", "-i", "0"], scenario=COMPAT)
    check(re.search(r"Power Samples\n(.*\n){2} +Max +: \d+\.\d\d W", out) and
          re.search(r"SM Clock Samples\n(.*\n){2} +Max +: \d+ MHz", out), "power samples in W, clocks in MHz", out)
    # supported clocks: the maximum memory clock first, with the graphics clocks from the maximum down
    rc, out, _ = run(["-q", "-d", "SUPPORTED_CLOCKS", "-i", "0"], scenario=COMPAT)
    rc2, q, _ = run(["--query-gpu=clocks.max.memory,clocks.max.graphics", "--format=csv,noheader,nounits", "-i", "0"],
                    scenario=COMPAT)
    mem = re.findall(r"^        Memory +: (\d+) MHz$", out, re.M)
    gr = [int(x) for x in re.findall(r"^            Graphics +: (\d+) MHz$", out, re.M)]
    maxmem, maxgr = q.strip().split(", ")
    first = gr[:len(re.findall(r"^            Graphics", out.split("        Memory", 2)[1], re.M))]
    check(mem and mem[0] == maxmem and first and first[0] == int(maxgr) and first == sorted(set(first), reverse=True),
          "SUPPORTED_CLOCKS: max memory clock, graphics clocks from the maximum downwards", out[:600])
    root = ET.fromstring(run(["-q", "-x", "-i", "0"], scenario=COMPAT)[1])
    check(root.findtext("gpu/supported_clocks/supported_mem_clock/value") == maxmem + " MHz",
          "-x: supported_clocks as nvidia-smi's", ET.tostring(root.find("gpu/supported_clocks"))[:200].decode())
    rc, out, _ = run(["-q", "-i", "0"], scenario=COMPAT)
    check("Samples" not in out and "Supported Clocks" not in out and "Voltage" not in out and "FBC Stats" in out,
          "-q without -d: no sample blocks, supported clocks or voltage (as nvidia-smi), FBC Stats", out)
    rc, _, err = run(["-q", "-d", "VOLTAGES"], scenario=COMPAT)
    check(rc == 2 and "did you mean 'VOLTAGE'" in err, "a mistyped section: the closest one", err)


def main():
    for t in (test_summary_table, test_xml, test_help_layout, test_topo, test_rows_and_pages, test_display_sections):
        t()
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        return 1
    print("test_nvsmi_forms: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
