"""bench_diagnose_prometheus.py - the fleet diagnosis' scale (bench_diagnose_prometheus.sh).

Writes an hour of 512 GPUs (64 hosts x 8; BENCH_FLEET_GPUS) as OpenMetrics with gpuwatch's native
names and labels, one sample every 15 s (Prometheus' default scrape interval; BENCH_FLEET_STEP):
utilization, memory used and total, power and its limits, temperatures and their limits, SM clock
and its maximum, clock event reasons, PCIe link, one process per GPU and gpuwatch_gpu_job_info
(jobs of 64 GPUs over 8 hosts). Planted: one straggler (clocks at 60 %) and one idle job's GPUs
holding memory. promtool backfills it into blocks, a Prometheus serves them on 127.0.0.1, and
`gpuwatch diagnose --prometheus --from --to --format json` runs over the hour, measured by its wall
time and peak RSS (wait4's ru_maxrss). Prints the figures and the targets."""
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

build = sys.argv[1]
GPUWATCH = os.path.join(build, "gpuwatch")
NGPUS = int(os.environ.get("BENCH_FLEET_GPUS", "512"))
STEP = int(os.environ.get("BENCH_FLEET_STEP", "15"))
HOSTS = NGPUS // 8
SPAN = 3600
for tool in ("promtool", "prometheus"):
    if not shutil.which(tool):
        print("skipped: %s not installed (Debian package prometheus)" % tool)
        sys.exit(0)

end = int(time.time()) // STEP * STEP - 60
start = end - SPAN
rnd = random.Random(24)
STRAGGLER = (5, 3)             # host, gpu
IDLE_JOB = 7                   # its 64 GPUs idle, memory held


