#!/usr/bin/env bash
# test_top_remote_sim.sh - `top --host` against a small fake agent (python3, stdlib): the SIMULATED
# GPUs banner when the agent says it runs on gpusim (a top-level "simulated": true, or the field on a
# GPU object), none when it does not; an agent's pending alert reads as pending; `k` and `t` refuse
# a remote pid; the agent's findings (/api/v1/findings: the JSON `gpuwatch diagnose --format json`
# writes, made here by a gpusim replay) in --once and on the screen, with the mark on the GPU's
# line, and an agent that does not diagnose (404) said as such.
. "$(dirname "$0")/top_lib.sh"

cat > "$WORK/agent.py" <<'PY'
import http.server, json, sys, time

work = sys.argv[1]
findings = open(work + "/findings.json", "rb").read()

def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".000Z"

class Agent(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        mode = open(work + "/mode").read().strip()
        path = self.path.split("?")[0]
        gpu = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-fake", "lost": False, "stale": False,
               "timestamp": time.time(),
               "metrics": {"utilization.gpu": 55, "memory.used": 1024, "memory.total": 81559,
                           "temperature.gpu": 61, "gpm.tensor_active": None}}
        if path == "/api/v1/gpus":
            body = {"backend_up": True, "hostname": "simhost", "driver_version": "590.48.01", "gpus": [gpu]}
            if mode == "top":
                body["simulated"] = True
            if mode == "gpu":
                gpu["simulated"] = True
            if mode == "none":
                gpu["simulated"] = False
        elif path == "/api/v1/processes":
            body = {"processes": [{"gpu": 0, "pid": 4242, "name": "remote-trainer", "user": "alice",
                                   "memory_mib": 2048, "type": "C"}]}
        elif path == "/api/v1/findings":
            if open(work + "/findings").read().strip() == "404":
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(findings)))
            self.end_headers()
            self.wfile.write(findings)
            return
        elif path == "/api/v1/alerts":
            body = {"status": "success", "data": {"alerts": [
                {"labels": {"alertname": "GPUHot", "severity": "critical"},
                 "annotations": {"summary": "GPU 0 is hot"}, "state": "pending",
                 "activeAt": iso(time.time() - 30)}]}}
        else:
            self.send_response(404)
            self.end_headers()
            return
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass

srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Agent)
open(work + "/port.tmp", "w").write(str(srv.server_address[1]))
import os
os.rename(work + "/port.tmp", work + "/port")
srv.serve_forever()
PY
# The findings of GPU 0's input stall, as an agent would serve them (the replay's GPU 0 only: the fake
# agent has one GPU).
"$GPUWATCH" --sim "$GW_SOURCE_DIR/sim/scenarios/data-pipeline-stall.yaml" diagnose --replay 3m --gpu 0 \
  --format json > "$WORK/findings.json" 2>"$WORK/diagnose.err" || { cat "$WORK/diagnose.err" >&2; fail "diagnose --replay"; }
grep -q '"input_stall"' "$WORK/findings.json" || fail "the replay found no input stall: $(cat "$WORK/findings.json")"
echo json > "$WORK/findings"
echo top > "$WORK/mode"
python3 "$WORK/agent.py" "$WORK" 2>"$WORK/agent.err" &
agent=$!
trap 'kill $agent 2>/dev/null; cleanup' EXIT
for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
[ -s "$WORK/port" ] || { cat "$WORK/agent.err" >&2; fail "fake agent did not start"; }
host="127.0.0.1:$(cat "$WORK/port")"

out=$("$GPUWATCH" top --once --host "$host") || fail "--once exited $?: $out"
echo "$out" | grep -q "SIMULATED GPUs" || fail "no banner for a simulated agent (top-level field): $out"
echo "$out" | grep -Eq "^0 +NVIDIA H100 80GB HBM3 +55%" || fail "remote GPU line: $out"
echo "$out" | grep -Eq "^pending CRIT GPUHot \(pending for [0-9]+s, not firing yet\): GPU 0 is hot" || fail "pending alert: $out"
echo "$out" | grep -q "tensor" && fail "a null GPM metric was shown: $out"
echo gpu > "$WORK/mode"
"$GPUWATCH" top --once --host "$host" | grep -q "SIMULATED GPUs" || fail "no banner for a simulated GPU object"
echo none > "$WORK/mode"
"$GPUWATCH" top --once --host "$host" | grep -q "SIMULATED GPUs" && fail "banner for an agent on real GPUs"
ok "--once: SIMULATED banner from the agent's simulated field"

out=$("$GPUWATCH" top --once --host "$host") || fail "--once exited $?"
echo "$out" | grep -Eq "^WARN input_stall  GPU 0  since [0-9:]{5} \([0-9]+m\)  GPU 0 waits for input \(pid 15100" ||
  fail "--once: the agent's finding: $out"
echo "$out" | grep -Eq "^    ⚠ input stall \(period 6 s\)" || fail "--once: the finding under GPU 0: $out"
echo 404 > "$WORK/findings"
out=$("$GPUWATCH" top --once --host "$host") || fail "--once exited $?"
echo "$out" | grep -q "^the agent does not diagnose (404 on /api/v1/findings" || fail "--once: 404 not said: $out"
echo json > "$WORK/findings"
ok "--once: the agent's findings, and an agent that does not diagnose"

echo top > "$WORK/mode"
start r 100 30 top --host "$host"
wait_for r " SIMULATED GPUs "
wait_for r "remote-trainer"
keys r k
wait_for r "SIGTERM not sent: pid 4242 runs on the remote host"
keys r t
wait_for r "process tree: only for this machine's processes"
ok "live screen: banner; no signal and no tree for a remote pid"
wait_for r "^WARN input_stall  GPU 0  since"
wait_for r "^    ⚠ input stall \(period 6 s\)"
keys r f Enter
wait_for r "^FINDING 1 of 1: WARN input_stall"
wait_for r "Give the DataLoader more workers"
keys r Escape f
quit r
ok "live screen: the agent's finding, its mark, its evidence and advice"
echo 404 > "$WORK/findings"
start n 100 30 top --host "$host"
wait_for n "FINDINGS the agent does not diagnose \(404 on /api/v1/findings"
quit n
ok "live screen: an agent that does not diagnose"
