#!/usr/bin/env python3
"""bench_fleet_scale.py - a fleet on one machine (issue 24): N gpuwatch agents on gpusim (8 GPUs each
at 1 s, history on, distinct ephemeral ports), all pushing to one Prometheus by remote write
(mode push, the default) or all scraped by it every second (mode scrape). Over BENCH_FLEET_SECONDS
(60) of steady state: each agent's CPU (utime+stime from /proc, % of one core) and resident memory,
as the median and the worst of the N; the receiver's samples appended per second (its own
prometheus_tsdb_head_samples_appended_total) and its CPU and memory. Run it once, on a quiet
machine, and say under what load it ran (the load average is printed).
Usage: scripts/bench_fleet_scale.py BUILD_DIR [AGENTS] [push|scrape]"""
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
nagents = int(sys.argv[2]) if len(sys.argv) > 2 else 100
mode = sys.argv[3] if len(sys.argv) > 3 else "push"
src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
gw = os.environ.get("GPUWATCH", os.path.join(build, "gpuwatch"))
steady = float(os.environ.get("BENCH_FLEET_SECONDS", "60"))
scenario = os.path.join(src, "tests", "scenarios", "agent_bench8.yaml")
tmp = tempfile.mkdtemp(prefix="gw-bench-fleet-")
procs = []
HZ = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGESIZE")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def wait(cond, what, timeout=120):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if cond():
                return
        except OSError:
            pass
        time.sleep(0.2)
    sys.exit("bench_fleet_scale: %s did not happen within %d s (logs in %s)" % (what, timeout, tmp))


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def rss_mb(pid):
    with open("/proc/%d/statm" % pid) as f:
        return int(f.read().split()[1]) * PAGE / 1e6


def prom_value(port, query):
    body = json.loads(get("http://127.0.0.1:%d/api/v1/query?%s" % (port, urllib.parse.urlencode({"query": query}))))
    res = body["data"]["result"]
    return float(res[0]["value"][1]) if res else 0.0


def main():
    prom = shutil.which("prometheus")
    if not prom:
        sys.exit("bench_fleet_scale: Debian's prometheus is needed (scripts/deps.sh test)")
    pport = free_port()
    ports = [free_port() for _ in range(nagents)]
    targets = ", ".join('"127.0.0.1:%d"' % p for p in ports) if mode == "scrape" else ""
    with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
        f.write("global: {scrape_interval: 1s}\nscrape_configs:\n")
        f.write("  - job_name: self\n    static_configs: [{targets: ['127.0.0.1:%d']}]\n" % pport)
        if targets:
            f.write("  - job_name: gpu\n    static_configs: [{targets: [%s]}]\n" % targets)
    p = subprocess.Popen([prom, "--config.file=" + os.path.join(tmp, "prometheus.yml"),
                          "--storage.tsdb.path=" + os.path.join(tmp, "data"),
                          "--web.listen-address=127.0.0.1:%d" % pport, "--web.enable-remote-write-receiver"],
                         stdout=open(os.path.join(tmp, "prometheus.log"), "w"), stderr=subprocess.STDOUT)
    procs.append(p)
    wait(lambda: get("http://127.0.0.1:%d/-/ready" % pport) is not None, "Prometheus ready")
    agents = []
    for i, port in enumerate(ports):
        cfg = os.path.join(tmp, "agent%d.yaml" % i)
        with open(cfg, "w") as f:
            f.write("listen: \"127.0.0.1:%d\"\ninterval: 1s\nhistory: {path: \"%s\"}\n"
                    % (port, os.path.join(tmp, "h%d.db" % i)))
            if mode == "push":
                # one host's agents: each its own instance, as on its own machine
                f.write("remote_write:\n  external_labels: {instance: \"127.0.0.1:%d\"}\n  endpoints:\n"
                        "    - url: http://127.0.0.1:%d/api/v1/write\n" % (port, pport))
        env = dict(os.environ, GPUWATCH_RUNTIME_DIR=os.path.join(tmp, "run%d" % i))
        a = subprocess.Popen([gw, "--sim", scenario, "agent", "--config", cfg],
                             stdout=open(os.path.join(tmp, "agent%d.log" % i), "w"), stderr=subprocess.STDOUT, env=env)
        procs.append(a)
        agents.append(a)
    for port in ports:
        wait(lambda: get("http://127.0.0.1:%d/healthz" % port) is not None, "agent on %d answering" % port)
    appended = "prometheus_tsdb_head_samples_appended_total"
    wait(lambda: prom_value(pport, "count(count by (instance) (%s))" % (
        "gpuwatch_up" if mode == "scrape" else "DCGM_FI_DEV_GPU_UTIL")) >= nagents, "every agent's series in Prometheus",
         timeout=180)
    time.sleep(5)  # a few rounds past the start-up (resends of the first seconds, first compactions)
    t0 = time.monotonic()
    c0 = [cpu_ticks(a.pid) for a in agents]
    pc0 = cpu_ticks(p.pid)
    s0 = prom_value(pport, "sum(%s)" % appended)
    load0 = os.getloadavg()
    time.sleep(steady)
    dt = time.monotonic() - t0
    cpu = [100.0 * (cpu_ticks(a.pid) - c) / HZ / dt for a, c in zip(agents, c0)]
    rss = [rss_mb(a.pid) for a in agents]
    pcpu = 100.0 * (cpu_ticks(p.pid) - pc0) / HZ / dt
    s1 = prom_value(pport, "sum(%s)" % appended)
    series = prom_value(pport, "prometheus_tsdb_head_series")
    print("fleet on one machine: %d agents x 8 GPUs at 1 s (%s), %.0f s steady, load average %.2f -> %.2f, %d CPUs"
          % (nagents, "remote write to one Prometheus" if mode == "push" else "scraped every 1 s by one Prometheus",
             dt, load0[0], os.getloadavg()[0], os.cpu_count()))
    print("agent CPU, %% of one core: median %.3f, worst %.3f, all %d together %.1f"
          % (statistics.median(cpu), max(cpu), nagents, sum(cpu)))
    print("agent resident memory, MB: median %.1f, worst %.1f" % (statistics.median(rss), max(rss)))
    print("Prometheus: %.0f samples appended per second, %.0f head series, %.1f %% of a core, %.0f MB resident"
          % ((s1 - s0) / dt, series, pcpu, rss_mb(p.pid)))


try:
    main()
finally:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
    shutil.rmtree(tmp, ignore_errors=True)
