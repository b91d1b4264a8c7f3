"""test_agent_lost.py - a GPU lost during the run (gpusim fault window 4-10 s): gpuwatch_gpu_lost 1
and no value series for it, the other GPUs go on, /healthz stays 200; then it comes back."""
from agentlib import Agent, check, need_gpusim, parse_metrics, scenario, series, wait_for

need_gpusim()
a = Agent(scenario("agent_lost.yaml"), args=["--interval", "250ms"])
try:
    a.wait_sampled(ngpus=3)
    before = parse_metrics(a.request("/metrics")[2])
    check(len(series(before, "DCGM_FI_DEV_GPU_TEMP")) == 3, "three GPUs before the loss")

    def lost():
        m = parse_metrics(a.request("/metrics")[2])
        v = series(m, "gpuwatch_gpu_lost", gpu="1")
        return m if v and v[0][2] == 1 else None
    m = wait_for("GPU 1 lost", lost, timeout=20)
    check(not [s for s in m if s[1].get("gpu") == "1" and s[0].startswith("DCGM_")], "no dcgm series for the lost GPU")
    lost_values = [s[0] for s in m if s[1].get("gpu") == "1" and s[0].startswith("gpuwatch_")
                   and s[0] not in ("gpuwatch_gpu_lost", "gpuwatch_gpu_info", "gpuwatch_sample_age_seconds",
                                    "gpuwatch_gpu_stale", "gpuwatch_gpu_hung")]
    check(not lost_values, "native value series for the lost GPU: %r" % lost_values)
    for gpu in ("0", "2"):
        t = series(m, "DCGM_FI_DEV_GPU_TEMP", gpu=gpu)
        check(len(t) == 1 and t[0][2] == 55, "GPU %s goes on: %r" % (gpu, t))
        check(series(m, "gpuwatch_gpu_lost", gpu=gpu)[0][2] == 0, "GPU %s not lost" % gpu)
    check(series(m, "gpuwatch_up")[0][2] == 1, "gpuwatch_up stays 1")
    errs = series(m, "gpuwatch_nvml_errors_total", function="nvmlDeviceGetUtilizationRates", code="NVML_ERROR_UNKNOWN")
    check(len(errs) == 1 and errs[0][2] >= 1, "NVML errors counted by function and code: %r" %
          [s for s in m if s[0] == "gpuwatch_nvml_errors_total"])
    lost_errs = series(m, "gpuwatch_nvml_errors_total", code="NVML_ERROR_GPU_IS_LOST")
    check(lost_errs and all(s[2] >= 1 for s in lost_errs), "lost-GPU errors counted: %r" % lost_errs)
    st, _, body = a.request("/healthz")
    check(st == 200, "healthz during the loss: %d %r" % (st, body))
    g1 = a.get_json("/api/v1/gpus")["gpus"][1]
    check(g1["lost"] is True and g1["metrics"]["temperature.gpu"] is None, "JSON lost flag %r" % g1["lost"])

    def back():
        m = parse_metrics(a.request("/metrics")[2])
        return m if series(m, "gpuwatch_gpu_lost", gpu="1")[0][2] == 0 and series(m, "DCGM_FI_DEV_GPU_TEMP", gpu="1") else None
    m = wait_for("GPU 1 back", back, timeout=20)
    check(series(m, "DCGM_FI_DEV_GPU_TEMP", gpu="1")[0][2] == 55, "GPU 1 values back")
finally:
    logs = a.stop()
check('msg="gpu lost" gpu=1' in logs and 'msg="gpu back" gpu=1' in logs, "loss and return logged")
print("PASS")
