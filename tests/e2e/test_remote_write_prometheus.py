"""test_remote_write_prometheus.py - the agent pushes 8 simulated GPUs to a real Prometheus
(--web.enable-remote-write-receiver, Remote-Write 1.0 only: the agent falls back from 2.0).

1. A minute's worth of samples (60 per series, sampled every 250 ms): Prometheus then holds every
   sample of every native and dcgm series the agent's history holds, with the same value at the
   same millisecond; dcgm series carry the pod's labels, the job info series the Slurm job; the
   series of a process that ended are stale at once (a stale marker, not five minutes of lookback);
   XIDs are counted per code.
2. An outage of 60 readings (the 2-minute outage at 1 s is in make bench: the same behaviour, four
   times longer): Prometheus is stopped, the agent is killed with -9 halfway and started again, then
   Prometheus comes back. Afterwards it holds at
   least 99.9 % of the outage's samples the history holds (resent from the history, in order: a
   sample out of order would make Prometheus refuse a whole request), and nothing was refused.
The sampling is 4 times faster than the default so that the test takes a quarter of the time
(scripts/bench_remote_write.sh runs the full length at 1 s)."""
import os
import signal
import tempfile
import time
from agentlib import Agent, check, need_gpusim, scenario, wait_for
import rwlib
from skiplib import need_command

need_gpusim()
need_command("prometheus", "prometheus")

INTERVAL = 0.25
tmp = tempfile.TemporaryDirectory(prefix="gw-rw-prom-")
db = os.path.join(tmp.name, "history.db")
prom = rwlib.Prometheus(tmp.name)
config = """interval: 250ms
history: {flush_interval: 1s}
remote_write:
  external_labels: {cluster: e2e}
  endpoints:
    - url: %s
      name: prom
      queue_config: {batch_send_deadline: 500ms, min_backoff: 50ms, max_backoff: 1s}
""" % prom.url
agents = []


def start_agent():
    a = Agent(scenario("rw_8gpu.yaml"), config, args=["--db", db])
    agents.append(a)
    return a


def value(a, name, **labels):
    return rwlib.agent_value(a, name, **labels)


def compare_all(cat, start, end, need):
    return rwlib.compare_store(prom, db, cat, '{job="gpuwatch",cluster="e2e"}', start, end, need)


try:
    cat = rwlib.catalog()
    a = start_agent()
    a.wait_sampled(ngpus=8)
    t0 = time.time()
    # 1. a minute's worth of samples
    wait_for("60 readings", lambda: rwlib.readings_since(a, t0) >= 60, timeout=120, step=0.25)
    t1 = time.time()
    wait_for("the receiver to take them", lambda: rwlib.delivered(a, "prom", t1), timeout=60, step=0.25)
    wait_for("the history file to hold them", lambda: rwlib.history_values(db, ["temperature.gpu"], t1 - 1, t1 + 5)
             .get(("temperature.gpu", 0)), timeout=60, step=0.5)
    results, raw = compare_all(cat, t0, t1, need=8 * 20 * 55)
    for which, total, found, bad in results:
        check(found == total, "%s: %d of %d history samples in Prometheus with the same value; e.g. %s"
              % (which, found, total, "; ".join(bad)))
        print("part 1: %s: %d of %d samples" % (which, found, total))
    labels = [dict(l) for l in raw if dict(l)["__name__"] == "DCGM_FI_DEV_GPU_TEMP"]
    check(len(labels) == 8 and all(l.get("pod") == "bert-train-0" and l.get("namespace") == "ml-team" and
                                   l.get("container") == "trainer" for l in labels), "pod labels: %r" % labels[:2])
    jobs = [dict(l) for l in raw if dict(l)["__name__"] == "gpuwatch_gpu_job_info"]
    check(any(j.get("slurm_job_id") == "4242" and j.get("job_name") == "llama" and j.get("user") == "bob" for j in jobs),
          "job info: %r" % jobs[:3])
    # the Slurm process ended at 3 s: its series are stale now, not for five minutes
    now_q = rwlib.get_json("http://127.0.0.1:%d/api/v1/query?query=%s" % (prom.port, "gpuwatch_process_memory_bytes"))
    users = {r["metric"].get("user") for r in now_q["data"]["result"]}
    check(users == {"alice"}, "process series now: %r (bob's ended and should be stale)" % users)
    before = rwlib.get_json("http://127.0.0.1:%d/api/v1/query?query=%s&time=%.3f"
                            % (prom.port, "gpuwatch_process_memory_bytes", t0 + 1))
    check({r["metric"].get("user") for r in before["data"]["result"]} == {"alice", "bob"}, "process series at 1 s")
    xid = rwlib.get_json("http://127.0.0.1:%d/api/v1/query?query=%s" % (prom.port, 'gpuwatch_xid_errors_total{gpu="3"}'))
    codes = {r["metric"]["xid"]: float(r["value"][1]) for r in xid["data"]["result"]}
    check(codes == {"79": 1.0, "48": 1.0}, "XIDs per code: %r" % codes)
    check(value(a, "gpuwatch_remote_write_protocol_version", remote_name="prom") == 1, "fell back to 1.0")
    check(value(a, "gpuwatch_remote_write_samples_failed_total", remote_name="prom") == 0, "nothing refused")

    # 2. an outage of 60 readings, the agent killed with -9 halfway
    out0 = time.time()
    prom.stop()
    wait_for("the agent to retry", lambda: value(a, "gpuwatch_remote_write_queue_state", remote_name="prom",
                                                 state="retrying") == 1, timeout=60, step=0.25)
    wait_for("30 readings into the outage", lambda: rwlib.readings_since(a, out0) >= 30, timeout=120, step=0.25)
    a.proc.send_signal(signal.SIGKILL)
    a.proc.wait()
    killed = time.time()
    a = start_agent()
    a.wait_sampled(ngpus=8)
    wait_for("60 readings of the outage", lambda: rwlib.readings_since(a, out0) + 30 >= 60, timeout=120, step=0.25)
    out1 = time.time()
    prom.start()
    rwlib.wait_caught_up(a, "prom", out1 + 1)
    resent = value(a, "gpuwatch_remote_write_samples_resent_total", remote_name="prom")
    check(resent and resent > 0, "samples resent from the history: %r" % resent)
    check(value(a, "gpuwatch_remote_write_samples_failed_total", remote_name="prom") == 0,
          "Prometheus refused requests (out of order?):\n" + prom.log()[-3000:])
    a.stop()
    agents.remove(a)
    results, _ = compare_all(cat, out0, out1, need=8 * 20 * 50)
    for which, total, found, bad in results:
        share = found / total
        print("part 2: %s: %d of %d outage samples (%.4f %%), killed at %.1f s" % (which, found, total, 100 * share,
                                                                                   killed - out0))
        check(share >= 0.999, "%s: %d of %d outage samples; e.g. %s" % (which, found, total, "; ".join(bad)))
    print("OK")
finally:
    for ag in agents:
        if ag.proc.poll() is None:
            ag.proc.kill()
            ag.proc.wait()
    prom.stop()
    tmp.cleanup()
