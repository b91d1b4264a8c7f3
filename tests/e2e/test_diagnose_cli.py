"""test_diagnose_cli.py - `gpuwatch diagnose` end to end: --replay in text and JSON (the schema of
docs/diagnosis.md), --gpu and --pid filters, --config thresholds, exit 0 with and without findings,
usage errors exit 2; then a real agent on gpusim with history and diagnosis on: `diagnose --db` on
the history it wrote and `diagnose --host` on its /api/v1/findings."""
import json
import os
import re
import subprocess
import tempfile
from agentlib import Agent, GPUWATCH, SOURCE, check, fail, need_gpusim, scenario, wait_for

need_gpusim()
SCEN = scenario("diagnose-cli.yaml")  # GPU 0 power_cap, 1 memory_full, 2 hw_health (XID 48), 3 app_fault (XID 13)
HEALTHY = os.path.join(SOURCE, "sim", "scenarios", "diagnosis", "healthy-training-h100x8.yaml")
EXPECTED = {("power_cap", 0), ("memory_full", 1), ("hw_health", 2), ("app_fault", 3)}
DETECTORS = {"input_stall", "launch_bound", "low_util", "power_cap", "thermal", "memory_leak", "memory_full",
             "imbalance", "idle_holding", "pcie_bound", "hw_health", "app_fault", "row_remap", "nvlink_errors",
             "pcie_degraded", "clocks_low", "collective_hang", "alloc_fragmentation"}
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def run(*args, sim=SCEN, timeout=60):
    cmd = [GPUWATCH] + (["--sim", sim] if sim else []) + ["diagnose"] + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def ok_json(p, what):
    check(p.returncode == 0, "%s: exit %d: %s" % (what, p.returncode, p.stderr))
    try:
        return json.loads(p.stdout)
    except ValueError as e:
        fail("%s: not JSON (%s): %s" % (what, e, p.stdout[:300]))


def pairs(report):
    return {(f["detector"], g) for f in report["findings"] for g in f["gpus"]}


def check_schema(report, what):
    """The JSON of docs/diagnosis.md, "JSON"."""
    check(isinstance(report.get("findings"), list), "%s: no findings array" % what)
    for k in ("from", "to"):
        check(k not in report or RFC3339.match(report[k]), "%s: report %s %r" % (what, k, report.get(k)))
    order = {"critical": 0, "warning": 1, "info": 2}
    last = -1
    for f in report["findings"]:
        w = "%s: %s" % (what, f.get("detector"))
        check(f.get("detector") in DETECTORS, "%s: unknown detector" % w)
        check(f.get("severity") in order, "%s: severity %r" % (w, f.get("severity")))
        check(order[f["severity"]] >= last, "%s: not sorted worst first" % w)
        last = order[f["severity"]]
        check(isinstance(f.get("gpus"), list) and all(isinstance(g, int) for g in f["gpus"]), "%s: gpus" % w)
        check(isinstance(f.get("pids"), list) and all(isinstance(p, int) for p in f["pids"]), "%s: pids" % w)
        check(RFC3339.match(f.get("from", "")) and RFC3339.match(f.get("to", "")), "%s: from/to" % w)
        check(f["from"] <= f["to"], "%s: from after to" % w)
        check(isinstance(f.get("summary"), str) and f["summary"], "%s: summary" % w)
        ev = f.get("evidence")
        check(isinstance(ev, dict) and ev, "%s: evidence" % w)
        for k, v in ev.items():
            check(v is None or isinstance(v, (int, float, str)), "%s: evidence %s=%r" % (w, k, v))
        adv = f.get("advice")
        check(isinstance(adv, list) and 1 <= len(adv) <= 6 and all(isinstance(a, str) and a for a in adv),
              "%s: advice %r" % (w, adv))
        if "signal" in f:
            s = f["signal"]
            check(isinstance(s.get("metric"), str) and isinstance(s.get("unit"), str), "%s: signal metric" % w)
            check(s.get("gpu") in f["gpus"] or not f["gpus"], "%s: signal of another GPU" % w)
            check(RFC3339.match(s.get("from", "")) and RFC3339.match(s.get("to", "")), "%s: signal from/to" % w)
            vals = s.get("values")
            check(isinstance(vals, list) and 0 < len(vals) <= 60 and
                  all(isinstance(v, (int, float)) for v in vals), "%s: signal values" % w)
        if f["gpus"] and len(f["gpus"]) == 1:
            check("gpu_name" in ev, "%s: no gpu_name" % w)


