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
    # nvitop's driver-model query (pynvml's nvmlDeviceGetCurrentDriverModel): NOT_SUPPORTED on Linux
    cur, pend = C.c_uint(7), C.c_uint(7)
    check(nvml.nvmlDeviceGetDriverModel(h, C.byref(cur), C.byref(pend)) == 3, "DriverModel: NOT_SUPPORTED")
    check(nvml.nvmlShutdown() == 0, "shutdown")
    render_equals_library(nvml)
    run_pynvml(scenario)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


class Utilization(C.Structure):
    _fields_ = [("gpu", C.c_uint), ("memory", C.c_uint)]


def render_equals_library(nvml):
    """What `gpusim render` prints at t is what the library answers at t, set with gpusimSetTime:
    utilization means (edges inside the period), PCIe rates clamped at the link."""
    tool = os.environ.get("GPUSIM_TOOL")
    if not tool:
        print("GPUSIM_TOOL not set: render comparison skipped")
        return
    nvml.gpusimSetTime.argtypes = [C.c_double]
    for name, times in (("short-stalls", (0.75, 1.05, 2.55, 3.6, 9.999)), ("pcie-bound", (3.0, 17.5))):
        path = os.path.join(SRC, "sim", "scenarios", name + ".yaml")
        os.environ.update(GPUSIM_SCENARIO=path, GPUSIM_SPEED="1", GPUSIM_T0="0")
        check(nvml.nvmlInit_v2() == 0, "init " + name)
        n = C.c_uint(0)
        nvml.nvmlDeviceGetCount_v2(C.byref(n))
        for t in times:
            check(nvml.gpusimSetTime(t) == 0, "gpusimSetTime")
            out = subprocess.run([tool, "render", path, "--start", "%gs" % t, "--duration", "0",
                                  "--metrics", "utilization.gpu,utilization.memory,pcie.rx_throughput"],
                                 capture_output=True, text=True).stdout.splitlines()[1:]
            for g in range(n.value):
                h = C.c_void_p()
                nvml.nvmlDeviceGetHandleByIndex_v2(g, C.byref(h))
                u, rx = Utilization(), C.c_uint()
                nvml.nvmlDeviceGetUtilizationRates(h, C.byref(u))
                nvml.nvmlDeviceGetPcieThroughput(h, 1, C.byref(rx))
                lib = "%g,%d,%d,%d,%d" % (t, g, u.gpu, u.memory, rx.value)
                check(out[g] == lib, "%s t=%g gpu %d: render %s, library %s" % (name, t, g, out[g], lib))
        check(nvml.nvmlShutdown() == 0, "shutdown " + name)


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
