"""test_agent_metrics.py - `gpuwatch agent` on gpusim: /metrics passes promtool and carries the
scenario's values; the JSON API, /healthz, errors (400/404/405), SIGHUP reload and a clean stop."""
import json
import os
import shutil
import signal
import subprocess
import time
import sys
from agentlib import Agent, check, fail, need_gpusim, parse_metrics, scenario, series, wait_for
from skiplib import exit_status, skip_part

need_gpusim()
a = Agent(scenario("agent_two.yaml"), config="exporter:\n  process_series_limit: 10\n")
try:
    gpus = a.wait_sampled(ngpus=2)
    st, hdr, text = a.request("/metrics")
    check(st == 200, "/metrics status %d" % st)
    check(hdr.get("Content-Type", "").startswith("text/plain; version=0.0.4"), "content type %r" % hdr.get("Content-Type"))

    # promtool must accept the page (it reads the text format on stdin)
    promtool = shutil.which("promtool")
    if promtool is None:
        skip_part("promtool is not installed (Debian package prometheus; scripts/deps.sh test installs it)")
    else:
        # dcgm-exporter's own names and labels (camelCase labels, counters without _total) are kept for
        # compatibility; promtool's lint complains about exactly those and nothing else.
        dcgm_style = ("label names should be written in 'snake_case' not 'camelCase'",
                      'counter metrics should have "_total" suffix', "metric name should not include type 'counter'")
        p = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True)
        for line in (p.stdout + p.stderr).splitlines():
            check(line.startswith("DCGM_") and line.endswith(dcgm_style), "promtool check metrics: " + line)
        # the native series must pass promtool without any complaint
        native = "".join(l + "\n" for l in text.splitlines() if "DCGM_" not in l)
        p = subprocess.run([promtool, "check", "metrics"], input=native, capture_output=True, text=True)
        check(p.returncode == 0, "promtool check metrics (native series) failed:\n%s%s" % (p.stdout, p.stderr))

    m = parse_metrics(text)
    info = {g["index"]: g for g in gpus["gpus"]}
    check(gpus["simulated"] is True, "/api/v1/gpus says the GPUs are simulated")
    for gpu in ("0", "1"):
        t = series(m, "DCGM_FI_DEV_GPU_TEMP", gpu=gpu)
        check(len(t) == 1 and t[0][2] == 61, "DCGM_FI_DEV_GPU_TEMP gpu %s: %r" % (gpu, t))
        lab = t[0][1]
        g = info[int(gpu)]
        check(lab["UUID"] == g["uuid"] and lab["pci_bus_id"] == g["pci.bus_id"] and lab["modelName"] == g["name"],
              "dcgm labels %r vs %r" % (lab, g))
        check(lab["device"].startswith("nvidia") and lab["Hostname"] and lab["DCGM_FI_DRIVER_VERSION"] == "590.48.01",
              "dcgm labels %r" % lab)
        fb = series(m, "DCGM_FI_DEV_FB_USED", gpu=gpu)
        check(len(fb) == 1 and fb[0][2] == 12345, "DCGM_FI_DEV_FB_USED: %r" % fb)
        nb = series(m, "gpuwatch_memory_used_bytes", gpu=gpu)
        check(len(nb) == 1 and nb[0][2] == 12345 * 1048576, "gpuwatch_memory_used_bytes: %r" % nb)
        ut = series(m, "gpuwatch_utilization_ratio", gpu=gpu)
        check(len(ut) == 1 and abs(ut[0][2] - 0.40) < 1e-9, "gpuwatch_utilization_ratio: %r" % ut)
        gi = series(m, "gpuwatch_gpu_info", gpu=gpu)
        check(len(gi) == 1 and gi[0][1]["uuid"] == g["uuid"] and gi[0][1]["name"] == g["name"], "gpu_info %r" % gi)
        check(gi[0][1].get("simulated") == "true" and g["simulated"] is True, "simulated GPU %s said so: %r" % (gpu, gi))
        check(series(m, "gpuwatch_gpu_lost", gpu=gpu)[0][2] == 0, "gpu_lost")
        check(series(m, "gpuwatch_gpu_stale", gpu=gpu)[0][2] == 0, "gpu_stale")
        age = series(m, "gpuwatch_sample_age_seconds", gpu=gpu)
        check(len(age) == 1 and 0 <= age[0][2] < 3, "sample age %r" % age)
    check(series(m, "gpuwatch_up")[0][2] == 1, "gpuwatch_up")
    check(series(m, "gpuwatch_simulated")[0][2] == 1, "gpuwatch_simulated 1 on gpusim")
    pm = series(m, "gpuwatch_process_memory_bytes", pid="4242")
    check(len(pm) == 2 and all(s[2] == 2048 * 1048576 for s in pm), "process memory %r" % pm)
    check(text.count("# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n") == 1, "TYPE once")

    # JSON API
    g0 = gpus["gpus"][0]
    check(g0["metrics"]["temperature.gpu"] == 61 and g0["metrics"]["memory.used"] == 12345, "gpus json %r" % g0["metrics"])
    check(g0["lost"] is False and g0["stale"] is False, "flags")
    procs = a.get_json("/api/v1/processes")["processes"]
    check(sorted(p["gpu"] for p in procs if p["pid"] == 4242) == [0, 1], "processes %r" % procs)
    time.sleep(1.2)
    s = a.get_json("/api/v1/samples?gpu=1&metric=temperature.gpu&since=1m")
    check(s["metric"] == "temperature.gpu" and len(s["series"]) == 1 and s["series"][0]["gpu"] == 1, "samples %r" % s)
    pts = s["series"][0]["samples"]
    check(len(pts) >= 2 and all(v == 61 for _, v in pts), "samples %r" % pts)
    check(all(pts[i][0] < pts[i + 1][0] for i in range(len(pts) - 1)), "samples in time order")
    since = pts[-1][0] - 0.5  # every GPU was sampled within the last interval
    s2 = a.get_json("/api/v1/samples?metric=memory.used&since=%f" % since)
    check(len(s2["series"]) == 2 and all(len(x["samples"]) >= 1 for x in s2["series"]), "since unix %r" % s2)
    check(a.get_json("/api/v1/samples?metric=memory.used&since=%f" % (since + 3600))["series"][0]["samples"] == [],
          "since in the future")

    st, _, body = a.request("/healthz")
    check(st == 200 and body.strip() == "ok", "healthz %d %r" % (st, body))
    st, hdr, body = a.request("/")
    check(st == 200 and "/metrics" in body and g0["uuid"] in body, "index page")
    for path, want in (("/nope", 404), ("/metrics/x", 404), ("/api/v1/samples", 400),
                       ("/api/v1/samples?metric=temperature.gpu&since=yesterday", 400),
                       ("/api/v1/samples?metric=temperature.gpu&since=nan", 400),
                       ("/api/v1/samples?metric=temperature.gpu&since=inf", 400),
                       ("/api/v1/samples?metric=temperature.gpu&since=1e300", 400),
                       ("/api/v1/samples?metric=temperature.gpu&gpu=7", 400),
                       ("/api/v1/samples?metric=name", 400)):
        st, hdr, body = a.request(path)
        check(st == want, "%s: status %d, want %d" % (path, st, want))
        check("error" in json.loads(body), "%s: JSON error body %r" % (path, body))
    st, hdr, _ = a.request("/metrics", method="POST")
    check(st == 405 and "GET" in hdr.get("Allow", ""), "POST /metrics: %d %r" % (st, hdr))
    st, _, body = a.request("/metrics", method="HEAD")
    check(st == 200, "HEAD /metrics %d" % st)

    # SIGHUP: only dcgm series, and only two of them
    with open(a.config, "w") as f:
        f.write("exporter:\n  series: dcgm\n  metrics: [DCGM_FI_DEV_GPU_TEMP, memory.used]\nlog:\n  level: debug\n")
    a.signal(signal.SIGHUP)

    def reloaded():
        names = {s[0] for s in parse_metrics(a.request("/metrics")[2])}
        return names if "gpuwatch_memory_used_bytes" not in names else None
    names = wait_for("the reload", reloaded)
    check("DCGM_FI_DEV_GPU_TEMP" in names and "DCGM_FI_DEV_FB_USED" in names, "after reload %r" % names)
    check("DCGM_FI_DEV_POWER_USAGE" not in names and "gpuwatch_temperature_celsius" not in names, "filtered %r" % names)
    check("gpuwatch_up" in names, "health stays %r" % names)
    # a broken config is refused and the old one kept
    with open(a.config, "w") as f:
        f.write("exporter:\n  series: everything\n")
    a.signal(signal.SIGHUP)
    wait_for("the refused reload", lambda: "reload failed" in a.logs())
    check("DCGM_FI_DEV_GPU_TEMP" in a.request("/metrics")[2], "old config kept")
    # basic auth switched on by a reload
    h = subprocess.run([os.environ.get("GPUWATCH", "build/gpuwatch"), "agent", "--hash-password", "pw"],
                       capture_output=True, text=True, timeout=20).stdout.strip()
    with open(a.config, "w") as f:
        f.write("basic_auth_users:\n  u: '%s'\n" % h)
    a.signal(signal.SIGHUP)
    wait_for("auth after reload", lambda: a.request("/metrics")[0] == 401)
    check(a.request("/metrics", headers={"Authorization": "Basic dTpwdw=="})[0] == 200, "u:pw accepted")