# ---- --replay, JSON and text ----
rep = ok_json(run("--replay", "2m", "--format", "json"), "replay json")
check_schema(rep, "replay")
check(pairs(rep) == EXPECTED, "replay found %s, expected %s" % (sorted(pairs(rep)), sorted(EXPECTED)))
byd = {f["detector"]: f for f in rep["findings"]}
check(byd["hw_health"]["severity"] == "critical" and "48" in byd["hw_health"]["evidence"]["xids"] and
      byd["hw_health"]["evidence"]["action"] == "WORKFLOW_XID_48" and "WORKFLOW_XID_48" in byd["hw_health"]["advice"][0],
      "hw_health: %r" % byd["hw_health"])
check(byd["app_fault"]["severity"] == "warning" and byd["app_fault"]["evidence"]["fault"] == "application" and
      byd["app_fault"]["pids"] == [2100004], "app_fault: %r" % byd["app_fault"])
check(byd["power_cap"]["evidence"]["user_lowered"] == 1 and byd["power_cap"]["pids"] == [2100001],
      "power_cap: %r" % byd["power_cap"])
check(byd["memory_full"]["evidence"]["user"] == "bob", "memory_full: %r" % byd["memory_full"]["evidence"])

p = run("--replay", "2m")
check(p.returncode == 0, "replay text: exit %d: %s" % (p.returncode, p.stderr))
text = p.stdout
check(re.search(r"^gpuwatch diagnose: 120 s of scenario time replayed .*: 4 findings$", text, re.M),
      "replay text header:\n" + text)
for gpu, sev, det in ((0, "WARNING", "power_cap"), (1, "WARNING", "memory_full"), (2, "CRITICAL", "hw_health"),
                      (3, "WARNING", "app_fault")):
    check(re.search(r"^GPU %d  NVIDIA H100 80GB HBM3$" % gpu, text, re.M), "no group for GPU %d:\n%s" % (gpu, text))
    check(re.search(r"^  %s +%s  " % (sev, det), text, re.M), "no %s %s line:\n%s" % (sev, det, text))
check(text.index("GPU 2  ") < text.index("GPU 0  "), "the critical GPU's group is not first:\n" + text)
check(any(c in text for c in "▁▂▃▄▅▆▇█"), "no sparkline in the text:\n" + text)
p = run("--replay", "2m", "--ascii")
check(p.returncode == 0 and p.stdout.isascii() and "|" in p.stdout, "--ascii output is not ASCII:\n" + p.stdout)

# ---- filters ----
for args, want in ((["--gpu", "1"], {("memory_full", 1)}), (["--gpu", "0,2"], {("power_cap", 0), ("hw_health", 2)}),
                   (["--gpu", "3-5"], {("app_fault", 3)}), (["--gpu", "4-5"], set()),
                   (["--pid", "2100003"], {("hw_health", 2)}),
                   (["--pid", "2100001", "--gpu", "1"], set()), (["--pid", "4000000"], set())):
    r = ok_json(run("--replay", "2m", "--format", "json", *args), "replay %s" % args)
    check(pairs(r) == want, "%s: %s, expected %s" % (args, sorted(pairs(r)), sorted(want)))

# ---- thresholds from --config ----
with tempfile.TemporaryDirectory() as d:
    cfg = os.path.join(d, "diag.yaml")
    with open(cfg, "w") as f:
        f.write("diagnosis:\n  thresholds:\n    memory_full: {used_frac: 0.99}\n    power_cap.enabled: 0\n")
    r = ok_json(run("--replay", "2m", "--format", "json", "--config", cfg), "replay --config")
    check(pairs(r) == {("hw_health", 2), ("app_fault", 3)}, "--config: %s" % sorted(pairs(r)))
    with open(cfg, "w") as f:
        f.write("diagnosis:\n  thresholds:\n    memory_full: {used_frac: 7}\n    no_such.threshold: 1\n")
    p = run("--replay", "2m", "--config", cfg)
    check(p.returncode == 1 and "used_frac" in p.stderr and "no_such.threshold" in p.stderr,
          "bad --config: exit %d: %s" % (p.returncode, p.stderr))

