"""test_diagnosis_scenarios.py - replays every scenario of sim/scenarios/diagnosis/ with
`gpuwatch --sim FILE diagnose --replay DURATION --format json` and compares the findings with
sim/scenarios/diagnosis/expected.yaml: per detector and GPU, a finding expected and present is a
true positive, expected and absent a miss (FN), present and not expected a false alarm (FP), neither
a true negative. Scenarios whose evidence is a job's own output (`run: LOG`, the log in joblogs/)
run `cat LOG` under `gpuwatch --sim FILE run` on all their GPUs and read the findings of its JSON
report. Prints the confusion matrix, recall and precision per detector and fails on any miss, false
alarm or wrong severity. GW_DIAG_SCENARIOS=a,b replays only those scenarios."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from skiplib import skip_test

GPUWATCH = os.environ.get("GPUWATCH", "build/gpuwatch")
GPUSIM_TOOL = os.environ.get("GPUSIM_TOOL", "build/gpusim/gpusim")
SOURCE = os.environ.get("GW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
DIR = os.path.join(SOURCE, "sim", "scenarios", "diagnosis")
DETECTORS = ["input_stall", "launch_bound", "low_util", "power_cap", "thermal", "memory_leak", "memory_full",
             "imbalance", "idle_holding", "pcie_bound", "hw_health", "app_fault", "row_remap", "nvlink_errors",
             "pcie_degraded", "clocks_low", "collective_hang", "alloc_fragmentation"]
SEVERITIES = ("info", "warning", "critical")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def flow_to_json(text):
    """The manifest's one-line YAML flow mappings as JSON: bare words (ids, durations) quoted."""
    return re.sub(r'(?<![\w"])([A-Za-z_][\w.\-]*|\d+(?:\.\d+)?[a-z]+)(?![\w"])', r'"\1"', text)


def load_manifest(path):
    """{name: (replay duration, or ("run", LOG), [(detector, [gpus], severity or None)])}, in file order."""
    out = {}
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, sep, rest = line.partition(":")
            try:
                spec = json.loads(flow_to_json(rest.strip())) if sep else None
            except ValueError as e:
                fail("%s:%d: %s" % (path, no, e))
            if not isinstance(spec, dict) or set(spec) - {"replay", "run", "expect"} or \
                    ("replay" in spec) == ("run" in spec):
                fail("%s:%d: expected NAME: {replay: DURATION, expect: [...]} or {run: LOG, expect: [...]}" % (path, no))
            expect = []
            for e in spec.get("expect", []):
                det, gpus, sev = e.get("detector"), e.get("gpus"), e.get("severity")
                if det not in DETECTORS or not gpus or not all(isinstance(g, int) for g in gpus) or \
                        (sev is not None and sev not in SEVERITIES) or set(e) - {"detector", "gpus", "severity"}:
                    fail("%s:%d: bad expectation %r" % (path, no, e))
                expect.append((det, gpus, sev))
            if name in out:
                fail("%s:%d: %s listed twice" % (path, no, name))
            out[name] = (spec["replay"] if "replay" in spec else ("run", spec["run"]), expect)
    return out


def gpu_count(scen):
    p = subprocess.run([GPUSIM_TOOL, "check", scen], capture_output=True, text=True, timeout=30)
    m = re.search(r": ok \((\d+) GPU", p.stdout)
    if p.returncode != 0 or not m:
        fail("gpusim check %s: %s%s" % (scen, p.stdout, p.stderr))
    return int(m.group(1))


LOCKS = tempfile.mkdtemp(prefix="gw-diag-scen-")


def run_job(name, scen, n, log):
    """`cat LOG` as the job of `gpuwatch run` on all n GPUs: its JSON report (the findings part)."""
    out = os.path.join(LOCKS, name + ".json")
    env = dict(os.environ, GPUWATCH_LOCK_DIR=os.path.join(LOCKS, "locks"))
    p = subprocess.run([GPUWATCH, "--sim", scen, "run", "--gpus", str(n), "--agent", "none", "--no-history",
                        "--interval", "0.2", "--json", out, "--", "cat", os.path.join(DIR, "joblogs", log)],
                       capture_output=True, text=True, timeout=120, env=env)
    if p.returncode != 0:
        fail("%s: gpuwatch run exited %d: %s" % (name, p.returncode, p.stderr))
    with open(out) as f:
        return json.dumps({"findings": json.load(f)["findings"]})


