#!/usr/bin/env python3
"""test_gpusim_captures.py - gpusim's board presets against the real boards: a scenario of one GPU of
a preset, nothing overridden, read by `gpuwatch --query-gpu` with nvidia-smi's field names, gives
what nvidia-smi printed on that board (tests/data/nvidia-smi/: an H100 80GB HBM3 on driver 590, an
RTX 4080 SUPER on 595) for every field that is the board's own: identity, memory, power limits,
maximum clocks and PCIe link, compute capability, supported throttle reasons, firmware versions.
The oracle is the real capture, not gpusim's model."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvsmi_ref as ref  # noqa: E402
from checks import Checks  # noqa: E402
from skiplib import skip_test  # noqa: E402

GPUWATCH = os.environ.get("GPUWATCH", "build/gpuwatch")
PRESET = {"h100-590": "h100-sxm", "rtx4080-595": "rtx4080"}  # the capture's board -> gpusim's preset
# what a board is, whatever it is doing: the values nvidia-smi prints for it are the preset's
FIELDS = ["name", "memory.total", "memory.reserved", "power.default_limit", "power.min_limit",
          "power.max_limit", "enforced.power.limit", "power.limit", "clocks.max.graphics", "clocks.max.sm",
          "clocks.max.memory", "pcie.link.gen.max", "pcie.link.gen.gpumax", "pcie.link.width.max", "compute_cap",
          "clocks_event_reasons.supported", "pci.device_id", "pci.sub_device_id", "driver_version",
          "vbios_version", "inforom.img", "inforom.oem", "inforom.ecc", "ecc.mode.current", "mig.mode.current",
          "compute_mode", "persistence_mode", "addressing_mode"]
check = Checks()


def main():
    if not os.path.exists(GPUWATCH):
        skip_test("gpuwatch is not built (%s missing)" % GPUWATCH)
    work = tempfile.TemporaryDirectory(prefix="gw-captures-")
    for board, preset in PRESET.items():
        fields, _, vals = ref.query_gpu(board)
        real = dict(zip(fields, vals))
        scen = os.path.join(work.name, board + ".yaml")
        with open(scen, "w") as f:
            f.write('seed: 1\ndriver_version: "%s"\ngpus:\n  - preset: %s\n' % (real["driver_version"], preset))
        p = subprocess.run([GPUWATCH, "--sim", scen, "--query-gpu=" + ",".join(FIELDS), "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=120, env=dict(os.environ, GPUSIM_SPEED="0"))
        check(p.returncode == 0, "%s: --query-gpu: %s" % (board, p.stderr))
        got = p.stdout.strip().split(", ")
        check(len(got) == len(FIELDS), "%s: %d values for %d fields" % (board, len(got), len(FIELDS)))
        for field, value in zip(FIELDS, got):
            check(field in real, "%s: the capture has no %s" % (board, field))
            check(value == real.get(field), "%s (preset %s): %s is '%s', the real board printed '%s'" % (
                board, preset, field, value, real.get(field)))
    print("test_gpusim_captures: %d fields of %d boards, %d failed" % (len(FIELDS), len(PRESET), len(check.failures)))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
