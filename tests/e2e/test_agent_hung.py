"""test_agent_hung.py - a driver call that never returns (gpusim `hang` faults).
1. Every call about GPU 2 hangs from 2 s: GPU 2 is reported hung (gpuwatch_gpu_hung 1, "hung" in
   /api/v1/gpus) and goes stale; the other GPUs go on being sampled; /healthz stays 200; an XID
   that arrives while GPU 1 is lost becomes a history event; RSS stays flat; SIGTERM ends the agent
   (the hung reader is left behind: the call never returns, so an exit at all shows it was not
   waited for) after the history's last flush, which holds every sample taken before the signal.
2. nvmlInit itself never returns: the agent serves /healthz (503, backend not open) and SIGTERM
   still ends it.
No check depends on how fast the machine is (the bounds are generous, for a stuck agent)."""
import csv
import io
import os
import subprocess
import tempfile
import time
from agentlib import Agent, GPUWATCH, check, need_gpusim, parse_metrics, rss_bounded, scenario, series, wait_for

need_gpusim()
INTERVAL = 0.2
# flush_interval far beyond the run: what the history holds at the end was flushed by the stop.
CONFIG = "history:\n  flush_interval: 10m\n"


STOP_BOUND_S = 60.0  # an agent that waited for the hung call would never stop


def metric(a, name, gpu):
    m = parse_metrics(a.request("/metrics", timeout=60)[2])
    s = series(m, name, gpu=str(gpu))
    return s[0][2] if s else None


keep = tempfile.TemporaryDirectory(prefix="gw-hung-")
db = os.path.join(keep.name, "history.db")
a = Agent(scenario("agent_faults_hang.yaml"), config=CONFIG, args=["--interval", "200ms", "--db", db])
a.wait_sampled(ngpus=4)
wait_for("GPU 2 reported hung", lambda: metric(a, "gpuwatch_gpu_hung", 2) == 1, timeout=60)
rss0 = a.status_kb("VmRSS")
# GPU 2 hangs for good: every answer below comes while it does. The others go on being sampled:
# each of GPUs 0 and 3 has 10 new samples (10 rounds), their values, while GPU 2's stays the same.
stamps = {"0": set(), "3": set()}
g2_stamps = set()


def others_sampled():
    st, _, text = a.request("/metrics", timeout=60)
    check(st == 200, "/metrics while GPU 2 hangs: %d" % st)
    m = parse_metrics(text)
    for gpu in stamps:
        check(series(m, "DCGM_FI_DEV_GPU_TEMP", gpu=gpu)[0][2] == 52, "GPU %s values" % gpu)
    check(series(m, "gpuwatch_gpu_stale", gpu="2")[0][2] == 1, "GPU 2 stale")
    g = a.get_json("/api/v1/gpus")["gpus"]
    for gpu in stamps:
        stamps[gpu].add(g[int(gpu)]["timestamp"])
    g2_stamps.add(g[2]["timestamp"])
    return all(len(v) >= 11 for v in stamps.values())


wait_for("10 rounds of GPUs 0 and 3 while GPU 2 hangs", others_sampled, timeout=60, step=INTERVAL / 2)
check(len(g2_stamps) == 1, "GPU 2 has no new sample while it hangs: %r" % g2_stamps)
g2 = a.get_json("/api/v1/gpus")["gpus"][2]
check(g2["hung"] is True and g2["hung_seconds"] > 1 and g2["stale"] is True, "JSON of GPU 2: %r" % {
    k: g2[k] for k in ("hung", "hung_seconds", "stale")})
check(a.request("/healthz")[0] == 200, "healthz with one GPU hung")
wait_for("GPU 1 back", lambda: metric(a, "gpuwatch_gpu_lost", 1) == 0 and metric(a, "DCGM_FI_DEV_GPU_TEMP", 1) == 52,
         timeout=60)
time.sleep(1.0)
rss1 = a.status_kb("VmRSS")
print("RSS while GPU 2 hangs: %d -> %d kB" % (rss0, rss1))
check(rss_bounded(rss1 - rss0, 2048), "RSS grew %d kB while GPU 2 hung" % (rss1 - rss0))
before_stop = a.get_json("/api/v1/gpus")["gpus"][0]["timestamp"]  # a sample taken before the signal
took, logs = a.stop_within(STOP_BOUND_S)
print("stopped %.2f s after SIGTERM with a call hung" % took)
check("gpu read hung" in logs and "abandoned_backend_call=1" in logs, "hang and abandoned reader logged")
# the history's stop flush: samples up to the signal, and the XID that came while GPU 1 was lost
p = subprocess.run([GPUWATCH, "history", "--db", db, "--metric", "temperature.gpu", "--gpu", "0", "--since", "1h",
                    "--format", "csv"], capture_output=True, text=True, timeout=30)
check(p.returncode == 0, "gpuwatch history: %s" % p.stderr)
last = max(float(r["unix_seconds"]) for r in csv.DictReader(io.StringIO(p.stdout)))
check(last >= before_stop - 1e-3, "the stop flush: last recorded sample %.3f, sampled before SIGTERM %.3f" % (
    last, before_stop))
ev = subprocess.run([GPUWATCH, "events", "--db", db, "--since", "1h", "--gpu", "1", "--format", "json"],
                    capture_output=True, text=True, timeout=30).stdout
check('"xid=79"' in ev and '"gpu_back"' in ev, "XID 79 of GPU 1, which came while it was lost: %s" % ev)

# nvmlInit hangs: the agent is up without a backend and still stops in time
a = Agent(scenario("agent_faults_init.yaml"), args=["--interval", "200ms"])
st, _, body = a.request("/healthz")
check(st == 503 and "backend" in body, "healthz while nvmlInit hangs: %d %r" % (st, body))
took, logs = a.stop_within(STOP_BOUND_S)
print("stopped %.2f s after SIGTERM with nvmlInit hung" % took)
keep.cleanup()
print("PASS")
