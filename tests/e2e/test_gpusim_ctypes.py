#!/usr/bin/env python3
"""test_gpusim_ctypes.py - gpusim's libnvidia-ml.so.1 called from Python ctypes the way pynvml
(and so gpustat and nvitop) call it: nvmlInitWithFlags, 96-byte name buffers, MemoryInfo_v2 with
its version, the process two-call protocol with count*2+5 records, ProcessUtilization with a
NULL buffer, TemperatureV. If pynvml itself is installed, it is run against gpusim too."""
import ctypes as C
import os
import subprocess
import sys

LIB = os.environ.get("GPUSIM_LIB")
SRC = os.environ.get("GW_SOURCE_DIR", ".")
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def sanitized(path):
    """An ASan build cannot be loaded into a Python that does not preload the ASan runtime."""
    with open(path, "rb") as f:
        return b"libasan" in f.read()


class Memory2(C.Structure):
    _fields_ = [("version", C.c_uint), ("total", C.c_ulonglong), ("reserved", C.c_ulonglong),
                ("free", C.c_ulonglong), ("used", C.c_ulonglong)]


class ProcessInfo(C.Structure):  # pynvml's c_nvmlProcessInfo_v2_t, used for _v3 too
    _fields_ = [("pid", C.c_uint), ("usedGpuMemory", C.c_ulonglong),
                ("gpuInstanceId", C.c_uint), ("computeInstanceId", C.c_uint)]


class UtilSample(C.Structure):
    _fields_ = [("pid", C.c_uint), ("timeStamp", C.c_ulonglong), ("smUtil", C.c_uint),
                ("memUtil", C.c_uint), ("encUtil", C.c_uint), ("decUtil", C.c_uint)]


class TemperatureV1(C.Structure):
    _fields_ = [("version", C.c_uint), ("sensorType", C.c_int), ("temperature", C.c_int)]


def main():
    if not LIB or not os.path.exists(LIB):
        print("GPUSIM_LIB not set or missing: skipped")
        return 0
    if sanitized(LIB):
        print("sanitizer build of gpusim: ctypes test skipped (it runs in the normal build)")
        return 0
    scenario = os.path.join(SRC, "sim", "scenarios", "demo-8gpu.yaml")
    os.environ.update(GPUSIM_SCENARIO=scenario, GPUSIM_SPEED="0", GPUSIM_T0="30")
    nvml = C.CDLL(LIB)
    check(nvml.nvmlInitWithFlags(0) == 0, "nvmlInitWithFlags(0)")
    n = C.c_uint(0)
    check(nvml.nvmlDeviceGetCount_v2(C.byref(n)) == 0 and n.value == 8, "8 GPUs")
    h = C.c_void_p()
    check(nvml.nvmlDeviceGetHandleByIndex_v2(7, C.byref(h)) == 0 and h.value, "handle 7")
    buf = C.create_string_buffer(96)
    check(nvml.nvmlDeviceGetName(h, buf, 96) == 0 and buf.value == b"NVIDIA H100 80GB HBM3", "name")
    check(nvml.nvmlDeviceGetUUID(h, buf, 96) == 0 and buf.value.startswith(b"GPU-"), "uuid")
    drv = C.create_string_buffer(80)
    check(nvml.nvmlSystemGetDriverVersion(drv, 80) == 0 and drv.value == b"590.48.01", "driver version")
    mem = Memory2(version=0x02000028)
    check(nvml.nvmlDeviceGetMemoryInfo_v2(h, C.byref(mem)) == 0, "MemoryInfo_v2")
    check(mem.total == 81559 << 20 and mem.used == 8192 << 20, "memory values")
    # the process two-call protocol as pynvml does it
    count = C.c_uint(0)
    rc = nvml.nvmlDeviceGetComputeRunningProcesses_v3(h, C.byref(count), None)
    check(rc == 7 and count.value == 1, "first call: INSUFFICIENT_SIZE with the count")
    size = count.value * 2 + 5
    procs = (ProcessInfo * size)()
    count = C.c_uint(size)
    check(nvml.nvmlDeviceGetComputeRunningProcesses_v3(h, C.byref(count), procs) == 0, "second call")
    check(count.value == 1 and procs[0].pid == os.getppid(), "pid: parent is our parent")
    check(procs[0].usedGpuMemory == 8192 << 20, "process memory")
    # ProcessUtilization: a NULL buffer must give INSUFFICIENT_SIZE when there are samples
    count = C.c_uint(0)
    rc = nvml.nvmlDeviceGetProcessUtilization(h, None, C.byref(count), C.c_ulonglong(0))
    check(rc == 7 and count.value == 1, "ProcessUtilization first call")
    samples = (UtilSample * count.value)()
    rc = nvml.nvmlDeviceGetProcessUtilization(h, samples, C.byref(count), C.c_ulonglong(0))
    check(rc == 0 and samples[0].pid == os.getppid() and samples[0].smUtil in (10, 85), "ProcessUtilization samples")
    t = TemperatureV1(version=0x0100000C, sensorType=0)
    check(nvml.nvmlDeviceGetTemperatureV(h, C.byref(t)) == 0 and 20 < t.temperature < 100, "TemperatureV")
    nvml.nvmlErrorString.restype = C.c_char_p
    check(nvml.nvmlErrorString(15) == b"GPU is lost", "nvmlErrorString")
    check(nvml.nvmlShutdown() == 0, "shutdown")
    run_pynvml(scenario)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def run_pynvml(scenario):
    """pynvml itself, when installed (never installed by the tests)."""
    try:
        import pynvml  # noqa: F401
    except ImportError:
        print("pynvml not installed: pynvml part skipped")
        return
    code = ("import pynvml as n; n.nvmlInit(); h = n.nvmlDeviceGetHandleByIndex(0);"
            "print(n.nvmlDeviceGetCount(), n.nvmlDeviceGetName(h), n.nvmlDeviceGetMemoryInfo(h).total);"
            "n.nvmlDeviceGetComputeRunningProcesses(h); n.nvmlShutdown()")
    env = dict(os.environ, GPUSIM_SCENARIO=scenario, LD_LIBRARY_PATH=os.path.dirname(LIB))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and r.stdout.startswith("8 "), f"pynvml: {r.stdout} {r.stderr}")


if __name__ == "__main__":
    sys.exit(main())
