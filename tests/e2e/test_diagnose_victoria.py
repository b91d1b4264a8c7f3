"""test_diagnose_victoria.py - `gpuwatch diagnose --prometheus` against a real VictoriaMetrics fed
by part 1's remote write: the four hosts of test_diagnose_prometheus.py (tests/scenarios/fleet_*.yaml,
sampled every 250 ms) push their series, each agent naming itself with an `instance` external
label; VictoriaMetrics' Prometheus query API then answers the same queries, and each planted
problem is found on its host and GPU, nothing on the healthy host."""
import json
import tempfile
import time
import urllib.parse
import urllib.request
from agentlib import need_gpusim, wait_for
import fleetlib
import rwlib
from skiplib import need_command

need_gpusim()
need_command("victoria-metrics", "victoria-metrics")

tmp = tempfile.TemporaryDirectory(prefix="gw-fleetdiag-vm-")
vm = rwlib.Victoria(tmp.name)
agents = {}
try:
    agents = fleetlib.start_agents(lambda role: """remote_write:
  external_labels: {instance: node-%s}
  endpoints:
    - url: %s
      protocol: "1.0"
      queue_config: {batch_send_deadline: 500ms}
""" % (role, vm.url))
    for a in agents.values():
        a.wait_sampled()
    t_start = time.time()
    api = "http://127.0.0.1:%d" % vm.port

    def points():
        urllib.request.urlopen(api + "/internal/force_flush", timeout=10).read()
        q = urllib.parse.urlencode({"query": "min(count_over_time(gpuwatch_utilization_ratio[2m]))"})
        with urllib.request.urlopen(api + "/api/v1/query?" + q, timeout=10) as r:
            d = json.loads(r.read())
        res = d.get("data", {}).get("result") or []
        return res and float(res[0]["value"][1]) >= 180
    wait_for("45 s of samples of every GPU in VictoriaMetrics", points, timeout=240, step=1)
    since = "%ds" % (time.time() - t_start + 5)
    rep = fleetlib.report(api, since, fleetlib.thresholds(tmp.name))
    fleetlib.check_planted(rep, lambda role: "node-" + role, "victoria")
finally:
    for a in agents.values():
        a.stop()
    vm.stop()
    tmp.cleanup()
print("PASS")
