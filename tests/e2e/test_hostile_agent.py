#!/usr/bin/env python3
"""test_hostile_agent.py - the clients of an agent (top --host --once, diagnose --host, run --agent)
against a fake agent whose answers are hostile: timestamps far in the future, GPU indexes out of
range, escape sequences and bad UTF-8 in every string, infinite numbers, 20 000 findings and 5 000
processes, deep nesting, an answer over the size cap. Each client exits normally, prints no control
character it did not write itself, no 'nan', no absurd duration, and run still reports its job."""
import http.server
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

GPUWATCH = os.path.abspath(os.environ.get("GPUWATCH", "build/gpuwatch"))
SRC = os.environ.get("GW_SOURCE_DIR", os.getcwd())
SCEN = os.path.join(SRC, "tests", "scenarios", "run-topo.yaml")
TMP = tempfile.TemporaryDirectory(prefix="gw-hostile-")
failures = []

ESC = "\\u001b[2J\\u001b]0;pwned\\u0007\\u009b31m\udcff\udcfe"  # JSON escapes, a C1 CSI, and bytes that are not UTF-8
FAR = 9.2e12  # seconds: the year 293 000
BAD_DATE = "9999-12-31T23:59:59Z"


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, detail[-3000:]), file=sys.stderr)
    else:
        print("ok - %s" % what)
    return cond


def sim_uuids():
    out = subprocess.run([GPUWATCH, "--sim", SCEN, "list"], capture_output=True, text=True, timeout=30).stdout
    return re.findall(r"UUID: (GPU-[0-9a-f-]+)", out)


UUIDS = sim_uuids()


def gpus_answer(mode):
    gpus = []
    for i, uuid in enumerate(UUIDS):
        gpus.append('{"index":%d,"name":"H100 %s","uuid":"%s","pci.bus_id":"%s","lost":false,"stale":false,'
                    '"timestamp":%s,"metrics":{"temperature.gpu":1e400,"utilization.gpu":%s,'
                    '"power.draw":-1e400,"memory.used":1e300,"memory.total":81559,'
                    '"clocks_event_reasons.hw_thermal_slowdown":true}}'
                    % (i, ESC, uuid, ESC, FAR if mode == "far" else time.time(), 50 + i))
    # entries no client may take: indexes out of range, repeated, not numbers
    for bad in ("99", "-1", "1e300", "0.5", '"0"', "0"):
        gpus.append('{"index":%s,"name":"ghost %s","uuid":"GPU-ghost","timestamp":%s}' % (bad, ESC, FAR))
    return ('{"backend_up":true,"simulated":true,"hostname":"evil%s","driver_version":"590%s",'
            '"interval_seconds":1e400,"gpus":[%s]}' % (ESC, ESC, ",".join(gpus)))


def processes_answer():
    procs = ['{"gpu":%d,"pid":%d,"type":"C","name":"py%s","command":"python3 %s","user":"u%s","container":"%s",'
             '"memory_mib":1e400,"sm_util":1e9,"start_time":%s}' % (i % 9, 1000 + i, ESC, ESC, ESC, ESC, FAR)
             for i in range(5000)]
    return '{"processes":[%s]}' % ",".join(procs)


def findings_answer():
    one = ('{"detector":"thermal","severity":"critical","gpus":[0,99,-1,1e300],"pids":[0,7],"from":"%s",'
           '"to":"%s","summary":"hot %s","evidence":{"k%s":"%s","seconds":1e400,"peak_c":91},'
           '"advice":["cool %s"],"signal":{"metric":"temperature.gpu%s","unit":"C","gpu":77,"from":"%s",'
           '"to":"%s","values":[1e39,-1e400,90,91]}}' % (BAD_DATE, BAD_DATE, ESC, ESC, ESC, ESC, ESC, BAD_DATE,
                                                         BAD_DATE))
    return '{"from":"%s","to":"%s","findings":[%s]}' % (BAD_DATE, BAD_DATE, ",".join([one] * 20000))


def alerts_answer():
    a = ('{"labels":{"alertname":"Hot%s","severity":"critical%s"},"annotations":{"summary":"GPU %s hot"},'
         '"state":"firing","activeAt":"%s","value":1e400}' % (ESC, ESC, ESC, BAD_DATE))
    return '{"status":"success","data":{"alerts":[%s]}}' % ",".join([a] * 1000)


def samples_answer():
    pts = ",".join("[%s,%d]" % (FAR + i, i) for i in range(2000))
    series = ",".join('{"gpu":%s,"samples":[%s]}' % (g, pts) for g in ("0", "1", "77", "-1", "0"))
    return '{"metric":"utilization.gpu","series":[%s]}' % series


