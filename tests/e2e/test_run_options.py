#!/usr/bin/env python3
"""test_run_options.py - gpuwatch run's placement options from the command line, on four simulated
GPUs whose free memory and utilization differ (tests/scenarios/run-options.yaml): --min-free-mem
in each size form, --max-util, --only and --exclude by index, range, UUID and PCI bus id, and their
combinations. For each, the GPUs the job gets (its CUDA_VISIBLE_DEVICES) are exactly the eligible
ones, computed here from what `gpuwatch query` reads and the option's meaning (docs/run.md); one
GPU more than are eligible is exit status 75 with, per GPU, why it was not. --db records the job in
that file only; --no-history records it nowhere."""
import concurrent.futures
import itertools
import json
import os
import subprocess
import sys
import tempfile

from checks import Checks
from skiplib import skip_test

GPUWATCH = os.environ.get("GPUWATCH", "build/gpuwatch")
SRC = os.environ.get("GW_SOURCE_DIR", os.getcwd())
SCEN = os.path.join(SRC, "tests", "scenarios", "run-options.yaml")
TMP = tempfile.TemporaryDirectory(prefix="gw-run-opts-")
ENV = dict(os.environ, GPUWATCH_LOCK_DIR=os.path.join(TMP.name, "locks"), GPUSIM_SPEED="0",
           GPUWATCH_HISTORY_DB=os.path.join(TMP.name, "default.db"), GPUWATCH_AGENT="none")
check = Checks()
MIB = 1 << 20


def gpus():
    """[{index, uuid, pci.bus_id, memory.free, utilization.gpu}] as gpuwatch query reads them."""
    p = subprocess.run([GPUWATCH, "--sim", SCEN, "query", "--fields",
                        "index,uuid,pci.bus_id,memory.free,utilization.gpu", "--format", "json"],
                       capture_output=True, text=True, env=ENV, timeout=120)
    check(p.returncode == 0, "gpuwatch query", p.stderr)
    return json.loads(p.stdout)


SERIAL = itertools.count()


def run(args, ngpus, extra=()):
    """Runs a job; each call has its own lock folder, so that calls made at once never hold GPUs the
    others look at."""
    env = dict(ENV, GPUWATCH_LOCK_DIR=os.path.join(TMP.name, "locks-%d" % next(SERIAL)))
    p = subprocess.run([GPUWATCH, "--sim", SCEN, "run", "--gpus", str(ngpus)] + list(args) + list(extra) +
                       ["--", "sh", "-c", "echo CVD=$CUDA_VISIBLE_DEVICES"],
                       capture_output=True, text=True, env=env, timeout=300)
    return p.returncode, p.stdout, p.stderr


def placed(args, want, info, reason=None):
    """The job gets exactly the GPUs of `want`; one more is refused with 75 and why (`reason`, when
    given, for each GPU left out)."""
    by_uuid = {g["uuid"]: g["index"] for g in info}
    label = " ".join(args)
    if want:
        rc, out, err = run(args, len(want), ["--no-history"])
        got = None
        if rc == 0 and out.startswith("CVD="):
            got = sorted(by_uuid.get(u, -1) for u in out.strip()[4:].split(","))
        check(got == sorted(want), "%s: the job got GPUs %s, eligible %s" % (label, got, sorted(want)), err)
    rc, out, err = run(args, len(want) + 1, ["--no-history"])
    said = "this machine has %d GPUs" % len(info) if len(want) == len(info) else "%d eligible" % len(want)
    check(rc == 75 and said in err and not out,
          "%s: %d GPUs of %d eligible: 75 (rc %d)" % (label, len(want) + 1, len(want), rc), err)
    for g in info:
        if g["index"] not in want:
            check(("GPU %d: " % g["index"]) in err and ("GPU %d: free\n" % g["index"]) not in err,
                  "%s: the message says why GPU %d is not eligible" % (label, g["index"]), err)
            check(reason is None or reason in err, "%s: the reason (%s)" % (label, reason), err)


CASES = []  # (args, eligible GPUs, reason): run four at a time by main


def case(args, want, reason=None):
    CASES.append((args, want, reason))