def replay(name, duration):
    """Returns (name, n_gpus, {(detector, gpu): severity}, seconds)."""
    scen = os.path.join(DIR, name + ".yaml")
    n = gpu_count(scen)
    t0 = time.monotonic()
    if isinstance(duration, tuple):
        stdout = run_job(name, scen, n, duration[1])
    else:
        p = subprocess.run([GPUWATCH, "--sim", scen, "diagnose", "--replay", duration, "--format", "json"],
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            fail("%s: gpuwatch diagnose exited %d: %s" % (name, p.returncode, p.stderr))
        stdout = p.stdout
    took = time.monotonic() - t0
    try:
        report = json.loads(stdout)
    except ValueError as e:
        fail("%s: not JSON (%s): %s" % (name, e, stdout[:500]))
    found = {}
    for f in report["findings"]:
        for g in f["gpus"]:
            key = (f["detector"], g)
            if key not in found or SEVERITIES.index(f["severity"]) > SEVERITIES.index(found[key]):
                found[key] = f["severity"]
    return name, n, found, took, report


def main():
    if not os.path.exists(GPUWATCH) or not os.path.exists(GPUSIM_TOOL):
        skip_test("gpuwatch or gpusim is not built (%s, %s)" % (GPUWATCH, GPUSIM_TOOL))
    manifest = load_manifest(os.path.join(DIR, "expected.yaml"))
    files = sorted(f[:-5] for f in os.listdir(DIR) if f.endswith(".yaml") and f != "expected.yaml")
    missing = [f for f in files if f not in manifest]
    extra = [n for n in manifest if n not in files]
    if missing or extra:
        fail("expected.yaml and the scenario files differ: not listed %s, no file %s" % (missing, extra))
    only = [s for s in os.environ.get("GW_DIAG_SCENARIOS", "").split(",") if s]
    names = [n for n in manifest if not only or n in only]
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda n: replay(n, manifest[n][0]), names))
    wall = time.monotonic() - t0

    cm = {d: {"TP": 0, "FN": 0, "FP": 0, "TN": 0} for d in DETECTORS}
    problems = []
    for name, n, found, took, report in results:
        want = {}
        for det, gpus, sev in manifest[name][1]:
            for g in gpus:
                if g >= n:
                    fail("%s: expects GPU %d of %d" % (name, g, n))
                want[(det, g)] = sev
        for det in DETECTORS:
            for g in range(n):
                exp, got = (det, g) in want, (det, g) in found
                cm[det]["TP" if exp and got else "FN" if exp else "FP" if got else "TN"] += 1
                if exp and not got:
                    problems.append("%s: missed %s on GPU %d" % (name, det, g))
                elif got and not exp:
                    summary = next((f["summary"] for f in report["findings"]
                                    if f["detector"] == det and g in f["gpus"]), "")
                    problems.append("%s: false alarm %s on GPU %d: %s" % (name, det, g, summary))
                elif exp and want[(det, g)] and want[(det, g)] != found[(det, g)]:
                    problems.append("%s: %s on GPU %d is %s, expected %s" % (name, det, g, found[(det, g)],
                                                                              want[(det, g)]))
        for det, g in found:
            if det not in DETECTORS:
                problems.append("%s: unknown detector %s" % (name, det))

    print("%d scenarios, %d replays in %.1f s (2 at a time); slowest: %s" % (
        len(names), len(results), wall,
        ", ".join("%s %.2f s" % (r[0], r[3]) for r in sorted(results, key=lambda r: -r[3])[:3])))
    print("confusion matrix per detector (cells: scenario x GPU)")
    print("%-20s %5s %5s %5s %6s %9s %7s" % ("detector", "TP", "FN", "FP", "TN", "recall", "prec."))
    tot = {"TP": 0, "FN": 0, "FP": 0, "TN": 0}
    for det in DETECTORS:
        c = cm[det]
        for k in tot:
            tot[k] += c[k]
        rec = c["TP"] / (c["TP"] + c["FN"]) if c["TP"] + c["FN"] else float("nan")
        prec = c["TP"] / (c["TP"] + c["FP"]) if c["TP"] + c["FP"] else float("nan")
        print("%-20s %5d %5d %5d %6d %9.2f %7.2f" % (det, c["TP"], c["FN"], c["FP"], c["TN"], rec, prec))
    print("%-20s %5d %5d %5d %6d" % ("all", tot["TP"], tot["FN"], tot["FP"], tot["TN"]))
    healthy = [r for r in results if not manifest[r[0]][1]]
    print("healthy scenarios without any finding: %d of %d" % (sum(1 for r in healthy if not r[2]), len(healthy)))
    if problems:
        fail("%d problem(s):\n  %s" % (len(problems), "\n  ".join(problems)))
    print("PASS")


main()
