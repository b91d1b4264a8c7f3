"""nvml_client.py - a small NVML client in ctypes that calls libnvidia-ml.so.1 the way pynvml
(nvidia-ml-py 12.560) does, for the tests (pynvml itself is in no registry the test machines reach).
What it copies from pynvml is its calls, not its code (../shared/nvml-reference.md, section 17):
the library loaded by its soname (CDLL("libnvidia-ml.so.1"), so LD_LIBRARY_PATH finds a fake);
symbols looked up on first use, a missing one raising FunctionNotFound (13) only when called;
nvmlInit() as nvmlInitWithFlags(0); the _v2 names of GetCount and GetHandleByIndex; 96-byte name and
UUID buffers, 80 for the driver version; GetMemoryInfo v1 unless version=nvmlMemory_v2 is asked; the
process lists' two calls (count 0 and NULL, then count*2+5 24-byte records); ProcessUtilization going
on only after INSUFFICIENT_SIZE.

Run as a program, it prints as JSON what gpustat reads of every GPU, in gpustat's order: the count,
then per GPU the handle, index, name, UUID, MemoryInfo_v2, temperature, fan, utilization, encoder
and decoder, power, enforced limit, compute and graphics processes (errors of the guarded ones
become null, as gpustat shows them), and the driver version."""
import ctypes as C
import json
import sys

SUCCESS, NOT_SUPPORTED, INSUFFICIENT_SIZE, FUNCTION_NOT_FOUND = 0, 3, 7, 13
MEMORY_V2 = 0x02000028  # NVML_STRUCT_VERSION(Memory, 2): sizeof 40 | 2 << 24


class NVMLError(Exception):
    def __init__(self, code, text=""):
        super().__init__("NVML error %d%s" % (code, ": " + text if text else ""))
        self.code = code


class Memory(C.Structure):
    _fields_ = [("total", C.c_ulonglong), ("free", C.c_ulonglong), ("used", C.c_ulonglong)]


class MemoryV2(C.Structure):
    _fields_ = [("version", C.c_uint), ("total", C.c_ulonglong), ("reserved", C.c_ulonglong),
                ("free", C.c_ulonglong), ("used", C.c_ulonglong)]


class Utilization(C.Structure):
    _fields_ = [("gpu", C.c_uint), ("memory", C.c_uint)]


class ProcessInfo(C.Structure):  # the 24-byte record pynvml uses for _v2 and _v3 alike
    _fields_ = [("pid", C.c_uint), ("usedGpuMemory", C.c_ulonglong),
                ("gpuInstanceId", C.c_uint), ("computeInstanceId", C.c_uint)]


class UtilSample(C.Structure):
    _fields_ = [("pid", C.c_uint), ("timeStamp", C.c_ulonglong), ("smUtil", C.c_uint),
                ("memUtil", C.c_uint), ("encUtil", C.c_uint), ("decUtil", C.c_uint)]