def job_of(h, g):
    return (h // 8) if HOSTS >= 8 else 0


def value(name, h, g, t, k):
    idle = job_of(h, g) == IDLE_JOB
    busy = 0 if idle else 0.93 + rnd.uniform(-0.03, 0.03)
    slow = (h, g) == STRAGGLER
    clock = 0 if idle else 1980 * (0.6 if slow else 1) * (1 + rnd.uniform(-0.01, 0.01))
    return {
        "gpuwatch_utilization_ratio": busy,
        "gpuwatch_memory_utilization_ratio": busy * 0.4,
        "gpuwatch_memory_used_bytes": 60000 * 1048576,
        "gpuwatch_memory_free_bytes": 21080 * 1048576,
        "gpuwatch_memory_total_bytes": 81559 * 1048576,
        "gpuwatch_power_draw_watts": 75 if idle else 600 * (0.7 if slow else 1) + rnd.uniform(-20, 20),
        "gpuwatch_power_enforced_limit_watts": 700,
        "gpuwatch_power_default_limit_watts": 700,
        "gpuwatch_temperature_celsius": 40 if idle else 70 + rnd.uniform(-1, 1),
        "gpuwatch_temperature_slowdown_celsius": 89,
        "gpuwatch_temperature_max_celsius": 87,
        "gpuwatch_clock_sm_hertz": (345 if idle else clock) * 1e6,
        "gpuwatch_clock_max_sm_hertz": 1980e6,
        "gpuwatch_clock_event_reasons": 1 if idle else 0,
        "gpuwatch_pcie_link_generation": 5,
        "gpuwatch_pcie_link_width": 16,
        "gpuwatch_pcie_link_generation_max": 5,
        "gpuwatch_pcie_link_width_max": 16,
    }[name]


NAMES = ["gpuwatch_utilization_ratio", "gpuwatch_memory_utilization_ratio", "gpuwatch_memory_used_bytes",
         "gpuwatch_memory_free_bytes", "gpuwatch_memory_total_bytes", "gpuwatch_power_draw_watts",
         "gpuwatch_power_enforced_limit_watts", "gpuwatch_power_default_limit_watts", "gpuwatch_temperature_celsius",
         "gpuwatch_temperature_slowdown_celsius", "gpuwatch_temperature_max_celsius", "gpuwatch_clock_sm_hertz",
         "gpuwatch_clock_max_sm_hertz", "gpuwatch_clock_event_reasons", "gpuwatch_pcie_link_generation",
         "gpuwatch_pcie_link_width", "gpuwatch_pcie_link_generation_max", "gpuwatch_pcie_link_width_max"]


def labels(h, g):
    return 'instance="node%02d:9400",job="gpuwatch",gpu="%d",uuid="GPU-%08d-0000-0000-0000-%012d"' % (h, g, h, g)


def write(path):
    times = list(range(start, end + 1, STEP))
    n = 0
    with open(path, "w") as f:
        for name in NAMES:
            f.write("# TYPE %s gauge\n" % name)
            for h in range(HOSTS):
                for g in range(8):
                    lab = labels(h, g)
                    f.write("".join("%s{%s} %.6g %d\n" % (name, lab, value(name, h, g, t, k), t)
                                    for k, t in enumerate(times)))
                    n += len(times)
        f.write("# TYPE gpuwatch_process_memory_bytes gauge\n")
        for h in range(HOSTS):
            for g in range(8):
                lab = 'instance="node%02d:9400",job="gpuwatch",gpu="%d",pid="%d",user="u%d",command="python3",container="slurm:job %d step 0"' % (
                    h, g, 10000 + g, job_of(h, g), 1000 + job_of(h, g))
                f.write("".join("gpuwatch_process_memory_bytes{%s} %d %d\n" % (lab, 60000 * 1048576, t) for t in times))
                n += len(times)
        f.write("# TYPE gpuwatch_gpu_job_info gauge\n")
        for h in range(HOSTS):
            for g in range(8):
                lab = labels(h, g) + ',user="u%d",slurm_job_id="%d"' % (job_of(h, g), 1000 + job_of(h, g))
                f.write("".join("gpuwatch_gpu_job_info{%s} 1 %d\n" % (lab, t) for t in times))
                n += len(times)
        f.write("# EOF\n")
    return n


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


tmp = tempfile.mkdtemp(prefix="gw-bench-fleet-")
prom = None
try:
    t0 = time.monotonic()
    om = os.path.join(tmp, "fleet.om")
    samples = write(om)
    t_gen = time.monotonic() - t0
    data = os.path.join(tmp, "data")
    t0 = time.monotonic()
    subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics", om, data], check=True,
                   stdout=subprocess.DEVNULL)
    t_fill = time.monotonic() - t0
    os.unlink(om)
    port = free_port()
    log = open(os.path.join(tmp, "prometheus.log"), "w")
    cfg = os.path.join(tmp, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global: {}\n")
    prom = subprocess.Popen(["prometheus", "--config.file=" + cfg, "--storage.tsdb.path=" + data,
                             "--storage.tsdb.retention.time=30d", "--web.listen-address=127.0.0.1:%d" % port],
                            stdout=log, stderr=subprocess.STDOUT)
    url = "http://127.0.0.1:%d" % port
    for _ in range(600):
        try:
            with urllib.request.urlopen(url + "/-/ready", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            time.sleep(0.2)
    fmt = lambda t: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
    cmd = [GPUWATCH, "diagnose", "--prometheus", url, "--from", fmt(start), "--to", fmt(end), "--format", "json"]
    runs = []
    for _ in range(3):  # the first also warms the engine's caches, as the second user of a fleet finds them
        outp = os.path.join(tmp, "out.json")
        with open(outp, "w") as o, open(os.path.join(tmp, "err.txt"), "w") as e:
            t0 = time.monotonic()
            p = subprocess.Popen(cmd, stdout=o, stderr=e)
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
            runs.append((time.monotonic() - t0, ru.ru_maxrss))
        if p.returncode != 0:
            print("diagnose failed: %s" % open(os.path.join(tmp, "err.txt")).read())
            sys.exit(1)
    out = open(outp).read()
    rep = json.loads(out)
    found = [(f["host"], f["detector"], f["gpus"]) for f in rep["findings"]]
    print("data: %d GPUs on %d hosts, 1 h every %d s: %d samples (generated in %.0f s, backfilled in %.0f s)" %
          (NGPUS, HOSTS, STEP, samples, t_gen, t_fill))
    print("diagnose --prometheus: %d hosts, %d GPUs, %d findings, %.1f GPU-hours lost" %
          (rep["hosts"], rep["gpus"], len(rep["findings"]), rep["gpu_hours_lost"]))
    print("straggler found: %s" % [x for x in found if x[1] == "straggler"])
    print("wall time per run: %s s   (target <= 10 s)" % ", ".join("%.2f" % r[0] for r in runs))
    print("peak RSS per run: %s MB   (target <= 500 MB)" % ", ".join("%.1f" % (r[1] / 1024) for r in runs))
finally:
    if prom:
        prom.terminate()
        try:
            prom.wait(timeout=20)
        except subprocess.TimeoutExpired:
            prom.kill()
    shutil.rmtree(tmp, ignore_errors=True)