class Agent(http.server.BaseHTTPRequestHandler):
    mode = "far"

    def log_message(self, *a):
        pass

    def do_GET(self):
        path = self.path.split("?")[0]
        if Agent.mode == "nested":
            body = '{"gpus":' + "[" * 200000 + "]" * 200000 + "}"
        elif Agent.mode == "huge":
            body = '{"gpus":[' + ",".join(["0"] * 9000000) + "]}"  # 18 MB: over the 16 MiB cap
        elif path == "/api/v1/gpus":
            body = gpus_answer(Agent.mode)
        elif path == "/api/v1/processes":
            body = processes_answer()
        elif path == "/api/v1/findings":
            body = findings_answer()
        elif path == "/api/v1/alerts":
            body = alerts_answer()
        elif path == "/api/v1/samples":
            body = samples_answer()
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = body.encode("utf-8", "surrogateescape") if isinstance(body, str) else body
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def clean(text):
    """No escape, C1 or BEL from the agent, no 'nan', no duration of a billion seconds or more."""
    bad = [c for c in text if c in "\x1b\x07\x9b"]
    if bad:
        return "control characters %r" % bad[:5]
    if re.search(r"\bnan\b", text, re.I):
        return "'nan'"
    if re.search(r"\b\d{10,} ?s\b", text):
        return "an absurd duration"
    return ""


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Agent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host = "127.0.0.1:%d" % server.server_address[1]
    env = dict(os.environ, GPUWATCH_HISTORY_DB=os.path.join(TMP.name, "h.db"),
               GPUWATCH_LOCK_DIR=os.path.join(TMP.name, "locks"))
    os.makedirs(os.path.join(TMP.name, "locks"))

    for mode in ("far", "now"):
        Agent.mode = mode
        p = subprocess.run([GPUWATCH, "top", "--once", "--host", host], capture_output=True, timeout=120, env=env)
        out = p.stdout.decode("utf-8", "replace") + p.stderr.decode("utf-8", "replace")
        check(p.returncode == 0, "top --host --once against hostile answers (%s times) exits 0 (got %d)"
              % (mode, p.returncode), out)
        check(not clean(out), "top --host --once prints nothing hostile (%s times): %s" % (mode, clean(out)), out)
        check("evil?[2J" in out and "H100 ?[2J" in out, "the agent's host and GPU names are shown, cleaned", out)
        check("ghost" not in out, "GPUs with bad indexes are left out", out)

        p = subprocess.run([GPUWATCH, "diagnose", "--host", host], capture_output=True, timeout=120, env=env)
        out = p.stdout.decode("utf-8", "replace") + p.stderr.decode("utf-8", "replace")
        check(p.returncode in (0, 1) and p.returncode >= 0, "diagnose --host exits normally (got %d)" % p.returncode,
              out)
        check(not clean(out), "diagnose --host prints nothing hostile: %s" % clean(out), out)
        check(out.count("hot ?[2J") <= 1024, "diagnose --host keeps at most 1024 findings", out[:2000])
        p = subprocess.run([GPUWATCH, "diagnose", "--host", host, "--format", "json"], capture_output=True,
                           timeout=120, env=env)
        try:
            n = len(json.loads(p.stdout)["findings"])
        except (ValueError, KeyError) as e:
            n = -1
            print(e, p.stdout[:300], p.stderr[:300], file=sys.stderr)
        check(0 < n <= 1024, "diagnose --host --format json: the findings capped (%d)" % n)

    Agent.mode = "far"
    job = [GPUWATCH, "--sim", SCEN, "run", "--agent", host, "--json", os.path.join(TMP.name, "run.json"),
           "--", "sh", "-c", "sleep 2.5; echo done"]
    p = subprocess.run(job, capture_output=True, timeout=180, env=env)
    out = p.stdout.decode("utf-8", "replace") + p.stderr.decode("utf-8", "replace")
    check(p.returncode == 0, "run --agent HOSTILE exits with the job's status (got %d)" % p.returncode, out)
    check("from the agent" in out or host in out, "run read the hostile agent", out)
    check(not clean(out), "run prints nothing hostile: %s" % clean(out), out)
    try:
        with open(os.path.join(TMP.name, "run.json")) as f:
            report = json.load(f)
        check(report["job"]["exit_status"] == 0, "run's JSON report is written and loads")
    except (OSError, ValueError, KeyError) as e:
        check(False, "run's JSON report is written and loads: %s" % e)

    for mode, what in (("nested", "nested 200 000 levels"), ("huge", "an 18 MB answer")):
        Agent.mode = mode
        for cmd in (["top", "--once", "--host", host], ["diagnose", "--host", host]):
            p = subprocess.run([GPUWATCH] + cmd, capture_output=True, timeout=120, env=env)
            err = p.stderr.decode("utf-8", "replace")
            check(p.returncode == 1 and ("nested" in err or "bytes" in err),
                  "%s: %s is refused with a reason (exit %d)" % (cmd[0], what, p.returncode), err)
    server.shutdown()
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        sys.exit(1)


main()
