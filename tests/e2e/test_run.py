#!/usr/bin/env python3
"""test_run.py - gpuwatch run end to end on gpusim: concurrent runs never share a GPU, a killed run
frees its GPUs (and takes its job with it), --wait gives up with a clear message or gets the GPUs when
they come free, the CPU affinity the job sees matches the simulated topology (clamped to this
machine's CPUs), the energy equals the scenario's power integral (counter and integrated readings),
step times from fake jobs' output, the job's exit status and signals pass through, and the jobs
recorded in the history (gpuwatch jobs)."""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

from skiplib import skip_test

GPUWATCH = os.environ.get("GPUWATCH", "build/gpuwatch")
GPUSIM_TOOL = os.environ.get("GPUSIM_TOOL", "build/gpusim/gpusim")
SRC = os.environ.get("GW_SOURCE_DIR", os.getcwd())
SCEN = os.path.join(SRC, "tests", "scenarios")
TOPO = os.path.join(SCEN, "run-topo.yaml")
ENERGY = os.path.join(SCEN, "run-energy.yaml")
TMP = tempfile.TemporaryDirectory(prefix="gw-run-")
ENV = dict(os.environ, GPUWATCH_LOCK_DIR=os.path.join(TMP.name, "locks"),
           GPUWATCH_HISTORY_DB=os.path.join(TMP.name, "history.db"), GPUWATCH_AGENT="none")
failures = []
passes = [0]


def check(cond, what, detail=""):
    passes[0] += 1 if cond else 0
    if not cond:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, detail), file=sys.stderr)
    return cond


def cmd(scenario, args, job):
    return [GPUWATCH, "--sim", scenario, "run"] + args + ["--"] + job


def run(scenario, args, job, timeout=60):
    p = subprocess.run(cmd(scenario, args, job), capture_output=True, text=True, timeout=timeout, env=ENV)
    return p.returncode, p.stdout, p.stderr


def start(scenario, args, job, stdin=None):
    return subprocess.Popen(cmd(scenario, args, job), stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=ENV)


def uuids(scenario):
    out = subprocess.run([GPUWATCH, "--sim", scenario, "list"], capture_output=True, text=True, env=ENV).stdout
    return re.findall(r"UUID: (GPU-[0-9a-f-]+)", out)


