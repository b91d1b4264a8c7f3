"""test_agent_stale.py - an NVML call that hangs (gpusim delay fault) stalls the sampler, not HTTP:
/metrics keeps answering quickly with gpuwatch_gpu_stale 1 and growing sample ages, /healthz says
503 while every GPU is stale, and all is well again once the call returns."""
import time
from agentlib import Agent, check, need_gpusim, parse_metrics, scenario, series, wait_for

need_gpusim()
a = Agent(scenario("agent_hang.yaml"), args=["--interval", "200ms"])
try:
    a.wait_sampled(ngpus=2)

    def stale():
        t0 = time.monotonic()
        st, _, text = a.request("/metrics", timeout=2)
        check(st == 200 and time.monotonic() - t0 < 1.0, "/metrics during the hang: %d" % st)
        m = parse_metrics(text)
        s = [series(m, "gpuwatch_gpu_stale", gpu=g) for g in ("0", "1")]
        return m if all(x and x[0][2] == 1 for x in s) else None
    m = wait_for("every GPU stale", stale, timeout=15)
    check(all(s[2] > 0.6 for s in series(m, "gpuwatch_sample_age_seconds")), "sample ages %r" % series(m, "gpuwatch_sample_age_seconds"))
    check(series(m, "DCGM_FI_DEV_GPU_TEMP", gpu="1")[0][2] == 50, "last values still exported while stale")
    st, _, body = a.request("/healthz")
    check(st == 503 and "stale" in body, "healthz while stale: %d %r" % (st, body))
    check(a.get_json("/api/v1/gpus")["gpus"][0]["stale"] is True, "JSON stale flag")

    def fresh():
        m = parse_metrics(a.request("/metrics")[2])
        return all(series(m, "gpuwatch_gpu_stale", gpu=g)[0][2] == 0 for g in ("0", "1"))
    wait_for("fresh samples again", fresh, timeout=15)
    check(a.request("/healthz")[0] == 200, "healthz after the hang")
finally:
    a.stop()
print("PASS")