def test_min_free_mem(info):
    # each size form, in bytes as the option's grammar reads it (docs/run.md, gw_parse_size)
    for arg, size in (("40GiB", 40 << 30), ("40960MiB", 40960 * MIB), ("41943040KiB", 41943040 << 10),
                      ("43GB", 43 * 10**9), ("21000MB", 21000 * 10**6), ("70GiB", 70 << 30), ("80GiB", 80 << 30),
                      ("1", 1)):
        want = [g["index"] for g in info if g["memory.free"] * MIB >= size]
        case(["--min-free-mem", arg], want, "under --min-free-mem")


def test_max_util(info):
    # a GPU at most PCT busy is eligible (src/run/placement.c)
    for pct in ("4", "5", "6", "11", "39", "40", "90", "100"):
        want = [g["index"] for g in info if g["utilization.gpu"] <= float(pct)]
        case(["--max-util", pct], want)


def test_only_and_exclude(info):
    ids = {g["index"]: g for g in info}
    for args, want in ((["--exclude", "0"], [1, 2, 3]), (["--exclude", "0-1"], [2, 3]),
                       (["--exclude", "1,3"], [0, 2]),
                       (["--exclude", ids[2]["uuid"]], [0, 1, 3]),
                       (["--exclude", ids[3]["pci.bus_id"]], [0, 1, 2]),
                       (["--exclude", "%s,%d" % (ids[0]["uuid"], 2)], [1, 3]),
                       (["--only", "1-3", "--exclude", "2"], [1, 3]),
                       (["--only", ids[1]["pci.bus_id"]], [1]),
                       (["--only", "0,1", "--exclude", "0-1"], [])):
        case(args, want)


def test_combined(info):
    free = {g["index"]: g["memory.free"] * MIB for g in info}
    util = {g["index"]: g["utilization.gpu"] for g in info}
    for size, pct, excl in ((40 << 30, 50, "3"), (20 << 30, 50, "0"), (40 << 30, 95, "0"), (70 << 30, 50, "1")):
        want = [g for g in free if free[g] >= size and util[g] <= pct and g != int(excl)]
        case(["--min-free-mem", "%dGiB" % (size >> 30), "--max-util", str(pct), "--exclude", excl], want)


def jobs(db):
    p = subprocess.run([GPUWATCH, "jobs", "--db", db], capture_output=True, text=True, env=ENV, timeout=120)
    return p.stdout if p.returncode == 0 else ""


def test_db(info):
    db = os.path.join(TMP.name, "chosen.db")
    p = subprocess.run([GPUWATCH, "--sim", SCEN, "run", "--db", db, "--name", "into-chosen-db", "--", "true"],
                       capture_output=True, text=True, env=ENV, timeout=120)
    check(p.returncode == 0, "a run with --db", p.stderr)
    check("into-chosen-db" in jobs(db), "--db: the job is in that file", jobs(db))
    check("into-chosen-db" not in jobs(ENV["GPUWATCH_HISTORY_DB"]),
          "--db: not in the default file ($GPUWATCH_HISTORY_DB)", jobs(ENV["GPUWATCH_HISTORY_DB"]))
    p = subprocess.run([GPUWATCH, "--sim", SCEN, "run", "--name", "into-default-db", "--", "true"],
                       capture_output=True, text=True, env=ENV, timeout=120)
    check(p.returncode == 0 and "into-default-db" in jobs(ENV["GPUWATCH_HISTORY_DB"]),
          "without --db: the default file", p.stderr + jobs(ENV["GPUWATCH_HISTORY_DB"]))
    p = subprocess.run([GPUWATCH, "--sim", SCEN, "run", "--no-history", "--db", db, "--name", "recorded-nowhere",
                        "--", "true"], capture_output=True, text=True, env=ENV, timeout=120)
    check(p.returncode == 0 and "recorded-nowhere" not in jobs(db) + jobs(ENV["GPUWATCH_HISTORY_DB"]),
          "--no-history: recorded nowhere", p.stderr)


def main():
    if not os.path.exists(GPUWATCH):
        skip_test("gpuwatch is not built (%s missing)" % GPUWATCH)
    info = gpus()
    if not check(len(info) == 4, "four GPUs", str(info)):
        return 1
    for t in (test_min_free_mem, test_max_util, test_only_and_exclude, test_combined):
        t(info)
    # each case is independent (its own lock folders): four at a time
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        for f in [pool.submit(placed, args, want, info, reason) for args, want, reason in CASES]:
            f.result()
    test_db(info)
    print("%d passed, %d failed" % (check.passed, len(check.failures)))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