# ---- no findings: exit 0, empty array, "0 findings" ----
r = ok_json(run("--replay", "10m", "--format", "json", sim=HEALTHY), "healthy replay")
check(r["findings"] == [], "healthy replay found %s" % sorted(pairs(r)))
p = run("--replay", "10m", sim=HEALTHY)
check(p.returncode == 0 and re.search(r": 0 findings$", p.stdout, re.M), "healthy text: %s" % p.stdout)
p = run("--help-thresholds", sim=None)
check(p.returncode == 0 and "input_stall.p95_util" in p.stdout, "--help-thresholds: %s" % p.stdout[:200])

# ---- usage errors: exit 2, one line on stderr naming the option ----
for args, needle in ((["--replay", "2m", "--format", "xml"], "--format"), (["--replay", "0s"], "--replay"),
                     (["--replay", "soon"], "--replay"), (["--replay", "2m", "--interval", "5ms"], "--interval"),
                     (["--replay", "2m", "--pid", "abc"], "--pid"), (["--replay", "2m", "--pid", "0"], "--pid"),
                     (["--replay", "2m", "--gpu", "x"], "--gpu"), (["--replay", "2m", "--live", "1m"], "one source"),
                     (["--replay", "2m", "--since", "1h"], "--since"), (["--db", "x", "--since", "1h", "--from", "0"],
                                                                         "not both"),
                     (["--no-such-option"], "unknown option"), (["--replay", "2m", "extra"], "unexpected argument"),
                     (["--replay"], "missing value")):
    p = run(*args)
    check(p.returncode == 2, "%s: exit %d, expected 2: %s" % (args, p.returncode, p.stderr))
    check(needle in p.stderr and p.stdout == "", "%s: stderr %r" % (args, p.stderr))
p = run("--replay", "2m", sim=None, timeout=30)  # a replay needs gpusim: the real library cannot step time
check(p.returncode in (2, 3), "--replay without --sim: exit %d: %s" % (p.returncode, p.stderr))
p = run("--db", "/nonexistent/history.db", sim=None)
check(p.returncode == 1 and "no history file" in p.stderr, "missing --db: exit %d: %s" % (p.returncode, p.stderr))

# ---- a real agent: --db on its history, --host on its findings ----
# rules on findings: finding.DETECTOR is the severity (0 none, 1 info, 2 warning, 3 critical)
RULES = os.path.join(tempfile.mkdtemp(prefix="gw-diag-rules-"), "findings.yaml")
with open(RULES, "w") as f:
    f.write("""groups:
  - name: findings
    interval: 250ms
    rules:
      - alert: HwFinding
        condition: {metric: finding.hw_health, op: ">=", threshold: 3}
        labels: {severity: critical}
      - alert: AnyFinding
        condition: {metric: finding.any, op: ">=", threshold: 1}
      - alert: ThermalFinding
        condition: {metric: finding.thermal, op: ">=", threshold: 1}
""")
bad = RULES + ".bad"
with open(bad, "w") as f:
    f.write("groups:\n  - name: x\n    rules:\n      - alert: A\n"
            "        condition: {metric: finding.no such, op: \">=\", threshold: 1}\n")
p = subprocess.run([GPUWATCH, "rules", "check", bad], capture_output=True, text=True, timeout=30)
check(p.returncode == 1 and "%s:5:" % bad in p.stderr and "finding.DETECTOR" in p.stderr,
      "rules check of a bad finding name: %d %r" % (p.returncode, p.stderr))
# the shipped rules' diagnosis group (deploy/rules), evaluated every 250 ms instead of every minute
with open(os.path.join(SOURCE, "deploy", "rules", "gpuwatch-default.yaml")) as f:
    shipped = f.read()
start = shipped.index("  - name: gpuwatch-diagnosis\n")
end = shipped.index("\n  - name: ", start + 1)
SHIPPED = RULES + ".shipped.yaml"
with open(SHIPPED, "w") as f:
    f.write("groups:\n" + shipped[start:end].replace("interval: 1m", "interval: 250ms") + "\n")