finally:
    logs = a.stop()
check('msg="listening" addr=127.0.0.1:' in logs, "listening log line")
check('msg="configuration reloaded"' in logs, "reload logged")
check("gpuwatch.yaml:2:11: exporter.series" in logs, "reload error with line numbers: " + logs)

# the backend missing: the agent still serves, /healthz says why
b = Agent(None, env={"GPUWATCH_NVML_LIB": "/nonexistent/libnvidia-ml.so.1"})
try:
    st, _, body = b.request("/healthz")
    check(st == 503 and "backend down" in body, "healthz without backend: %d %r" % (st, body))
    m = parse_metrics(b.request("/metrics")[2])
    check(series(m, "gpuwatch_up")[0][2] == 0, "gpuwatch_up 0")
    check(not [s for s in m if s[0].startswith("DCGM_")], "no GPU series without a backend")
finally:
    b.stop()

# an explicit missing config file is an error
p = subprocess.run([os.environ.get("GPUWATCH", "build/gpuwatch"), "agent", "--config", "/nonexistent.yaml"],
                   capture_output=True, text=True, timeout=20)
check(p.returncode == 1 and "/nonexistent.yaml" in p.stderr, "missing --config: %d %r" % (p.returncode, p.stderr))
print("PASS")
sys.exit(exit_status(0))