class Nvml:
    def __init__(self, path="libnvidia-ml.so.1"):
        self.lib = C.CDLL(path)
        self.fns = {}

    def fn(self, name):
        """The function, looked up on first use; FunctionNotFound when the library lacks it."""
        if name not in self.fns:
            try:
                self.fns[name] = getattr(self.lib, name)
            except AttributeError:
                raise NVMLError(FUNCTION_NOT_FOUND, name) from None
        return self.fns[name]

    def call(self, name, *args):
        rc = self.fn(name)(*args)
        if rc != SUCCESS:
            raise NVMLError(rc, self.error_string(rc))

    def error_string(self, rc):
        f = self.fn("nvmlErrorString")
        f.restype = C.c_char_p
        return f(rc).decode()

    def init(self):
        self.call("nvmlInitWithFlags", C.c_uint(0))

    def shutdown(self):
        self.call("nvmlShutdown")

    def count(self):
        n = C.c_uint()
        self.call("nvmlDeviceGetCount_v2", C.byref(n))
        return n.value

    def handle(self, index):
        h = C.c_void_p()
        self.call("nvmlDeviceGetHandleByIndex_v2", C.c_uint(index), C.byref(h))
        return h

    def index(self, h):
        i = C.c_uint()
        self.call("nvmlDeviceGetIndex", h, C.byref(i))
        return i.value

    def text(self, name, h, size):
        buf = C.create_string_buffer(size)
        if h is None:
            self.call(name, buf, C.c_uint(size))
        else:
            self.call(name, h, buf, C.c_uint(size))
        return buf.value.decode()

    def memory(self, h, version=None):
        if version is None:
            m = Memory()
            self.call("nvmlDeviceGetMemoryInfo", h, C.byref(m))
        else:
            m = MemoryV2(version=version)
            self.call("nvmlDeviceGetMemoryInfo_v2", h, C.byref(m))
        return m

    def uint(self, name, h, *args):
        v = C.c_uint()
        self.call(name, h, *args, C.byref(v))
        return v.value

    def utilization(self, h):
        u = Utilization()
        self.call("nvmlDeviceGetUtilizationRates", h, C.byref(u))
        return u

    def codec(self, name, h):
        util, period = C.c_uint(), C.c_uint()
        self.call(name, h, C.byref(util), C.byref(period))
        return util.value

    def processes(self, name, h):
        count = C.c_uint(0)
        rc = self.fn(name)(h, C.byref(count), None)
        if rc == SUCCESS:
            return []
        if rc != INSUFFICIENT_SIZE:
            raise NVMLError(rc, self.error_string(rc))
        size = count.value * 2 + 5
        procs = (ProcessInfo * size)()
        count = C.c_uint(size)
        self.call(name, h, C.byref(count), procs)
        return [{"pid": procs[i].pid, "used_mib": procs[i].usedGpuMemory >> 20} for i in range(count.value)]

    def process_utilization(self, h, since=0):
        count = C.c_uint(0)
        rc = self.fn("nvmlDeviceGetProcessUtilization")(h, None, C.byref(count), C.c_ulonglong(since))
        if rc != INSUFFICIENT_SIZE:
            raise NVMLError(rc, self.error_string(rc))
        samples = (UtilSample * count.value)()
        self.call("nvmlDeviceGetProcessUtilization", h, samples, C.byref(count), C.c_ulonglong(since))
        return [(samples[i].pid, samples[i].smUtil) for i in range(count.value)]


def guarded(f, *args):
    """gpustat's guarded reads: any NVML error (FunctionNotFound too) is a missing value."""
    try:
        return f(*args)
    except NVMLError:
        return None


def gpustat_snapshot(nv):
    gpus = []
    for i in range(nv.count()):
        h = nv.handle(i)
        g = {"index": nv.index(h), "name": nv.text("nvmlDeviceGetName", h, 96),
             "uuid": nv.text("nvmlDeviceGetUUID", h, 96)}
        m = nv.memory(h, version=MEMORY_V2)
        g.update(memory_total_mib=m.total >> 20, memory_used_mib=m.used >> 20, memory_free_mib=m.free >> 20,
                 memory_reserved_mib=m.reserved >> 20)
        g["temperature"] = guarded(nv.uint, "nvmlDeviceGetTemperature", h, C.c_int(0))
        g["fan"] = guarded(nv.uint, "nvmlDeviceGetFanSpeed", h)
        u = guarded(nv.utilization, h)
        g["utilization_gpu"] = u.gpu if u else None
        g["utilization_memory"] = u.memory if u else None
        g["encoder"] = guarded(nv.codec, "nvmlDeviceGetEncoderUtilization", h)
        g["decoder"] = guarded(nv.codec, "nvmlDeviceGetDecoderUtilization", h)
        g["power_mw"] = guarded(nv.uint, "nvmlDeviceGetPowerUsage", h)
        g["enforced_limit_mw"] = guarded(nv.uint, "nvmlDeviceGetEnforcedPowerLimit", h)
        g["compute"] = guarded(nv.processes, "nvmlDeviceGetComputeRunningProcesses_v3", h)
        g["graphics"] = guarded(nv.processes, "nvmlDeviceGetGraphicsRunningProcesses_v3", h)
        g["memory_v1"] = {k: getattr(nv.memory(h), k) >> 20 for k in ("total", "free", "used")}
        gpus.append(g)
    return {"gpus": gpus, "driver": nv.text("nvmlSystemGetDriverVersion", None, 80)}


def main():
    nv = Nvml()
    nv.init()
    snap = gpustat_snapshot(nv)
    try:
        nv.fn("nvmlDeviceGetNoSuchThing")
        snap["missing_symbol"] = "found"
    except NVMLError as e:
        snap["missing_symbol"] = e.code
    nv.shutdown()
    json.dump(snap, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