def wait_line(stream, pattern, timeout=60):
    """Reads lines until one matches; returns the match (or None after timeout)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        line = stream.readline()
        if not line:
            return None
        m = re.search(pattern, line)
        if m:
            return m
    return None


def test_exit_status_and_signals():
    rc, _, err = run(TOPO, [], ["sh", "-c", "exit 7"])
    check(rc == 7, "the job's exit status passes through", err)
    check("exited 7" in err, "the summary says how the job ended", err)
    rc, _, err = run(TOPO, [], ["sh", "-c", "kill -TERM $$"])
    check(rc == 128 + 15, "a job killed by SIGTERM: 143 (rc %d)" % rc, err)
    check("killed by signal 15" in err, "the summary says the job was killed", err)
    rc, _, err = run(TOPO, [], ["/nonexistent/command"])
    check(rc == 127 and "/nonexistent/command: No such file or directory" in err, "command not found: 127", err)
    rc, _, err = run(TOPO, [], [ENV["GPUWATCH_LOCK_DIR"] and os.path.join(SRC, "README.md")])
    check(rc == 126, "a command that cannot run: 126 (rc %d)" % rc, err)
    # signals sent to gpuwatch run reach the job
    handler = ("import signal,sys,time\n"
               "def h(s,f):\n print('got', s, flush=True); sys.exit(40 + s % 10)\n"
               "signal.signal(signal.SIGUSR1, h); signal.signal(signal.SIGTERM, h)\n"
               "print('ready', flush=True); time.sleep(30)\n")
    for sig in (signal.SIGUSR1, signal.SIGTERM):
        p = start(TOPO, [], ["python3", "-c", handler])
        ready = wait_line(p.stdout, r"^ready")
        check(ready is not None, "the job starts (%s)" % sig.name)
        p.send_signal(sig)
        out, err = p.communicate(timeout=30)
        check(("got %d" % sig) in out, "%s reaches the job" % sig.name, out + err)
        check(p.returncode == 40 + int(sig) % 10, "%s: the job's status (%d)" % (sig.name, p.returncode), err)


def test_concurrent_runs_never_share():
    all_uuids = uuids(TOPO)
    check(len(all_uuids) == 4, "run-topo has 4 GPUs", str(all_uuids))
    # each job holds its GPU until the test releases it (a line on its stdin)
    job = ["sh", "-c", "echo CVD=$CUDA_VISIBLE_DEVICES ORDER=$CUDA_DEVICE_ORDER; read line"]
    procs = [start(TOPO, ["--name", "c%d" % i], job, stdin=subprocess.PIPE) for i in range(4)]
    # while they hold every GPU, a fifth gets none, and --list shows the four holders
    got = []
    for p in procs:
        m = wait_line(p.stdout, r"CVD=(\S+) ORDER=(\S+)")
        check(m is not None, "each run starts its job")
        if m:
            got.append(m.group(1))
            check(m.group(2) == "PCI_BUS_ID", "CUDA_DEVICE_ORDER=PCI_BUS_ID", m.group(0))
    lst = subprocess.run([GPUWATCH, "run", "--list"], capture_output=True, text=True, env=ENV).stdout
    check(len(re.findall(r"held by pid", lst)) == 4, "--list shows the four holders", lst)
    rc, _, err = run(TOPO, [], ["true"])
    check(rc == 75 and "reserved by pid" in err, "a fifth run gets no GPU: 75 and who holds them", err)
    for p in procs:
        p.communicate("go\n", timeout=60)
        check(p.returncode == 0, "concurrent run exits 0")
    check(sorted(got) == sorted(all_uuids), "four concurrent runs got four different GPUs", str(got))


def test_killed_run_frees_its_gpus():
    p = start(TOPO, ["--gpus", "4"], ["sh", "-c", "echo JOBPID=$$; sleep 60"])
    m = wait_line(p.stdout, r"JOBPID=(\d+)")
    check(m is not None, "the 4-GPU job starts")
    p.kill()
    p.wait()
    # the job's whole process group gets SIGTERM (run's guard process); the GPUs stay reserved until
    # the last of its processes has ended, then the reservations are stale
    deadline = time.monotonic() + 30
    while True:
        lst = subprocess.run([GPUWATCH, "run", "--list"], capture_output=True, text=True, env=ENV).stdout
        if ("stale" in lst and "held by" not in lst) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    check("stale" in lst and "held by" not in lst, "--list: the killed run's reservations are stale", lst)
    if m:
        pid = int(m.group(1))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and os.path.exists("/proc/%d" % pid):
            time.sleep(0.05)
        check(not os.path.exists("/proc/%d" % pid), "the job dies with its gpuwatch run")
    rc, out, err = run(TOPO, ["--gpus", "4"], ["sh", "-c", "echo $CUDA_VISIBLE_DEVICES"])
    check(rc == 0 and len(out.strip().split(",")) == 4, "after the kill, another run gets all four GPUs", err)


def test_wait():
    """The holder keeps its GPUs until the test releases it (a line on its stdin), so that --wait 2s
    must give up and --wait 60s must wait, however slow the machine."""
    holder = start(TOPO, ["--gpus", "4"], ["sh", "-c", "echo held; read line"], stdin=subprocess.PIPE)
    check(wait_line(holder.stdout, r"^held") is not None, "the holder starts")
    t = time.monotonic()
    rc, _, err = run(TOPO, ["--wait", "2s"], ["true"], timeout=120)
    took = time.monotonic() - t
    check(rc == 75, "--wait 2s with every GPU held: 75 (rc %d)" % rc, err)
    check("gave up after waiting" in err and "1 GPU wanted, 0 eligible" in err, "a clear message", err)
    check(re.search(r"GPU 2: reserved by pid %d" % holder.pid, err) is not None, "the message names the holder", err)
    check(took >= 2, "--wait 2s waited its 2 s (%.1f s)" % took)
    waiter = start(TOPO, ["--wait", "10m", "--gpus", "2"], ["sh", "-c", "echo got $CUDA_VISIBLE_DEVICES"])
    check(wait_line(waiter.stderr, r"waiting for 2 GPUs: 0 eligible") is not None, "--wait 10m waits while they are held")
    holder.communicate("go\n", timeout=60)
    out, err = waiter.communicate(timeout=120)
    check(holder.returncode == 0, "the holder ends when released (rc %d)" % holder.returncode)
    check(waiter.returncode == 0 and out.startswith("got GPU-"), "--wait gets the GPUs once they are free", err)


def allowed_cpus():
    return set(os.sched_getaffinity(0))


def cpu_list(text):
    cpus = set()
    for part in text.strip().split(","):
        if "-" in part:
            a, b = part.split("-")
            cpus.update(range(int(a), int(b) + 1))
        elif part:
            cpus.add(int(part))
    return cpus


def test_affinity():
    here = allowed_cpus()
    nodes = {0: {0} | set(range(64, 96)), 1: {1} | set(range(96, 128))}
    job = ["sh", "-c", "grep Cpus_allowed_list /proc/self/status; echo CVD=$CUDA_VISIBLE_DEVICES"]
    all_uuids = uuids(TOPO)
    for gpu, node in ((0, 0), (3, 1)):
        rc, out, err = run(TOPO, ["--only", str(gpu)], job)
        m = re.search(r"Cpus_allowed_list:\s*(\S+)", out)
        check(rc == 0 and m is not None, "the job prints its affinity (GPU %d)" % gpu, out + err)
        want = nodes[node] & here
        if not want:
            want = here  # the node's CPUs do not exist here: not bound
            check("do not exist here" in err, "the summary says why the job is not bound", err)
        else:
            check("clamped to the CPUs this machine has" in err, "the summary says the CPUs were clamped", err)
        check(m and cpu_list(m.group(1)) == want, "GPU %d (NUMA node %d): the job's CPUs are %s" % (gpu, node, want),
              out)
        check("CVD=%s" % all_uuids[gpu] in out, "--only %d: CUDA_VISIBLE_DEVICES is its UUID" % gpu, out)
    rc, out, err = run(TOPO, ["--only", "3", "--cpu-bind", "none"], job)
    m = re.search(r"Cpus_allowed_list:\s*(\S+)", out)
    check(m and cpu_list(m.group(1)) == here, "--cpu-bind none leaves the job's CPUs alone", out)
    # memory binding to node 0 (this machine has one): the job's memory policy binds to it
    rc, out, err = run(TOPO, ["--only", "1", "--mem-bind", "numa"], ["sh", "-c", "cat /proc/self/numa_maps | head -3"])
    if os.path.exists("/proc/self/numa_maps"):
        check("bind:0" in out, "--mem-bind numa: the job's memory is bound to node 0", out + err)
    # two GPUs: the pair that shares a switch, away from GPU 0
    rc, out, err = run(TOPO, ["--gpus", "2"], ["sh", "-c", "echo CVD=$CUDA_VISIBLE_DEVICES"])
    check("CVD=%s,%s" % (all_uuids[2], all_uuids[3]) in out, "--gpus 2 takes GPUs 2 and 3 (one switch, not GPU 0)",
          out + err)


def render_integral(gpu, t0, t1):
    """The scenario's power integral over [t0, t1] (J): trapezoids of render at 10 ms."""
    p = subprocess.run([GPUSIM_TOOL, "render", ENERGY, "--gpu", str(gpu), "--metrics", "power.draw", "--step", "10ms",
                        "--start", "%.3f" % t0, "--duration", "%.3f" % (t1 - t0)], capture_output=True, text=True)
    rows = [line.split(",") for line in p.stdout.splitlines()[1:]]
    pts = [(float(r[0]), float(r[2])) for r in rows if len(r) > 2 and r[2]]
    pts = [x for x in pts if t0 <= x[0] <= t1]
    e = sum((b[0] - a[0]) * (a[1] + b[1]) / 2 for a, b in zip(pts, pts[1:]))
    # the ends between the render grid and t0 / t1
    if pts:
        e += (pts[0][0] - t0) * pts[0][1] + (t1 - pts[-1][0]) * pts[-1][1]
    return e


