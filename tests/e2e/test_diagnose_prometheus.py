"""test_diagnose_prometheus.py - `gpuwatch diagnose --prometheus` against a real Prometheus scraping
gpuwatch agents on gpusim (every 250 ms, agents sampling every 250 ms): four hosts, one healthy
(one GPU of it a member of job train/job-700), one with thermal throttling, one whose input
pipeline stalls, one with the job's straggler (its clocks locked low) and a GPU idle with memory
held. Each problem is found on its host and GPU, nothing on the healthy host, in text and JSON;
the same four scenarios on agents with `exporter.series: dcgm` (dcgm-exporter's names only, their
own scrape job) give the same findings but idle_holding, which needs gpuwatch's process series and
is named among the detectors that could not run. Then the mistakes: an unreachable engine, an
empty selector, a selector of no series, a job of no GPU. Durations are the test's (a minute of
data): the thresholds of the long detectors are shortened with --config."""
import json
import os
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from agentlib import check, fail, free_port, need_gpusim, wait_for
import fleetlib
from fleetlib import diagnose, has, report
from skiplib import need_command

need_gpusim()
prometheus = need_command("prometheus", "prometheus")

tmp = tempfile.TemporaryDirectory(prefix="gw-fleetdiag-")
agents = {}
prom = None


def host(series, role):
    return "127.0.0.1:%d" % agents[series][role].port


try:
    for series in ("both", "dcgm"):
        agents[series] = fleetlib.start_agents(lambda role: "exporter:\n  series: %s\n" % series)
    for a in [a for by_role in agents.values() for a in by_role.values()]:
        a.wait_sampled()
    t_start = time.time()
    cfg = os.path.join(tmp.name, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 250ms\n  scrape_timeout: 200ms\nscrape_configs:\n")
        for series in ("both", "dcgm"):
            f.write("  - job_name: %s\n    static_configs:\n      - targets: [%s]\n" %
                    (series, ", ".join("'%s'" % host(series, r) for r in fleetlib.ROLES)))
    pport = free_port()
    plog_path = os.path.join(tmp.name, "prometheus.log")
    plog = open(plog_path, "w")
    prom = subprocess.Popen([prometheus, "--config.file=" + cfg, "--storage.tsdb.path=" + os.path.join(tmp.name, "data"),
                             "--web.listen-address=127.0.0.1:%d" % pport], stdout=plog, stderr=subprocess.STDOUT)
    url = "http://127.0.0.1:%d" % pport

    def query(q):
        try:
            with urllib.request.urlopen(url + "/api/v1/query?" + urllib.parse.urlencode({"query": q}), timeout=5) as r:
                d = json.loads(r.read())
        except (OSError, ValueError):
            if prom.poll() is not None:
                fail("prometheus exited:\n" + open(plog_path).read())
            return None
        return d["data"]["result"] if d.get("status") == "success" else None

    # 45 s of data from every target: enough for the detectors with the thresholds below
    def enough():
        r = query("min(count_over_time(up[2m]))")
        return r and float(r[0]["value"][1]) >= 180
    wait_for("45 s of scrapes of 8 agents", enough, timeout=240, step=1)
    since = "%ds" % (time.time() - t_start + 5)
    thresholds = fleetlib.thresholds(tmp.name)

    # ---- gpuwatch's names ----
    native = report(url, since, thresholds, "--match", '{job="both"}')
    fleetlib.check_planted(native, lambda role: host("both", role), "native")
    strag = [f for f in native["findings"] if f["detector"] == "straggler"]
    check(strag and "k8s:train/job-700" in strag[0]["summary"] and "2 GPUs on 2 hosts" in strag[0]["summary"],
          "the job in the straggler's summary: %r" % strag)
    check(all(f["gpu_hours_lost"] > 0 for f in native["findings"]), "GPU-hours lost: %r" %
          [(f["detector"], f["gpu_hours_lost"]) for f in native["findings"]])
    ranks = [(-{"critical": 2, "warning": 1, "info": 0}[f["severity"]], -f["gpu_hours_lost"]) for f in native["findings"]]
    check(ranks == sorted(ranks), "ranked by severity then GPU-hours: %r" % ranks)
    check(not any(d.split(":")[0] in ("idle_holding", "thermal", "straggler", "input_stall", "clocks_low", "memory_full")
                  for d in native["not_run"]), "not run: %r" % native["not_run"])
    # the same as text, with its summary line
    rc, text, err = diagnose("--prometheus", url, "--match", '{job="both"}', "--since", since, "--config", thresholds)
    check(rc == 0 and "fleet: 4 hosts, 6 GPUs, %d finding" % len(native["findings"]) in text and "GPU-hours lost" in text,
          "the text's summary line: %s%s" % (text[:400], err))
    check("%s, GPU 0" % host("both", "straggler") in text and "straggler" in text, "the straggler in the text")
    # --job: the job's GPUs only (the straggler and its partner)
    job = report(url, since, thresholds, "--match", '{job="both"}', "--job", "train/job-700")
    check(job["gpus"] == 2 and job["hosts"] == 2, "--job: 2 GPUs on 2 hosts: %r" % ((job["gpus"], job["hosts"]),))
    check(has(job["findings"], host("both", "straggler"), "straggler", 0) and
          not has(job["findings"], host("both", "straggler"), "idle_holding", 1), "--job's findings")

    # ---- dcgm-exporter's names only ----
    dcgm = report(url, since, thresholds, "--match", '{job="dcgm"}')
    fleetlib.check_planted(dcgm, lambda role: host("dcgm", role), "dcgm", skip=("idle_holding",))
    check(not has(dcgm["findings"], host("dcgm", "straggler"), "idle_holding", 1), "dcgm: no idle_holding without processes")
    check(any(d.startswith("idle_holding: needs gpuwatch_process_memory_bytes") for d in dcgm["not_run"]),
          "dcgm: idle_holding named as not run: %r" % dcgm["not_run"])
    check(any("gpuwatch_process_memory_bytes" in m for m in dcgm["missing"]), "dcgm: the missing series: %r" % dcgm["missing"])

    # ---- mistakes ----
    rc, out, err = diagnose("--prometheus", "http://127.0.0.1:%d" % free_port(), "--since", "1m")
    check(rc == 1 and "engine http://127.0.0.1:" in err and not out, "unreachable engine: %d %r" % (rc, err))
    rc, out, err = diagnose("--prometheus", url, "--match", "{ }")
    check(rc == 2 and "--match: an empty selector" in err, "empty selector: %d %r" % (rc, err))
    rc, out, err = diagnose("--prometheus", url, "--match", '{job="nope"}', "--since", since)
    check(rc == 1 and "no GPU series" in err and '{job="nope"}' in err, "no series: %d %r" % (rc, err))
    rc, out, err = diagnose("--prometheus", url, "--match", '{job=~"("}', "--since", since)
    check(rc == 1 and "HTTP 400" in err and "bad_data" in err, "the engine's error: %d %r" % (rc, err))
    rc, out, err = diagnose("--prometheus", url, "--job", "no-such-job", "--since", since)
    check(rc == 1 and "no GPU of job no-such-job" in err, "no such job: %d %r" % (rc, err))
    rc, out, err = diagnose("--prometheus", url, "--db", "x.db")
    check(rc == 2 and "give one source" in err, "two sources: %d %r" % (rc, err))
finally:
    if prom:
        prom.terminate()
        try:
            prom.wait(timeout=15)
        except subprocess.TimeoutExpired:
            prom.kill()
            prom.wait()
    for a in [a for by_role in agents.values() for a in by_role.values()]:
        a.stop()
    tmp.cleanup()
print("PASS")
