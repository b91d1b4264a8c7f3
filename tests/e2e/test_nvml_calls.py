#!/usr/bin/env python3
"""test_nvml_calls.py - what gpuwatch costs in NVML calls, counted by gpusim (GPUSIM_CALLS=FILE): the
counts file itself; the field values read in one call per GPU and round (power draw and limits with
them); a process's name asked once however many rounds list it; the process list asked once a round
while it fits the buffer, the MPS list not at all without an MPS server; settings and the memory
clock kept between rounds; a library that refuses field values still gives every metric through the
single getters. Rounds are loops of `query -lms` stopped with SIGINT, counted from the calls."""
import os
import signal
import subprocess
import sys
import tempfile
import time

GPUWATCH = os.environ.get("GPUWATCH", "build/gpuwatch")
SRC = os.environ.get("GW_SOURCE_DIR", os.getcwd())
SCEN = os.path.join(SRC, "tests", "scenarios")

failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, detail), file=sys.stderr)


def counts(path):
    """{function: calls, "TOTAL": all} of a GPUSIM_CALLS file ("N function" lines, then "TOTAL N")."""
    out = {}
    with open(path) as f:
        for line in f:
            a, b = line.split()
            if a == "TOTAL":
                out["TOTAL"] = int(b)
            else:
                out[b] = int(a)
    return out


def loop(args, scenario, seconds=1.5, env=None):
    """Runs gpuwatch ARGS in a -lms loop for about SECONDS, stops it with SIGINT; its calls."""
    with tempfile.TemporaryDirectory() as d:
        calls = os.path.join(d, "calls")
        e = dict(os.environ, GPUSIM_CALLS=calls, GPUSIM_SPEED="0", GPUSIM_T0="30")
        e.update(env or {})
        p = subprocess.Popen([GPUWATCH, "--sim", scenario] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=e, text=True)
        time.sleep(seconds)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        check(p.returncode == 0, "%s ends with status 0 on SIGINT" % args, err)
        check(os.path.exists(calls), "GPUSIM_CALLS wrote its file", err)
        return (counts(calls) if os.path.exists(calls) else {}), out


def test_counts_file():
    c, _ = loop(["query", "--fields", "index", "-lms", "200"], "idle-1gpu", 0.5)
    check(c.get("TOTAL", 0) == sum(v for k, v in c.items() if k != "TOTAL") and c.get("nvmlInit_v2") == 1 and
          c.get("nvmlShutdown") == 1, "the counts add up to TOTAL; one init, one shutdown", str(c))


def test_fields_in_one_call():
    fields = "index,power.draw,power.limit,enforced.power.limit,temperature.memory,ecc.errors.corrected.volatile.total"
    for scenario, ngpu in (("demo-8gpu", 8), ("idle-1gpu", 1)):
        c, out = loop(["query", "--fields", fields, "--format", "csv", "-lms", "100"], scenario)
        rounds = len([l for l in out.split("\n") if l and not l.startswith("index")]) // ngpu
        check(rounds >= 3, "%s: several rounds" % scenario, out[-300:])
        fv = c.get("nvmlDeviceGetFieldValues", 0)
        check(rounds * ngpu <= fv <= (rounds + 1) * ngpu, "%s: one field-values call per GPU and round" % scenario,
              "%d rounds, %s" % (rounds, c))
        for fn in ("nvmlDeviceGetPowerUsage", "nvmlDeviceGetPowerManagementLimit", "nvmlDeviceGetEnforcedPowerLimit",
                   "nvmlDeviceGetTotalEccErrors"):
            check(c.get(fn, 0) == 0, "%s: %s not called (its field is in the one call)" % (scenario, fn), str(c))
        check("[N/A]" not in out, "%s: every value there" % scenario, out[-300:])


def test_field_values_refused():
    """GetFieldValues missing (FUNCTION_NOT_FOUND): the single getters give the same metrics."""
    with tempfile.TemporaryDirectory() as d:
        sc = os.path.join(d, "refused.yaml")
        with open(os.path.join(SCEN, "nvsmi-compat.yaml")) as f:
            text = f.read()
        with open(sc, "w") as f:
            f.write(text + "faults:\n  - {missing_symbol: nvmlDeviceGetFieldValues}\n")
        fields = "power.draw,power.limit,enforced.power.limit,ecc.errors.corrected.volatile.dram"
        c, out = loop(["query", "--fields", fields, "--format", "csv,noheader", "-lms", "100", "-i", "0"], sc, 1.0)
        rows = [l for l in out.split("\n") if l]
        check(rows and all("[N/A]" not in r for r in rows) and rows[0].startswith("631.95 W"),
              "fields refused: the getters give power, limits and ECC", out)
        check(c.get("nvmlDeviceGetPowerUsage", 0) >= len(rows) and c.get("nvmlDeviceGetMemoryErrorCounter", 0) >= 1,
              "... through GetPowerUsage and GetMemoryErrorCounter", str(c))


def test_processes():
    for scenario, ngpu in (("demo-8gpu", 8), ("training-8gpu", 8)):
        c, out = loop(["query", "--processes", "--format", "csv", "-lms", "100"], scenario)
        pids = {l.split(", ")[0] for l in out.split("\n")[1:] if l and not l.startswith("pid")}
        rounds = c.get("nvmlDeviceGetGraphicsRunningProcesses_v3", 0) // ngpu
        check(rounds >= 3, "%s: several rounds" % scenario, str(c))
        check(c.get("nvmlSystemGetProcessName", 0) == len(pids),
              "%s: each process's name asked once (%d pids, %d rounds)" % (scenario, len(pids), rounds), str(c))
        check(c.get("nvmlDeviceGetComputeRunningProcesses_v3", 0) <= (rounds + 1) * ngpu,
              "%s: one compute-list call per GPU and round (the buffer fits)" % scenario, str(c))
        check(c.get("nvmlDeviceGetMPSComputeRunningProcesses_v3", 0) == 0,
              "%s: no MPS list without an MPS server" % scenario, str(c))


def test_slow_metrics_kept():
    fields = "index,clocks.mem,compute_mode,persistence_mode,pcie.link.gen.current,clocks.sm"
    c, out = loop(["query", "--fields", fields, "--format", "csv,noheader", "-lms", "100"], "idle-1gpu")
    rounds = len([l for l in out.split("\n") if l])
    check(rounds >= 4, "several rounds", out)
    check(c.get("nvmlDeviceGetComputeMode", 0) == 1 and c.get("nvmlDeviceGetPersistenceMode", 0) == 1 and
          c.get("nvmlDeviceGetCurrPcieLinkGeneration", 0) == 1,
          "settings and the PCIe link asked once in %d rounds (the same pstate)" % rounds, str(c))
    # the SM clock every round (one more when SIGINT came after a round's reads, before its line)
    check(rounds + 1 <= c.get("nvmlDeviceGetClockInfo", 0) <= rounds + 2, "the SM clock every round, the memory clock once",
          "%d rounds, %s" % (rounds, c))
    check(len(set(out.split("\n")) - {""}) == 1, "the kept values are the values", out)


def main():
    for t in (test_counts_file, test_fields_in_one_call, test_field_values_refused, test_processes,
              test_slow_metrics_kept):
        t()
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        return 1
    print("test_nvml_calls: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
