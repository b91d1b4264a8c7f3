"""test_agent_stale.py - an NVML call that hangs for 4 s on GPU 0 (gpusim delay fault) holds up GPU 0
only: it goes hung and stale with a growing sample age while GPU 1 stays fresh, /metrics keeps
answering quickly, /healthz stays 200 (one GPU is still read), and GPU 0 is fresh again once the
call returns."""
import time
from agentlib import Agent, check, need_gpusim, parse_metrics, scenario, series, wait_for

need_gpusim()
a = Agent(scenario("agent_hang.yaml"), args=["--interval", "200ms"])
try:
    a.wait_sampled(ngpus=2)

    def scrape():
        t0 = time.monotonic()
        st, _, text = a.request("/metrics", timeout=2)
        check(st == 200 and time.monotonic() - t0 < 1.0, "/metrics during the hang: %d" % st)
        return parse_metrics(text)

    def gpu0_stale():
        m = scrape()
        s = series(m, "gpuwatch_gpu_stale", gpu="0")
        return m if s and s[0][2] == 1 else None
    m = wait_for("GPU 0 stale", gpu0_stale, timeout=15)
    check(series(m, "gpuwatch_sample_age_seconds", gpu="0")[0][2] > 0.6, "GPU 0's sample age grows")
    check(series(m, "gpuwatch_gpu_stale", gpu="1")[0][2] == 0, "GPU 1 fresh while GPU 0 hangs")
    check(series(m, "gpuwatch_sample_age_seconds", gpu="1")[0][2] < 0.6, "GPU 1 sampled at its interval")
    check(series(m, "DCGM_FI_DEV_GPU_TEMP", gpu="0")[0][2] == 50, "last values still exported while stale")
    wait_for("GPU 0 hung", lambda: series(scrape(), "gpuwatch_gpu_hung", gpu="0")[0][2] == 1, timeout=5)
    st, _, body = a.request("/healthz")
    check(st == 200, "healthz with one GPU stale: %d %r" % (st, body))
    gpus = a.get_json("/api/v1/gpus")["gpus"]
    check(gpus[0]["stale"] is True and gpus[0]["hung"] is True and gpus[1]["stale"] is False, "JSON flags")

    def fresh():
        m = scrape()
        return all(series(m, "gpuwatch_gpu_stale", gpu=g)[0][2] == 0 and series(m, "gpuwatch_gpu_hung", gpu=g)[0][2] == 0
                   for g in ("0", "1"))
    wait_for("fresh samples again", fresh, timeout=15)
    check(a.request("/healthz")[0] == 200, "healthz after the hang")
finally:
    logs = a.stop()
check("gpu read hung" in logs and "gpu read returned" in logs, "hang and return logged")
print("PASS")
