#!/usr/bin/env python3
"""test_gpusim_ctypes.py - gpusim's libnvidia-ml.so.1 called from Python ctypes the way pynvml
(and so gpustat and nvitop) call it: nvmlInitWithFlags, 96-byte name buffers, MemoryInfo_v2 with
its version, the process two-call protocol with count*2+5 records, ProcessUtilization with a
NULL buffer, TemperatureV. Then nvml_client.py, pynvml's calls in pynvml's order, loads the library
by its soname through LD_LIBRARY_PATH in a process of its own and reads every GPU as gpustat does:
what it reads must be what `gpuwatch query` reads through its own NVML backend at the same
simulated time. A sanitizer build of gpusim is loaded with the sanitizer runtimes preloaded."""
import ctypes as C
import json
import os
import re
import subprocess
import sys

from skiplib import exit_status, skip_part, skip_test

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
    return cond


def sanitizer_runtimes(path):
    """The sanitizer runtimes a library needs (sonames such as libasan.so.8), [] for a normal build."""
    with open(path, "rb") as f:
        data = f.read()
    return sorted({m.decode() for m in re.findall(rb"lib(?:asan|ubsan)\.so\.[0-9]+", data)})


def with_sanitizer_runtimes():
    """An ASan build of gpusim cannot be loaded into a Python that did not start with the ASan
    runtime: runs this test again with the runtimes preloaded (Python's own allocations are not
    leak-checked, gpusim's errors still abort). Returns only when nothing needs preloading."""
    need = sanitizer_runtimes(LIB)
    have = os.environ.get("LD_PRELOAD", "")
    if not need or all(r in have for r in need):
        return
    env = dict(os.environ, LD_PRELOAD=" ".join(need + ([have] if have else [])),
               ASAN_OPTIONS="detect_leaks=0:abort_on_error=1")
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


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
        skip_test("GPUSIM_LIB is not set or not built (%s)" % LIB)
    with_sanitizer_runtimes()
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
    pynvml_calls_agree_with_gpuwatch(scenario)
    print(f"{passed} passed, {failed} failed")
    return exit_status(failed)


class Utilization(C.Structure):
    _fields_ = [("gpu", C.c_uint), ("memory", C.c_uint)]


def render_equals_library(nvml):
    """What `gpusim render` prints at t is what the library answers at t, set with gpusimSetTime:
    utilization means (edges inside the period), PCIe rates clamped at the link."""
    tool = os.environ.get("GPUSIM_TOOL")
    if not tool or not os.path.exists(tool):
        if not skip_part("GPUSIM_TOOL is not set or not built: gpusim render against the library"):
            check(False, "GPUSIM_TOOL")
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


def pynvml_calls_agree_with_gpuwatch(scenario):
    """nvml_client.py (pynvml's calls, in pynvml's order, the library found by its soname) reads what
    gpuwatch's own NVML backend reads at the same simulated time: names, UUIDs, memory, temperature,
    utilization, power, the enforced limit, an unsupported fan as missing, the processes."""
    client = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nvml_client.py")
    env = dict(os.environ, GPUSIM_SCENARIO=scenario, GPUSIM_SPEED="0", GPUSIM_T0="30",
               LD_LIBRARY_PATH=os.path.dirname(LIB))
    r = subprocess.run([sys.executable, client], env=env, capture_output=True, text=True, timeout=120)
    if not check(r.returncode == 0, "nvml_client.py: %s" % r.stderr[-2000:]):
        return
    snap = json.loads(r.stdout)
    gw = os.environ.get("GPUWATCH")
    if not gw or not os.path.exists(gw):
        if not skip_part("GPUWATCH is not set or not built: nvml_client.py against gpuwatch query"):
            check(False, "GPUWATCH")
        return
    fields = ("index,name,uuid,memory.total,memory.used,memory.free,memory.reserved,temperature.gpu,"
              "utilization.gpu,utilization.memory,power.draw.instant,enforced.power.limit,fan.speed,"
              "utilization.encoder,utilization.decoder,driver_version")
    q = subprocess.run([gw, "--sim", scenario, "query", "--fields", fields, "--format", "json"],
                       env=dict(os.environ, GPUSIM_SPEED="0", GPUSIM_T0="30"), capture_output=True, text=True,
                       timeout=120)
    if not check(q.returncode == 0, "gpuwatch query: %s" % q.stderr):
        return
    rows = json.loads(q.stdout)
    check(len(snap["gpus"]) == len(rows) == 8, "8 GPUs through both (%d, %d)" % (len(snap["gpus"]), len(rows)))
    check(snap["missing_symbol"] == 13, "a function the library lacks: FunctionNotFound when called")
    procs = {}
    pq = subprocess.run([gw, "--sim", scenario, "query", "--processes", "--format", "json"],
                        env=dict(os.environ, GPUSIM_SPEED="0", GPUSIM_T0="30"), capture_output=True, text=True,
                        timeout=120)
    if check(pq.returncode == 0, "gpuwatch query --processes: %s" % pq.stderr):
        for p in json.loads(pq.stdout):
            procs.setdefault(p["gpu_uuid"], set()).add(p["pid"])
    for g, row in zip(snap["gpus"], rows):
        what = "GPU %d: client %s, gpuwatch %s" % (row["index"], json.dumps(g)[:300], json.dumps(row)[:300])
        check(g["index"] == row["index"] and g["name"] == row["name"] and g["uuid"] == row["uuid"], "identity " + what)
        check((g["memory_total_mib"], g["memory_used_mib"], g["memory_free_mib"], g["memory_reserved_mib"]) ==
              (row["memory.total"], row["memory.used"], row["memory.free"], row["memory.reserved"]), "memory " + what)
        # pynvml's default MemoryInfo (v1) counts the reserved memory as used, as the driver does
        v1 = g["memory_v1"]
        check(v1["total"] == row["memory.total"] and v1["used"] == row["memory.used"] + row["memory.reserved"],
              "MemoryInfo v1 " + what)
        check(g["temperature"] == row["temperature.gpu"], "temperature " + what)
        check((g["utilization_gpu"], g["utilization_memory"]) == (row["utilization.gpu"], row["utilization.memory"]),
              "utilization " + what)
        check((g["encoder"], g["decoder"]) == (row["utilization.encoder"], row["utilization.decoder"]), "codecs " + what)
        check(g["power_mw"] is not None and abs(g["power_mw"] / 1000 - row["power.draw.instant"]) < 0.01,
              "power " + what)
        check(g["enforced_limit_mw"] is not None and abs(g["enforced_limit_mw"] / 1000 - row["enforced.power.limit"])
              < 0.01, "enforced limit " + what)
        check((g["fan"] is None) == (row["fan.speed"] is None), "fan (unsupported: missing in both) " + what)
        pids = {p["pid"] for p in (g["compute"] or []) + (g["graphics"] or [])}
        check(pids == procs.get(row["uuid"], set()), "processes %s vs %s: %s" % (pids, procs.get(row["uuid"]), what))
    check(snap["driver"] == rows[0]["driver_version"], "driver version %s" % snap["driver"])


if __name__ == "__main__":
    sys.exit(main())
