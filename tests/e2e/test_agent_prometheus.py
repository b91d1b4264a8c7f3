"""test_agent_prometheus.py - a real Prometheus server scrapes the agent (1 s) at least three times;
its HTTP API then returns DCGM_FI_DEV_GPU_TEMP and a native series with the scenario's values and labels."""
import json
import os
import shutil
import subprocess
import tempfile
import urllib.parse
import urllib.request
from agentlib import Agent, check, fail, free_port, need_gpusim, scenario, wait_for
from skiplib import need_command

need_gpusim()
prometheus = need_command("prometheus", "prometheus")


a = Agent(scenario("agent_two.yaml"))
tmp = tempfile.TemporaryDirectory(prefix="gw-prom-")
prom = None
try:
    gpus = {g["index"]: g for g in a.wait_sampled(ngpus=2)["gpus"]}
    cfg = os.path.join(tmp.name, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                "scrape_configs:\n  - job_name: gpuwatch\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % a.port)
    pport = free_port()
    plog = open(os.path.join(tmp.name, "prometheus.log"), "w")
    prom = subprocess.Popen([prometheus, "--config.file=" + cfg, "--storage.tsdb.path=" + os.path.join(tmp.name, "data"),
                             "--web.listen-address=127.0.0.1:%d" % pport], stdout=plog, stderr=subprocess.STDOUT)

    def query(q):
        url = "http://127.0.0.1:%d/api/v1/query?%s" % (pport, urllib.parse.urlencode({"query": q}))
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                d = json.loads(r.read())
        except (OSError, ValueError):
            if prom.poll() is not None:
                fail("prometheus exited:\n" + open(os.path.join(tmp.name, "prometheus.log")).read())
            return None
        return d["data"]["result"] if d.get("status") == "success" else None

    def scraped_thrice():
        r = query('count_over_time(up{job="gpuwatch"}[1m])')
        return r and float(r[0]["value"][1]) >= 3 and r
    wait_for("three scrapes", scraped_thrice, timeout=45, step=0.5)
    up = query('up{job="gpuwatch"}')
    check(up and up[0]["value"][1] == "1", "target up: %r" % up)

    temps = query("DCGM_FI_DEV_GPU_TEMP")
    check(temps and len(temps) == 2, "DCGM_FI_DEV_GPU_TEMP: %r" % temps)
    for r in temps:
        lab = r["metric"]
        g = gpus[int(lab["gpu"])]
        check(float(r["value"][1]) == 61, "temperature %r" % r)
        check(lab["UUID"] == g["uuid"] and lab["modelName"] == g["name"] and lab["pci_bus_id"] == g["pci.bus_id"], "labels %r" % lab)
        check(lab["device"].startswith("nvidia") and lab["DCGM_FI_DRIVER_VERSION"] == "590.48.01" and lab["Hostname"], "labels %r" % lab)
        check(lab["job"] == "gpuwatch" and lab["instance"] == "127.0.0.1:%d" % a.port, "target labels %r" % lab)
    used = query("gpuwatch_memory_used_bytes")
    check(used and len(used) == 2 and all(float(r["value"][1]) == 12345 * 1048576 for r in used), "memory used %r" % used)
    check({r["metric"]["uuid"] for r in used} == {g["uuid"] for g in gpus.values()}, "native uuid labels %r" % used)
    joined = query("gpuwatch_power_draw_watts * on(gpu) group_left(name) gpuwatch_gpu_info")
    check(joined and len(joined) == 2 and all(float(r["value"][1]) == 350 and r["metric"]["name"] for r in joined),
          "info join %r" % joined)
    ratio = query("gpuwatch_utilization_ratio")
    check(ratio and all(abs(float(r["value"][1]) - 0.4) < 1e-9 for r in ratio), "ratio %r" % ratio)
finally:
    if prom:
        prom.terminate()
        try:
            prom.wait(timeout=15)
        except subprocess.TimeoutExpired:
            prom.kill()
            prom.wait()
    a.stop()
    tmp.cleanup()
print("PASS")