HARDWARE = {"GPUHardwareFault", "GPUMemoryRepairNeeded", "GPUNVLinkErrors", "GPUPCIeDegraded"}
CONFIG = ("history:\n  flush_interval: 1s\ndiagnosis:\n  interval: 1s\n"
          "alerts:\n  default_rules: false\n  rule_files: [%s, %s]\n" % (RULES, SHIPPED))
a = Agent(SCEN, config=CONFIG, args=["--interval", "250ms"])
try:
    a.wait_sampled(ngpus=4)

    def agent_found():
        st, _, body = a.request("/api/v1/findings")
        return json.loads(body) if st == 200 and pairs(json.loads(body)) >= EXPECTED else None
    served = wait_for("the agent's findings", agent_found, timeout=40, step=0.5)
    check_schema(served, "/api/v1/findings")

    def firing():
        got = {(x["labels"]["alertname"], x["labels"]["gpu"]) for x in a.get_json("/api/v1/alerts")["data"]["alerts"]
               if x["state"] == "firing"}
        return got if {("HwFinding", "2"), ("AnyFinding", "0"), ("AnyFinding", "1"), ("AnyFinding", "3"),
                       ("GPUHardwareFault", "2")} <= got else None
    got = wait_for("alerts on the findings", firing, timeout=20, step=0.5)
    check(("HwFinding", "0") not in got and not any(n == "ThermalFinding" for n, _ in got),
          "alerts fired on findings that are not there: %s" % sorted(got))
    # the shipped rules page on the hardware's fault, not on the application's
    check(not any(n in HARDWARE and g != "2" for n, g in got), "hardware alerts beyond GPU 2: %s" % sorted(got))

    p = subprocess.run([GPUWATCH, "diagnose", "--host", "127.0.0.1:%d" % a.port, "--format", "json"],
                       capture_output=True, text=True, timeout=30)
    host = ok_json(p, "diagnose --host")
    check_schema(host, "diagnose --host")
    check(pairs(host) >= EXPECTED, "--host: %s" % sorted(pairs(host)))
    p = subprocess.run([GPUWATCH, "diagnose", "--host", "127.0.0.1:%d" % a.port, "--gpu", "2"],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 0 and "hw_health" in p.stdout and "power_cap" not in p.stdout,
          "--host --gpu 2: %d %s" % (p.returncode, p.stdout))

    def db_found():
        p = subprocess.run([GPUWATCH, "diagnose", "--db", a.db, "--since", "10m", "--format", "json"],
                           capture_output=True, text=True, timeout=30)
        if p.returncode != 0:
            fail("diagnose --db: exit %d: %s" % (p.returncode, p.stderr))
        r = json.loads(p.stdout)
        return r if pairs(r) >= EXPECTED else None
    db = wait_for("the findings from the agent's history", db_found, timeout=40, step=1.0)
    check_schema(db, "diagnose --db")
    bypid = {f["detector"]: f["pids"] for f in db["findings"]}
    check(bypid.get("memory_full") == [2100002], "--db: memory_full pids %r" % bypid.get("memory_full"))
    p = subprocess.run([GPUWATCH, "diagnose", "--db", a.db, "--since", "10m", "--pid", "2100001"],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 0 and "power_cap" in p.stdout and "memory_full" not in p.stdout,
          "--db --pid: %d %s" % (p.returncode, p.stdout))
    p = subprocess.run([GPUWATCH, "diagnose", "--db", a.db, "--from", "2000-01-01T00:00:00Z", "--to",
                        "2000-01-01T01:00:00Z", "--format", "json"], capture_output=True, text=True, timeout=30)
    check(p.returncode == 0 and json.loads(p.stdout)["findings"] == [] and "no samples" in p.stderr,
          "--db on an empty range: %d %s %s" % (p.returncode, p.stdout, p.stderr))
finally:
    a.stop()

# an agent that does not diagnose: --host says so, exit 1
b = Agent(SCEN, config="diagnosis:\n  enabled: false\n", args=["--interval", "250ms"])
try:
    b.wait_sampled(ngpus=4)
    p = subprocess.run([GPUWATCH, "diagnose", "--host", "127.0.0.1:%d" % b.port], capture_output=True, text=True,
                       timeout=30)
    check(p.returncode == 1 and "does not diagnose" in p.stderr, "--host, diagnosis off: %d %s" % (p.returncode,
                                                                                                  p.stderr))
finally:
    b.stop()
print("PASS")
