"""test_agent_faults.py - the agent under a misbehaving driver (gpusim faults) never exits, never
grows, and keeps the healthy GPUs fresh:
1. an error storm on GPU 0 (every other call of every function fails) and size games on GPU 1
   (INSUFFICIENT_SIZE with ever more or the count it was given, SUCCESS with 100000 samples):
   RSS and address space stay flat, the errors are counted, GPU 2 is read at its interval;
2. the driver unloaded for 3 s (every call UNINITIALIZED): /healthz says 503 while no GPU is read,
   the errors are counted, and the GPUs are read again once the driver is back."""
import time
from agentlib import Agent, check, need_gpusim, parse_metrics, scenario, series, wait_for

need_gpusim()


def scrape(a):
    st, _, text = a.request("/metrics", timeout=2)
    check(st == 200, "/metrics: %d" % st)
    return parse_metrics(text)


# ---- error storm and size games ----
a = Agent(scenario("agent_faults_storm.yaml"), args=["--interval", "100ms"])
a.wait_sampled(ngpus=3)
time.sleep(2.0)  # the buffers have grown to whatever they will hold
rss0, vm0, thr0 = a.status_kb("VmRSS"), a.status_kb("VmSize"), a.status_kb("Threads")
for _ in range(30):  # 6 s, 60 sampling rounds
    m = scrape(a)
    check(series(m, "gpuwatch_gpu_stale", gpu="2")[0][2] == 0, "GPU 2 stale during the storm")
    check(series(m, "DCGM_FI_DEV_GPU_TEMP", gpu="2")[0][2] == 53, "GPU 2 values")
    time.sleep(0.2)
rss1, vm1, thr1 = a.status_kb("VmRSS"), a.status_kb("VmSize"), a.status_kb("Threads")
print("storm + size games, 6 s at 10 Hz: RSS %d -> %d kB, VmSize %d -> %d kB, threads %d -> %d" %
      (rss0, rss1, vm0, vm1, thr0, thr1))
check(rss1 - rss0 < 2048, "RSS grew by %d kB" % (rss1 - rss0))
check(vm1 - vm0 < 65536, "address space grew by %d kB" % (vm1 - vm0))
check(thr1 == thr0, "threads %d -> %d" % (thr0, thr1))
errs = series(m, "gpuwatch_nvml_errors_total", code="NVML_ERROR_INSUFFICIENT_SIZE")
check(errs and all(e[2] > 0 for e in errs), "size games counted: %r" % errs)
storm = [e for e in series(m, "gpuwatch_nvml_errors_total", code="NVML_ERROR_UNKNOWN")]
check(len(storm) >= 5, "error storm counted by function: %r" % storm)
g = a.get_json("/api/v1/gpus")["gpus"]
check(not g[1]["hung"] and not g[1]["stale"], "GPU 1 read despite its size games")
procs = a.get_json("/api/v1/processes")
check(any(p["gpu"] == 2 for p in procs["processes"]), "GPU 2's processes listed")
a.stop()

# ---- the driver unloaded ----
a = Agent(scenario("agent_faults_driver.yaml"), args=["--interval", "200ms"])
a.wait_sampled(ngpus=2)


def healthz_says(code):
    return lambda: a.request("/healthz")[0] == code


wait_for("healthz 503 while the driver is gone", healthz_says(503), timeout=15)
st, _, body = a.request("/healthz")
check("failing" in body, "healthz says why: %r" % body)
m = scrape(a)
check(not series(m, "DCGM_FI_DEV_GPU_TEMP"), "no values while the driver is gone")
check(series(m, "gpuwatch_nvml_errors_total", code="NVML_ERROR_UNINITIALIZED"), "UNINITIALIZED counted")
wait_for("healthz 200 once the driver is back", healthz_says(200), timeout=15)
wait_for("values again", lambda: len(series(scrape(a), "DCGM_FI_DEV_GPU_TEMP")) == 2, timeout=5)
logs = a.stop()
check("gpu read failed" in logs, "the failure logged")
print("PASS")
