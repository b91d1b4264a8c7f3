"""test_agent_stale.py - an NVML call that hangs for 8 s on GPU 0 (gpusim delay fault) holds up GPU 0
only: it goes hung and stale with a growing sample age while GPU 1 goes on being sampled, /metrics
keeps answering (its answers come while the call is still in progress), /healthz stays 200 (one GPU
is still read), and GPU 0 is fresh again once the call returns. No check depends on how fast the
machine is: what must happen during the hang is checked against the hang's own flags."""
from agentlib import Agent, check, need_gpusim, parse_metrics, scenario, series, wait_for

need_gpusim()
a = Agent(scenario("agent_hang.yaml"), args=["--interval", "200ms"])
try:
    a.wait_sampled(ngpus=2)

    def scrape():
        st, _, text = a.request("/metrics", timeout=60)
        check(st == 200, "/metrics during the hang: %d" % st)
        return parse_metrics(text)

    def gpus():
        return a.get_json("/api/v1/gpus")["gpus"]

    def gpu0_stale():
        m = scrape()
        s = series(m, "gpuwatch_gpu_stale", gpu="0")
        return m if s and s[0][2] == 1 else None
    m = wait_for("GPU 0 stale", gpu0_stale, timeout=60)
    check(series(m, "DCGM_FI_DEV_GPU_TEMP", gpu="0")[0][2] == 50, "last values still exported while stale")
    # hung: its read has been in progress for over 1 s; /metrics answers while it is (a scrape that
    # waited for the call would only come after it, when GPU 0 is no longer hung)
    m = wait_for("GPU 0 hung on /metrics",
                 lambda: (lambda m: m if series(m, "gpuwatch_gpu_hung", gpu="0")[0][2] == 1 else None)(scrape()),
                 timeout=60)
    check(series(m, "gpuwatch_gpu_hung", gpu="1")[0][2] == 0, "GPU 1 is not hung")
    # GPU 0's sample age grows and GPU 1 is sampled again and again, all while GPU 0's call hangs
    first = gpus()
    check(first[0]["hung"] is True and first[0]["stale"] is True, "JSON flags of GPU 0: %r" % first[0])
    seen = set()

    def gpu1_progress():
        g = gpus()
        check(g[0]["hung"] is True, "GPU 0's call ended before GPU 1 was seen sampled 3 times (%d)" % len(seen))
        seen.add(g[1]["timestamp"])
        return g if len(seen) >= 4 else None
    last = wait_for("GPU 1 sampled while GPU 0 hangs", gpu1_progress, timeout=60)
    check(last[0]["sample_age_seconds"] > first[0]["sample_age_seconds"], "GPU 0's sample age grows: %r, %r" % (
        first[0]["sample_age_seconds"], last[0]["sample_age_seconds"]))
    check(last[0]["timestamp"] == first[0]["timestamp"], "GPU 0 has no new sample while its call hangs")
    st, _, body = a.request("/healthz")
    check(st == 200, "healthz with one GPU stale: %d %r" % (st, body))
    check(gpus()[0]["hung"] is True, "all of the above while GPU 0's call hung")

    def fresh():
        m = scrape()
        return all(series(m, "gpuwatch_gpu_stale", gpu=g)[0][2] == 0 and series(m, "gpuwatch_gpu_hung", gpu=g)[0][2] == 0
                   for g in ("0", "1"))
    wait_for("fresh samples again", fresh, timeout=60)
    check(a.request("/healthz")[0] == 200, "healthz after the hang")
finally:
    logs = a.stop()
check("gpu read hung" in logs and "gpu read returned" in logs, "hang and return logged")
print("PASS")
