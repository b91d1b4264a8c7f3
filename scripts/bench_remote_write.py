#!/usr/bin/env python3
"""bench_remote_write.py - gpuwatch's remote write beside what a user would run instead, in one run
on the same receiver (issue 23's targets):

  A  gpuwatch agent (defaults: 1 s, history on) with remote_write to the receiver
  B  gpuwatch agent (defaults, no remote_write) scraped every second by Prometheus in agent mode
     (--enable-feature=agent), which forwards with remote write to the same receiver

8 simulated GPUs (tests/scenarios/agent_bench8.yaml). Each sender goes through a TCP proxy that
counts the bytes both ways. Over BENCH_RW_SECONDS (120) of steady state: bytes on the wire per
sample (target A <= 0.5 x B), CPU of the node side (A: the agent; B: agent + Prometheus; target
<= 0.25 x), resident memory (target <= 0.25 x). Then the receiver is stopped for
BENCH_RW_OUTAGE (120) seconds and restarted: the share of the outage's samples each side delivered
(target: A complete where B is). Usage: scripts/bench_remote_write.py BUILD_DIR"""
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
gw = os.environ.get("GPUWATCH", os.path.join(build, "gpuwatch"))
steady = float(os.environ.get("BENCH_RW_SECONDS", "120"))
outage = float(os.environ.get("BENCH_RW_OUTAGE", "120"))
scenario = os.path.join(src, "tests", "scenarios", "agent_bench8.yaml")
tmp = tempfile.mkdtemp(prefix="gw-bench-rw-")
procs = []


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def start(cmd, log, env=None):
    p = subprocess.Popen(cmd, stdout=open(os.path.join(tmp, log), "w"), stderr=subprocess.STDOUT, env=env)
    procs.append(p)
    return p


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def wait_http(url, what, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            get(url, 2)
            return
        except OSError:
            time.sleep(0.2)
    sys.exit("bench_remote_write: %s is not answering" % what)


def metric(url, name, **labels):
    for line in get(url).splitlines():
        if not line.startswith(name):
            continue
        rest = line[len(name):]
        if rest[:1] not in ("{", " "):
            continue
        if all('%s="%s"' % (k, v) in rest for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return None


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0


class Counter:
    """A TCP proxy to the receiver counting every byte both ways."""

    def __init__(self, target_port):
        self.target = target_port
        self.port = free_port()
        self.bytes = 0
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(asyncio.start_server(self._conn, "127.0.0.1", self.port))
        self.loop.run_forever()

    async def _pipe(self, r, w):
        try:
            while True:
                data = await r.read(65536)
                if not data:
                    break
                self.bytes += len(data)
                w.write(data)
                await w.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            w.close()

    async def _conn(self, r, w):
        try:
            ur, uw = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            w.close()
            return
        await asyncio.gather(self._pipe(r, uw), self._pipe(ur, w))


def receiver(port):
    d = os.path.join(tmp, "receiver")
    with open(os.path.join(tmp, "receiver.yml"), "w") as f:
        f.write("global:\n  scrape_interval: 1m\n")
    p = start(["prometheus", "--config.file=" + os.path.join(tmp, "receiver.yml"), "--storage.tsdb.path=" + d,
               "--web.listen-address=127.0.0.1:%d" % port, "--web.enable-remote-write-receiver"], "receiver.log")
    wait_http("http://127.0.0.1:%d/-/ready" % port, "the receiver")
    return p


def query(port, q, t):
    u = "http://127.0.0.1:%d/api/v1/query?%s" % (port, urllib.parse.urlencode({"query": q, "time": "%.3f" % t}))
    return json.loads(get(u, 60))["data"]["result"]


def main():
    for t in ("prometheus", "python3"):
        if not shutil.which(t):
            sys.exit("bench_remote_write: %s is missing (scripts/deps.sh bench)" % t)
    rport = free_port()
    rcv = receiver(rport)
    pa, pb = Counter(rport), Counter(rport)
    # A: the agent pushing
    aport = free_port()
    with open(os.path.join(tmp, "a.yaml"), "w") as f:
        f.write("remote_write:\n  external_labels: {sender: gpuwatch}\n  endpoints:\n"
                "    - url: http://127.0.0.1:%d/api/v1/write\n      name: bench\n" % pa.port)
    agent_a = start([gw, "--sim", scenario, "agent", "--listen", "127.0.0.1:%d" % aport, "--config",
                     os.path.join(tmp, "a.yaml"), "--db", os.path.join(tmp, "a.db"), "--log-level", "warn"], "a.log")
    # B: an agent scraped every second by Prometheus in agent mode
    bport, fport = free_port(), free_port()
    with open(os.path.join(tmp, "b.yaml"), "w") as f:
        f.write("interval: 1s\n")
    agent_b = start([gw, "--sim", scenario, "agent", "--listen", "127.0.0.1:%d" % bport, "--config",
                     os.path.join(tmp, "b.yaml"), "--db", os.path.join(tmp, "b.db"), "--log-level", "warn"], "b.log")
    with open(os.path.join(tmp, "fwd.yml"), "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  external_labels: {sender: prometheus}\n"
                "scrape_configs:\n  - job_name: gpuwatch\n    static_configs:\n      - targets: ['127.0.0.1:%d']\n"
                "remote_write:\n  - url: http://127.0.0.1:%d/api/v1/write\n" % (bport, pb.port))
    fwd = start(["prometheus", "--enable-feature=agent", "--config.file=" + os.path.join(tmp, "fwd.yml"),
                 "--storage.agent.path=" + os.path.join(tmp, "fwd"), "--web.listen-address=127.0.0.1:%d" % fport],
                "fwd.log")
    for port, what in ((aport, "agent A"), (bport, "agent B"), (fport, "Prometheus (agent mode)")):
        wait_http("http://127.0.0.1:%d/metrics" % port, what)
    print("warming up 30 s (rings, history, Prometheus' WAL)", flush=True)
    time.sleep(30)
    am = "http://127.0.0.1:%d/metrics" % aport
    fm = "http://127.0.0.1:%d/metrics" % fport
    sa0 = metric(am, "gpuwatch_remote_write_samples_total")
    sb0 = metric(fm, "prometheus_remote_storage_samples_total")
    ba0, bb0 = pa.bytes, pb.bytes
    ca0 = cpu_s(agent_a.pid)
    cg0 = cpu_s(agent_b.pid)
    cb0 = cg0 + cpu_s(fwd.pid)
    t0 = time.monotonic()
    time.sleep(steady)
    dt = time.monotonic() - t0
    sa = metric(am, "gpuwatch_remote_write_samples_total") - sa0
    sb = metric(fm, "prometheus_remote_storage_samples_total") - sb0
    ba, bb = pa.bytes - ba0, pb.bytes - bb0
    ca = (cpu_s(agent_a.pid) - ca0) / dt * 100
    cb = (cpu_s(agent_b.pid) + cpu_s(fwd.pid) - cb0) / dt * 100
    cg = (cpu_s(agent_b.pid) - cg0) / dt * 100
    ra, rb_agent, rb_fwd = rss_mb(agent_a.pid), rss_mb(agent_b.pid), rss_mb(fwd.pid)
    rb = rb_agent + rb_fwd
    print("steady state, %.0f s, 8 GPUs at 1 s:" % dt, flush=True)
    print("  samples/s      gpuwatch %.0f   prometheus agent %.0f" % (sa / dt, sb / dt))
    print("  bytes/s        gpuwatch %.0f   prometheus agent %.0f" % (ba / dt, bb / dt))
    ratio_b = (ba / sa) / (bb / sb)
    print("  bytes/sample   gpuwatch %.2f   prometheus agent %.2f   ratio %.3f (target <= 0.5)"
          % (ba / sa, bb / sb, ratio_b))
    print("  CPU (%% of a core)  gpuwatch agent %.3f   gpuwatch agent %.3f + prometheus agent %.3f = %.3f   ratio %.3f "
          "(target <= 0.25)" % (ca, cg, cb - cg, cb, ca / cb))
    print("  RSS (MB)       gpuwatch agent %.1f   gpuwatch agent %.1f + prometheus agent %.1f = %.1f   ratio %.3f "
          "(target <= 0.25)" % (ra, rb_agent, rb_fwd, rb, ra / rb))
    # the outage
    print("receiver stopped for %.0f s" % outage, flush=True)
    rcv.send_signal(signal.SIGTERM)
    rcv.wait()
    o0 = time.time()
    time.sleep(outage)
    o1 = time.time()
    rcv = receiver(rport)
    end = time.monotonic() + 600

    def caught_up():
        ha = metric(am, "gpuwatch_remote_write_queue_highest_sent_timestamp_seconds") or 0
        hb = metric(fm, "prometheus_remote_storage_queue_highest_sent_timestamp_seconds") or 0
        return ha >= o1 + 5 and hb >= o1 + 5
    while not caught_up() and time.monotonic() < end:
        time.sleep(2)
    time.sleep(5)
    span = int(o1 - o0)
    out = {}
    for sender in ("gpuwatch", "prometheus"):
        r = query(rport, 'count_over_time(DCGM_FI_DEV_GPU_TEMP{sender="%s"}[%ds])' % (sender, span), o1)
        out[sender] = sum(float(x["value"][1]) for x in r)
    expected = 8 * span  # one sample a second per GPU
    print("outage of %d s: DCGM_FI_DEV_GPU_TEMP samples of the outage in the receiver: gpuwatch %d (%.2f %%), "
          "prometheus agent %d (%.2f %%) of %d" % (span, out["gpuwatch"], 100 * out["gpuwatch"] / expected,
                                                   out["prometheus"], 100 * out["prometheus"] / expected, expected))
    resent = metric(am, "gpuwatch_remote_write_samples_resent_total")
    print("  gpuwatch resent from its history: %d samples; RSS after: gpuwatch agent %.1f MB, prometheus agent %.1f MB"
          % (resent or 0, rss_mb(agent_a.pid), rss_mb(fwd.pid)))


try:
    main()
finally:
    for p in procs:
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
    shutil.rmtree(tmp, ignore_errors=True)
