"""test_history_agent.py - the agent on gpusim records its samples into the history: the file reads
back what the agent sampled (values and timestamps), events and per-process series are there,
/api/v1/query_range answers; then kill -9 three times: integrity_check passes, what the flushes
wrote is all there after the kill, and the flushes keep up with the sampling (each sample the agent
had reaches the file at a later flush). The kill comes right after a flush was seen to cover the
agent's samples, so no check depends on how fast the flusher runs on this machine."""
import csv
import io
import os
import signal
import sqlite3
import struct
import subprocess
import tempfile
from agentlib import Agent, GPUWATCH, check, need_gpusim, scenario, wait_for

need_gpusim()
CONFIG = "history:\n  flush_interval: 1s\n"
SCEN = scenario("history-agent.yaml")


def history_csv(db, metric, *extra):
    p = subprocess.run([GPUWATCH, "history", "--db", db, "--metric", metric, "--since", "1h", "--format", "csv"]
                       + list(extra), capture_output=True, text=True, timeout=30)
    if p.returncode == 1 and "gpuwatch: no data: " in p.stderr and not p.stdout:
        return []  # nothing flushed yet: "no data" on stderr and exit status 1
    check(p.returncode == 0, "gpuwatch history: %s" % p.stderr)
    return list(csv.DictReader(io.StringIO(p.stdout)))


def recorded(db, metric, gpu):
    """{t_us: value} of one GPU's metric in the history file."""
    return recorded_all(db, metric).get((metric, gpu), {})


def recorded_all(db, metrics):
    """{(metric, gpu): {t_us: value}} for a comma list of metrics, every GPU, in one command."""
    out = {}
    for r in history_csv(db, metrics):
        out.setdefault((r["metric"], int(r["gpu"])), {})[round(float(r["unix_seconds"]) * 1e6)] = float(r["value"])
    return out


def ring(agent, metric, gpu):
    """[(t_us, value)] the agent sampled (its ring), values None when absent."""
    d = agent.get_json("/api/v1/samples?metric=%s&gpu=%d" % (metric, gpu))
    return [(round(t * 1e6), v) for t, v in d["series"][0]["samples"]]


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def same(recorded_value, ring_value):
    """The ring and the history both keep the sampled double (src/core/ring.c codes it exactly); the
    float match dates from when the ring stored gauges as floats."""
    return recorded_value == float(ring_value) or f32(recorded_value) == float(ring_value)


def integrity_ok(db):
    c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        c.close()


# ---- round trip ----
a = Agent(SCEN, config=CONFIG, args=["--interval", "250ms"])
db = a.db
try:
    a.wait_sampled(ngpus=2)
    wait_for("GPU 0 at 90 % in the history", lambda: 90.0 in recorded(db, "utilization.gpu", 0).values(),
             timeout=40, step=0.5)
    wait_for("GPU 1 back in the history",
             lambda: "gpu_back" in subprocess.run([GPUWATCH, "events", "--db", db, "--since", "1h"],
                                                  capture_output=True, text=True).stdout, timeout=40, step=0.5)
    METRICS = ("utilization.gpu", "temperature.gpu", "power.draw", "memory.used", "clocks_event_reasons.active")
    all_rec = recorded_all(db, ",".join(METRICS))
    for metric in METRICS:
        for gpu in (0, 1):
            rec = all_rec.get((metric, gpu), {})
            sampled = [(t, v) for t, v in ring(a, metric, gpu) if t <= max(rec, default=0)]
            check(len(sampled) >= 10, "%s gpu %d: only %d samples" % (metric, gpu, len(sampled)))
            for t, v in sampled:
                if v is None:
                    check(t not in rec, "%s gpu %d: absent at %d but recorded %r" % (metric, gpu, t, rec.get(t)))
                else:
                    check(t in rec and same(rec[t], v),
                          "%s gpu %d at %d: sampled %r, recorded %r" % (metric, gpu, t, v, rec.get(t)))
    check(set(all_rec[("utilization.gpu", 0)].values()) <= {10.0, 50.0, 90.0}, "GPU 0 steps")
    check(set(all_rec[("temperature.gpu", 0)].values()) == {55.0}, "GPU 0 temperature")
    check(set(all_rec[("power.draw", 0)].values()) == {400.25}, "GPU 0 power")
    ev = subprocess.run([GPUWATCH, "events", "--db", db, "--since", "1h", "--gpu", "1", "--format", "json"],
                        capture_output=True, text=True).stdout
    check('"xid=79"' in ev and '"gpu_lost"' in ev and '"gpu_back"' in ev, "events of GPU 1: %s" % ev)
    procs = history_csv(db, "memory.used", "--pid", "4242")
    check(procs and all(float(r["value"]) == 12000 and r["pid"] == "4242" for r in procs), "process series %r" % procs[:3])
    q = a.get_json("/api/v1/query_range?metric=temperature.gpu&gpu=0&start=-10m&step=1s")
    vals = q["data"]["result"][0]["values"]
    check(q["status"] == "success" and vals and all(v == "55" for _, v in vals), "query_range %r" % q)
    st, _, body = a.request("/api/v1/query_range?metric=nope")
    check(st == 400 and "unknown" in body, "query_range bad metric: %d %s" % (st, body))
    for bad in ("start=nan", "start=inf", "end=1e300", "start=-1e300s", "step=nan", "step=1e400s"):
        st, _, body = a.request("/api/v1/query_range?metric=temperature.gpu&" + bad)
        check(st == 400, "query_range %s: %d %s" % (bad, st, body))
    st, _, body = a.request("/metrics")
    check("gpuwatch_history_writable 1" in body, "history series on /metrics")
finally:
    a.stop()

# ---- kill -9, three times, on one file ----
work = tempfile.TemporaryDirectory(prefix="gw-hist-kill-")
db = os.path.join(work.name, "history.db")
for round_no in range(3):
    a = Agent(SCEN, config=CONFIG, args=["--interval", "250ms", "--db", db])
    a.wait_sampled(ngpus=2)
    before = len(recorded(db, "utilization.gpu", 0)) if os.path.exists(db) else 0
    wait_for("new samples in the history", lambda: len(recorded(db, "utilization.gpu", 0)) >= before + 8,
             timeout=60, step=0.5)
    sampled = [t for t, v in ring(a, "utilization.gpu", 0) if v is not None]
    # a flush after this point covers every sample the agent had then: the file has the latest
    wait_for("a flush covering the samples of #%d" % (round_no + 1),
             lambda: sampled[-1] in recorded(db, "utilization.gpu", 0), timeout=60, step=0.2)
    flushed = recorded(db, "utilization.gpu", 0)
    a.proc.send_signal(signal.SIGKILL)
    a.proc.wait()
    a.log.close()
    check(integrity_ok(db), "integrity_check after kill -9 #%d" % (round_no + 1))
    rec = recorded(db, "utilization.gpu", 0)
    missing = [t for t in sampled if t not in rec]
    check(sampled and not missing, "kill -9 #%d: %d of the %d samples before the last flush missing"
          % (round_no + 1, len(missing), len(sampled)))
    lost = [t for t in flushed if t not in rec]
    check(not lost, "kill -9 #%d: %d flushed samples lost" % (round_no + 1, len(lost)))
    a.dir.cleanup()
work.cleanup()
print("PASS")
