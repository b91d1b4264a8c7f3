#!/usr/bin/env python3
"""test_mig_capture.py - an H100 in MIG mode, as nvidia-smi showed it on the real machine
(tests/data/nvidia-smi/h100-mig-590-*, from the capture nvidia-smi-h100-mig), rebuilt in gpusim
(tests/scenarios/mig-h100.yaml: the capture's MIG devices and processes) and read by gpuwatch:
`list` prints nvidia-smi -L's lines byte for byte, MIG devices included; --query-gpu gives the
capture's MIG mode and its [N/A] utilizations; the agent's /metrics has, per MIG device, the
dcgm-exporter series DCGM_FI_DEV_FB_USED / _FB_FREE with GPU_I_PROFILE and GPU_I_ID and the memory
of the capture's "MIG devices" table, and /api/v1/gpus lists them; `top` shows each MIG device's
profile, GPU instance and memory; the processes are the capture's."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvsmi_ref as ref  # noqa: E402
from agentlib import Agent, need_gpusim, parse_metrics, scenario, series, wait_for  # noqa: E402
from checks import Checks  # noqa: E402
from skiplib import need_command  # noqa: E402

GPUWATCH = os.environ.get("GPUWATCH", "build/gpuwatch")
BOARD = "h100-mig-590"
SCEN = scenario("mig-h100.yaml")
ENV = dict(os.environ, GPUSIM_SPEED="0")
check = Checks()


def gw(*args):
    p = subprocess.run([GPUWATCH, "--sim", SCEN] + list(args), capture_output=True, text=True, env=ENV, timeout=120)
    check(p.returncode == 0, "gpuwatch %s: %s" % (" ".join(args), p.stderr))
    return p.stdout


def mig_table():
    """The capture's MIG devices: [(gpu, gi, ci, mig dev, used MiB, total MiB)] in table order."""
    rows = []
    for line in ref.ref_lines(BOARD, "mig-devices.txt"):
        m = re.match(r"^\|\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\|\s+(\d+)MiB /\s+(\d+)MiB", line)
        if m:
            rows.append(tuple(int(x) for x in m.groups()))
    return rows


def capture_processes():
    """The capture's processes table: [(gpu, gi, ci, pid, name, MiB)]."""
    out = []
    for line in ref.ref_lines(BOARD, "mig-devices.txt"):
        m = re.match(r"^\|\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+C\s+(\S+)\s+(\d+)MiB \|$", line)
        if m:
            g = m.groups()
            out.append((int(g[0]), int(g[1]), int(g[2]), int(g[3]), g[4], int(g[5])))
    return out


def test_list(profiles):
    want = ref.ref_lines(BOARD, "list.txt")
    got = gw("list").splitlines()
    check(got == want, "list is nvidia-smi -L, MIG devices included:\n%s\nnvidia-smi:\n%s" % (
        "\n".join(got), "\n".join(want)))
    check(len(profiles) == 4 and len(mig_table()) == 4, "the capture's four MIG devices: %r" % profiles)


def test_query():
    fields, _, vals = ref.query_gpu(BOARD)
    real = dict(zip(fields, vals))
    ask = ["name", "uuid", "pci.bus_id", "memory.total", "memory.used", "mig.mode.current", "mig.mode.pending",
           "utilization.gpu", "utilization.memory", "utilization.encoder", "utilization.decoder", "utilization.jpeg",
           "utilization.ofa"]
    got = gw("--query-gpu=" + ",".join(ask), "--format=csv,noheader").strip().split(", ")
    for f, v in zip(ask, got):
        check(v == real[f], "--query-gpu %s: '%s', nvidia-smi printed '%s'" % (f, v, real[f]))
    apps = gw("--query-compute-apps=pid,process_name,used_memory", "--format=csv,noheader,nounits").splitlines()
    want = ["%d, %s, %d" % (pid, name, mib) for _, _, _, pid, name, mib in capture_processes()]
    check(sorted(apps) == sorted(want) and len(want) == 3, "the processes: %r, capture %r" % (apps, want))