def test_energy():
    path = os.path.join(TMP.name, "energy.json")
    rc, _, err = run(ENERGY, ["--gpus", "2", "--json", path, "--price", "0.25", "--carbon", "400"],
                     ["sleep", "6"])
    check(rc == 0, "the energy job runs", err)
    d = json.load(open(path))
    total = 0
    for g in d["gpus"]:
        s = g["series"]
        t0, t1 = s["sim_t"][0], s["sim_t"][-1]
        want = render_integral(g["index"], t0, t1)
        total += g["energy_j"]
        check(t1 - t0 > 2, "GPU %d read over the 6 s job (%.1f s)" % (g["index"], t1 - t0))
        check(abs(g["energy_j"] - want) <= 0.01 * want,
              "GPU %d: energy %.1f J = the scenario's power integral %.1f J within 1 %%" % (g["index"], g["energy_j"],
                                                                                          want))
        check(g["energy_source"] == ("counter" if g["index"] == 0 else "power integrated"),
              "GPU %d: energy from %s" % (g["index"], g["energy_source"]))
    check(abs(d["energy"]["joules"] - total) < 1e-6 * total + 1e-3, "the job's energy is its GPUs'", str(d["energy"]))
    check(abs(d["energy"]["cost"] - total / 3.6e6 * 0.25) < 1e-9, "cost = kWh x price", str(d["energy"]))
    check(abs(d["energy"]["co2_g"] - total / 3.6e6 * 400) < 1e-6, "CO2 = kWh x intensity", str(d["energy"]))
    check("cost" in err and "g CO₂" in err, "the summary gives cost and CO2", err)
    check(d["job"]["simulated"] is True and "SIMULATED" in err, "the summary says the GPUs were simulated", err)


# The job notes when it wrote each update (the monotonic clock, gpuwatch's own) in the file argv[1].
TQDM_JOB = r"""
import sys, time
steps = [0.2, 0.4] * 6
sys.stderr.write('  0%|          | 0/12 [00:00<?, ?it/s]')
sys.stderr.flush()
wrote = [time.monotonic()]
for i, dt in enumerate(steps, 1):
    time.sleep(dt)
    sys.stderr.write('\r %3d%%|#####     | %d/12 [00:01<00:01,  %.2fit/s]' % (i * 100 // 12, i, 1 / dt))
    sys.stderr.flush()
    wrote.append(time.monotonic())
sys.stderr.write('\n')
open(sys.argv[1], 'w').write(' '.join('%.6f' % t for t in wrote))
"""


def quantile(values, q):
    """The nearest-rank quantile."""
    v = sorted(values)
    return v[max(0, min(len(v) - 1, int(-(-q * len(v) // 1)) - 1))]

MEGATRON_JOB = r"""
import time
for it in range(10, 60, 10):
    ms = 900.0 if it != 30 else 1500.0
    print(' iteration %8d/   10000 | consumed samples: %12d | elapsed time per iteration (ms): %.1f |'
          ' learning rate: 1.0E-04 | lm loss: %.6E |' % (it, it * 8, ms, 8.0 - it / 10), flush=True)
    time.sleep(0.1)
"""


def test_steps():
    path = os.path.join(TMP.name, "steps.json")
    wrote = os.path.join(TMP.name, "wrote")
    p = subprocess.run(cmd(TOPO, ["--json", path], ["python3", "-c", TQDM_JOB, wrote]), capture_output=True, env=ENV,
                       timeout=120)
    rc, err = p.returncode, p.stderr.decode(errors="replace")
    d = json.load(open(path))
    st = d["steps"]
    check(rc == 0 and st["source"] == "tqdm" and st["steps"] == 12, "tqdm: 12 steps", json.dumps(st))
    # gpuwatch times a step from the arrival of its update: the job's own write times are the oracle,
    # within how late this machine runs a process now (the job's worst oversleep, a load gauge)
    t = [float(x) for x in open(wrote).read().split()]
    gaps = [b - a for a, b in zip(t, t[1:])]
    late = max(g - dt for g, dt in zip(gaps, [0.2, 0.4] * 6))
    tol = 0.05 + 2 * max(late, 0)
    for name, q in (("p50_s", 0.5), ("p95_s", 0.95)):
        check(abs(st[name] - quantile(gaps, q)) <= tol, "tqdm: %s %.3f, the job's %.3f (within %.3f s)" % (
            name, st[name], quantile(gaps, q), tol), json.dumps(st))
    check("\r 100%|#####     | 12/12" in err and "\n" not in err.split("0/12 [00:00<?, ?it/s]")[1].split("12/12")[0],
          "the job's output reaches us unchanged (\\r kept)", repr(err[:400]))
    rc, out, err = run(TOPO, ["--json", path], ["python3", "-c", MEGATRON_JOB])
    st = json.load(open(path))["steps"]
    check(st["source"] == "Megatron-LM" and st["steps"] == 50, "Megatron: 50 iterations", json.dumps(st))
    check(abs(st["p50_s"] - 0.9) < 1e-9 and abs(st["p95_s"] - 1.5) < 1e-9 and abs(st["mean_s"] - 1.02) < 1e-9,
          "Megatron: the job's own iteration times", json.dumps(st))
    check(out.count("elapsed time per iteration") == 5, "stdout passes through", out)
    check("steps     Megatron-LM: 50 steps, p50 0.900 s, p95 1.500 s" in err, "the summary's step line", err)


def test_jobs_and_history():
    rc, out, err = run(TOPO, ["--name", "recorded", "--only", "2"], ["sh", "-c", "sleep 2.5"])
    m = re.search(r"job (\S+) 'recorded' exited 0", err)
    check(rc == 0 and m is not None, "the job's id in the summary", err)
    if not m:
        return
    jid = m.group(1)
    lst = subprocess.run([GPUWATCH, "jobs"], capture_output=True, text=True, env=ENV)
    row = [line for line in lst.stdout.splitlines() if line.startswith(jid)]
    check(row and " 2 " in row[0] and "recorded" in row[0] and "(simulated GPUs)" in row[0], "gpuwatch jobs lists it",
          lst.stdout + lst.stderr)
    show = subprocess.run([GPUWATCH, "jobs", "show", jid[:-2]], capture_output=True, text=True, env=ENV)
    check(show.returncode == 0 and "'recorded' exited 0" in show.stdout, "jobs show ID-prefix: the summary",
          show.stdout + show.stderr)
    js = subprocess.run([GPUWATCH, "jobs", "show", jid, "--json"], capture_output=True, text=True, env=ENV)
    check(js.returncode == 0 and json.loads(js.stdout)["job"]["id"] == jid, "jobs show --json", js.stdout)
    hist = subprocess.run([GPUWATCH, "history", "--metric", "power.draw", "--gpu", "2", "--since", "10m", "--format",
                           "csv"], capture_output=True, text=True, env=ENV)
    check(hist.returncode == 0 and len(hist.stdout.splitlines()) >= 3, "the job's GPU readings are in the history",
          hist.stdout + hist.stderr)
    bad = subprocess.run([GPUWATCH, "jobs", "show", "nosuchjob"], capture_output=True, text=True, env=ENV)
    check(bad.returncode == 1 and "no job 'nosuchjob'" in bad.stderr, "jobs show: an unknown id", bad.stderr)


def test_usage():
    for args in (["--gpus", "0"], ["--wait=soon"], ["--cpu-bind", "socket"], ["--bogus"], []):
        p = subprocess.run([GPUWATCH, "--sim", TOPO, "run"] + (args + ["--", "true"] if args else []),
                           capture_output=True, text=True, env=ENV)
        check(p.returncode == 2 and p.stderr.startswith("gpuwatch run: "), "usage error %s: 2" % args, p.stderr)
    rc, _, err = run(TOPO, ["--gpus", "5"], ["true"])
    check(rc == 75 and "this machine has 4 GPUs" in err, "--gpus 5 of 4", err)


def test_agent_source():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import agentlib
    a = agentlib.Agent(TOPO)
    a.wait_sampled(4)
    path = os.path.join(TMP.name, "agent.json")
    rc, _, err = run(TOPO, ["--agent", "127.0.0.1:%d" % a.port, "--json", path, "--only", "1"], ["sleep", "3.5"])
    check(rc == 0, "a run reading the agent", err)
    d = json.load(open(path))
    check("agent" in d["job"]["source"] and "from the agent http://127.0.0.1:%d" % a.port in err,
          "the readings come from the agent", d["job"]["source"] + err)
    g = d["gpus"][0]
    check(g["index"] == 1 and g["samples"] >= 2 and "sim_t" not in g["series"], "the agent's samples of GPU 1",
          json.dumps(g)[:500])
    a.stop()
    rc, _, err = run(TOPO, ["--agent", "127.0.0.1:1", "--only", "1"], ["true"])
    check(rc == 0 and "sampling here instead" in err, "an agent that does not answer: sampled here", err)


def main():
    if not os.path.exists(GPUSIM_TOOL):
        skip_test("gpusim is not built (%s missing)" % GPUSIM_TOOL)
    for t in (test_usage, test_exit_status_and_signals, test_concurrent_runs_never_share,
              test_killed_run_frees_its_gpus, test_wait, test_affinity, test_energy, test_steps,
              test_jobs_and_history, test_agent_source):
        t0 = time.monotonic()
        t()
        print("%s: %.1f s" % (t.__name__, time.monotonic() - t0))
    print("%d passed, %d failed" % (passes[0], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