def test_exporter(profiles):
    a = Agent(SCEN, env={"GPUSIM_SPEED": "0"})
    try:
        a.wait_sampled(ngpus=1)

        def mig_series():
            m = parse_metrics(a.request("/metrics")[2])
            used = [s for s in series(m, "DCGM_FI_DEV_FB_USED") if "GPU_I_ID" in s[1]]
            return (m, used) if len(used) == 4 else None
        m, used = wait_for("the MIG devices' series", mig_series, timeout=60)
        for gpu, gi, ci, dev, mib_used, mib_total in mig_table():
            labels = dict(gpu=str(gpu), GPU_I_ID=str(gi), GPU_I_PROFILE=profiles[dev])
            u = series(m, "DCGM_FI_DEV_FB_USED", **labels)
            f = series(m, "DCGM_FI_DEV_FB_FREE", **labels)
            check(len(u) == 1 and u[0][2] == mib_used, "FB_USED of MIG device %d (GI %d, %s): %r, capture %d MiB" % (
                dev, gi, profiles[dev], u, mib_used))
            check(len(f) == 1 and f[0][2] == mib_total - mib_used, "FB_FREE of MIG device %d: %r, capture %d MiB" % (
                dev, f, mib_total - mib_used))
            check(u and u[0][1].get("UUID") == "GPU-00000000-0000-0000-0000-000000000000" and
                  u[0][1].get("modelName") == "NVIDIA H100 80GB HBM3", "the GPU's labels on it: %r" % (u,))
        whole = [s for s in series(m, "DCGM_FI_DEV_FB_USED", gpu="0") if "GPU_I_ID" not in s[1]]
        check(len(whole) == 1, "the GPU's own FB_USED series is kept beside its MIG devices': %r" % whole)
        mig = a.get_json("/api/v1/gpus")["gpus"][0]["mig_devices"]
        got = [(d["gpu_instance_id"], d["compute_instance_id"], d["index"], d["memory.used"], d["memory.total"],
                d["profile"]) for d in mig]
        want = [(gi, ci, dev, u, t, profiles[dev]) for _, gi, ci, dev, u, t in mig_table()]
        check(got == want, "/api/v1/gpus mig_devices: %r, capture %r" % (got, want))
    finally:
        a.stop()


def test_top(profiles):
    out = gw("top", "--once")
    lines = [line for line in out.splitlines() if line.strip().startswith("MIG ")]
    check(len(lines) == 1, "top --once: one MIG line under the GPU:\n" + out)
    text = lines[0] if lines else ""
    at = 0
    for _, gi, _, dev, _, _ in mig_table():
        want = "%s GI %d " % (profiles[dev], gi)
        pos = text.find(want, at)
        check(pos >= 0, "top: MIG device %d as '%s', in order: %s" % (dev, want, text))
        at = pos + 1 if pos >= 0 else at
    gpu_line = [c for c in out.splitlines() if c.startswith("0 ")]
    check(gpu_line and gpu_line[0].split()[5] == "N/A", "top: the GPU's utilization is N/A in MIG mode: %r" % gpu_line)


def test_top_screen(profiles):
    """The live screen: the MIG devices' line in the GPU's panel, between its figures and the charts."""
    tmux = need_command("tmux", "tmux")
    sock = "gwmig%d" % os.getpid()
    base = [tmux, "-L", sock, "-f", "/dev/null"]
    cmd = "GPUSIM_SPEED=0 LANG=C.UTF-8 LC_ALL=C.UTF-8 XDG_CONFIG_HOME=/nonexistent-gw-test %s --sim %s top" % (
        GPUWATCH, SCEN)
    subprocess.run(base + ["new-session", "-d", "-s", "m", "-x", "150", "-y", "30", cmd], check=True, timeout=60)
    try:
        def screen():
            p = subprocess.run(base + ["capture-pane", "-p", "-t", "m"], capture_output=True, text=True, timeout=60)
            return p.stdout if p.returncode == 0 and "MIG %s GI" % profiles[0] in p.stdout else None
        text = wait_for("the MIG line on top's screen", screen, timeout=60)
        lines = text.splitlines()
        at = [i for i, line in enumerate(lines) if line.strip().startswith("MIG ")]
        check(len(at) == 1 and lines[at[0] - 2].startswith(" 0 H100 80GB HBM3"),
              "the MIG line is the GPU panel's third line:\n" + text)
        for _, gi, _, dev, _, _ in mig_table():
            check("%s GI %d " % (profiles[dev], gi) in text, "top's screen: MIG device %d (GI %d)" % (dev, gi))
    finally:
        subprocess.run(base + ["kill-server"], capture_output=True, timeout=60)


def main():
    need_gpusim()
    profiles = {}
    for line in ref.ref_lines(BOARD, "list.txt"):
        m = re.match(r"^  MIG (\S+)\s+Device\s+(\d+):", line)
        if m:
            profiles[int(m.group(2))] = m.group(1)
    test_list(profiles)
    test_query()
    test_exporter(profiles)
    test_top(profiles)
    test_top_screen(profiles)
    print("test_mig_capture: %d failed" % len(check.failures))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
