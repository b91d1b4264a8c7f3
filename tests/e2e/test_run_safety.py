#!/usr/bin/env python3
"""test_run_safety.py - gpuwatch run when things go wrong (issue 21): a report that cannot be written
(/dev/full) changes neither the exit status nor the job's record; CUDA_VISIBLE_DEVICES names all 64
GPUs of a job; a GPU whose UUID cannot be read is never given to a job; the job's whole process
tree gets the signals, and no GPU goes to a new run while a process of the previous job lives
(kill -9 of run, a job shell trapping SIGTERM); a placement lock held by another process is waited
for at most --wait (10 s without), with a message; step lines are bounded whatever the output
volume, and a pathological --step-regex neither delays the output nor SIGTERM; JSON inside the
HTML report stays JSON whatever the job's name; command-line mistakes are one clear error each,
before any job starts; a job whose command cannot start is recorded as ended."""
import fcntl
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time

GPUWATCH = os.path.abspath(os.environ.get("GPUWATCH", "build/gpuwatch"))
SRC = os.environ.get("GW_SOURCE_DIR", os.getcwd())
SCEN = os.path.join(SRC, "tests", "scenarios")
TOPO = os.path.join(SCEN, "run-topo.yaml")
TMP = tempfile.TemporaryDirectory(prefix="gw-run-safety-")
LOCKS = os.path.join(TMP.name, "locks")
DB = os.path.join(TMP.name, "history.db")
ENV = dict(os.environ, GPUWATCH_LOCK_DIR=LOCKS, GPUWATCH_HISTORY_DB=DB, GPUWATCH_AGENT="none")


def sanitized():
    with open(GPUWATCH, "rb") as f:
        return b"__asan_init" in f.read()


SANITIZED = sanitized()
failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, str(detail)[-3000:]), file=sys.stderr)
    else:
        print("ok - %s" % what)
    return cond


def run(args, job, scenario=TOPO, timeout=120):
    p = subprocess.run([GPUWATCH, "--sim", scenario, "run"] + args + ["--"] + job, capture_output=True, text=True,
                       timeout=timeout, env=ENV)
    return p.returncode, p.stdout, p.stderr


def jobs():
    return subprocess.run([GPUWATCH, "jobs"], capture_output=True, text=True, env=ENV, timeout=60).stdout


def wait_for(fn, timeout=30.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.05)
    return fn()


def group_members(pgid, comm=None):
    """Processes of a process group (with that command name), read from /proc."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        name = st[st.index("(") + 1:st.rindex(")")]
        fields = st[st.rindex(")") + 2:].split()
        if int(fields[2]) == pgid and fields[0] != "Z" and (comm is None or name == comm):
            found.append(int(d))
    return found


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


def test_reports_on_a_full_disk():
    rc, _, err = run(["--json", "/dev/full", "--report", "/dev/full", "--name", "full-disk"], ["sh", "-c", "exit 7"])
    check(rc == 7, "a report that cannot be written (/dev/full) leaves the job's exit status (rc %d)" % rc, err)
    check("--json /dev/full: No space left on device" in err and "--report /dev/full: No space left on device" in err,
          "each failed report says why, once", err)
    check(re.search(r"\s7\s.*full-disk", jobs()), "the job is recorded with its status", jobs())


def test_64_gpus():
    rc, out, err = run(["--gpus", "64", "--no-history"], ["sh", "-c", "echo CVD=$CUDA_VISIBLE_DEVICES"],
                       scenario=os.path.join(SCEN, "run-64gpu.yaml"))
    cvd = re.search(r"CVD=(\S*)", out)
    uuids = cvd.group(1).split(",") if cvd else []
    check(rc == 0 and len(set(uuids)) == 64 and all(re.match(r"GPU-[0-9a-f-]{36}$", u) for u in uuids),
          "--gpus 64: CUDA_VISIBLE_DEVICES names the 64 GPUs (%d)" % len(set(uuids)), out + err)


def test_gpu_without_uuid():
    scen = os.path.join(SCEN, "run-no-uuid.yaml")
    rc, _, err = run(["--only", "1", "--no-history"], ["true"], scenario=scen)
    check(rc == 75 and "GPU 1: its UUID cannot be read" in err, "a GPU without a UUID is refused, with the reason",
          err)
    for n in (1, 2, 3):
        rc, out, err = run(["--gpus", str(n), "--no-history"], ["sh", "-c", "echo CVD=$CUDA_VISIBLE_DEVICES"],
                           scenario=scen)
        cvd = re.search(r"CVD=(\S*)", out)
        parts = cvd.group(1).split(",") if cvd else []
        check(rc == 0 and len(parts) == n and all(parts), "--gpus %d: a CUDA_VISIBLE_DEVICES with %d UUIDs, none empty"
              % (n, n), out + err)
    rc, _, err = run(["--gpus", "4", "--no-history"], ["true"], scenario=scen)
    check(rc == 75, "--gpus 4 when one GPU has no UUID: not enough GPUs (rc %d)" % rc, err)


JOB_TRAPS = ("trap '' TERM; sleep 1001 & sleep 1002 & echo started $$; wait; wait")


def test_killed_run_ends_the_job():
    p = subprocess.Popen([GPUWATCH, "--sim", TOPO, "run", "--only", "1", "--no-history", "--", "sh", "-c",
                          "sleep 1004 & echo started $$; wait"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    pgid = int(re.search(r"started (\d+)", p.stdout.readline()).group(1))
    check(wait_for(lambda: group_members(pgid, "sleep")), "the job's child runs")
    p.kill()
    p.wait()
    check(wait_for(lambda: not group_alive(pgid)), "kill -9 of run: the job's whole process group ends (SIGTERM)")
    rc, _, err = run(["--only", "1", "--no-history"], ["true"])
    check(rc == 0, "...and its GPU is free (rc %d)" % rc, err)


def test_killed_run_keeps_gpu_while_job_lives():
    p = subprocess.Popen([GPUWATCH, "--sim", TOPO, "run", "--only", "2", "--no-history", "--", "sh", "-c", JOB_TRAPS],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    line = p.stdout.readline()
    m = re.search(r"started (\d+)", line)
    check(m, "the job started", line)
    if not m:
        p.kill()
        return
    pgid = int(m.group(1))
    check(os.getpgid(pgid) == pgid and os.getsid(pgid) == pgid, "the job leads its own session and process group")
    p.kill()  # SIGKILL: gpuwatch run gets no chance to do anything
    p.wait()
    check(wait_for(lambda: group_alive(pgid)), "the job's shell (trapping SIGTERM) and its children outlive run")
    rc, _, err = run(["--only", "2", "--no-history"], ["true"])
    check(rc == 75 and "GPU 2: reserved by" in err, "no new run gets the GPU while the job's processes live (rc %d)"
          % rc, err)
    lst = subprocess.run([GPUWATCH, "run", "--list"], capture_output=True, text=True, env=ENV).stdout
    check(re.search(r"GPU 2 .* held by pid %d" % p.pid, lst), "run --list shows it held by the killed run's job", lst)
    # the last of them ends: the GPU is free
    os.killpg(pgid, signal.SIGKILL)
    check(wait_for(lambda: not group_alive(pgid)), "the job's processes are gone")
    rc, _, err = run(["--only", "2", "--no-history"], ["true"])
    check(rc == 0, "the GPU is given again once the last of them has ended (rc %d)" % rc, err)
    # --wait waits for them
    p = subprocess.Popen([GPUWATCH, "--sim", TOPO, "run", "--only", "3", "--no-history", "--", "sh", "-c", JOB_TRAPS],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    pgid = int(re.search(r"started (\d+)", p.stdout.readline()).group(1))
    p.kill()
    p.wait()
    w = subprocess.Popen([GPUWATCH, "--sim", TOPO, "run", "--only", "3", "--wait", "2m", "--no-history", "--", "true"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    time.sleep(1.5)
    check(w.poll() is None, "run --wait waits while the previous job's processes live")
    os.killpg(pgid, signal.SIGKILL)
    try:
        rc = w.wait(timeout=90)
    except subprocess.TimeoutExpired:
        w.kill()
        rc = -1
    check(rc == 0, "...and gets the GPU when they are gone (rc %d)" % rc, w.stderr.read())


def test_signals_reach_the_whole_tree():
    p = subprocess.Popen([GPUWATCH, "--sim", TOPO, "run", "--no-history", "--", "sh", "-c",
                          "trap 'echo shell got TERM' TERM; sleep 1003 & echo started $$; wait; wait"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    m = re.search(r"started (\d+)", p.stdout.readline())
    pgid = int(m.group(1))
    # the child must be sleep already: a signal caught between the shell's fork and its exec is lost
    check(wait_for(lambda: group_members(pgid, "sleep")), "the job's child runs")
    p.send_signal(signal.SIGTERM)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    check("shell got TERM" in out, "SIGTERM to run reaches the job's shell", out + err)
    check(wait_for(lambda: not group_alive(pgid)), "...and its child (the whole process group ended)")


def test_placement_lock_held():
    os.makedirs(LOCKS, exist_ok=True)
    fd = os.open(os.path.join(LOCKS, "placement.lock"), os.O_RDONLY | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        t0 = time.monotonic()
        rc, _, err = run(["--wait", "2s", "--no-history"], ["true"])
        took = time.monotonic() - t0
        check(rc == 75 and "placement.lock" in err and "held it" in err,
              "a placement lock held by another process: run --wait 2s gives up with a message (rc %d)" % rc, err)
        check(1.5 <= took < 60, "...after about 2 s (%.1f s)" % took)
        t0 = time.monotonic()
        rc, _, err = run(["--no-history"], ["true"])
        took = time.monotonic() - t0
        check(rc == 75 and "waiting for" in err and "held it" in err,
              "without --wait it says it waits, then gives up (rc %d)" % rc, err)
        check(9 <= took < 90, "...after its bound of 10 s (%.1f s)" % took)
    finally:
        os.close(fd)


def test_steps_bounded():
    out_json = os.path.join(TMP.name, "steps.json")
    job = ["python3", "-c", "import sys\nfor i in range(250000): sys.stdout.write('step %d | loss 1.5\\n' % i)"]
    rc, out, err = run(["--no-history", "--json", out_json], job, timeout=300)
    check(rc == 0 and out.count("\n") == 250000, "4 MB of step lines pass through unchanged", err)
    size = os.path.getsize(out_json) if os.path.exists(out_json) else -1
    check(0 < size < 1000000, "the JSON report stays small (%d bytes; 25 MB before)" % size)
    with open(out_json) as f:
        steps = json.load(f)["steps"]
    check(steps["steps"] == 249999 and len(steps["marks"]) <= 4000,
          "every step counted, at most 4000 marks written (%d steps, %d marks)" % (steps["steps"], len(steps["marks"])))
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    check(SANITIZED or rss_mb < 200, "run's memory stays bounded (the largest process this test waited for: %.0f MB)"
          % rss_mb)


def test_pathological_regex():
    job = ["python3", "-c", "import sys,time\nfor i in range(3): print('a'*500+'!', flush=True)\n"
           "time.sleep(0.3); print('ready', flush=True); time.sleep(1000)"]
    p = subprocess.Popen([GPUWATCH, "--sim", TOPO, "run", "--no-history", "--step-regex", r"(a+)+\1$", "--"] + job,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    lines = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = p.stdout.readline()
        if not line or line.startswith("ready"):
            lines.append(line)
            break
        lines.append(line)
    check(lines and lines[-1].startswith("ready"), "the job's output is relayed while a pathological regex is matched")
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = -1
    took = time.monotonic() - t0
    # 17 s per line before (the regex matched with no limit, signals waiting on it): generous bound
    check(rc == 128 + 15 and took < 15, "SIGTERM is honoured at once, not after the matching (%.1f s, rc %d)"
          % (took, rc))


def test_json_inside_html():
    chartjs = os.environ.get("GPUWATCH_CHARTJS", "/usr/share/javascript/chart.js/chart.min.js")
    if not os.path.exists(chartjs):
        print("skip - JSON inside HTML: no Chart.js (%s)" % chartjs)
        return
    html = os.path.join(TMP.name, "r.html")
    for name in ("a<!--b", "</script><script>alert(1)</script>", "x&y>z<!", "\u00e9<\u00e8>"):
        rc, _, err = run(["--no-history", "--name", name, "--report", html], ["sh", "-c", "echo '<!-- </script>'"])
        text = open(html, encoding="utf-8").read() if rc == 0 else ""
        m = re.search(r'<script id="data" type="application/json">(.*?)</script>', text, re.S)
        try:
            data = json.loads(m.group(1)) if m else None
        except ValueError as e:
            data = None
            err += str(e)
        check(data is not None and data["job"]["name"] == name and "<" not in m.group(1),
              "the report's JSON parses and keeps the name %r" % name, err)


def test_command_lines():
    marker = os.path.join(TMP.name, "ran")
    cases = [(["--wait", "5x"], "--wait"), (["--gpus", "99"], "--gpus"), (["--gpus", "0"], "--gpus"),
             (["--gpus", "two"], "--gpus"), (["--json", os.path.join(TMP.name, "missing", "x.json")], "--json"),
             (["--report", os.path.join(TMP.name, "missing", "x.html")], "--report"),
             (["--report", TMP.name], "--report"), (["--step-regex", "(unclosed"], "--step-regex")]
    for args, opt in cases:
        rc, _, err = run(args, ["touch", marker])
        lines = [l for l in err.splitlines() if l.strip()]
        check(rc == 2 and len(lines) == 1 and opt in lines[0] and not os.path.exists(marker),
              "run %s: one error naming %s, exit 2, nothing run" % (" ".join(args), opt), err)
    rc, _, err = run(["--name", "never-started"], ["/nonexistent/cmd"])
    listing = jobs()
    row = [l for l in listing.splitlines() if "never-started" in l]
    check(rc == 127 and row and re.search(r"\s127\s", row[0]) and "running" not in row[0],
          "a command that cannot start is recorded as ended with 127, not running", listing)


def main():
    os.makedirs(LOCKS, exist_ok=True)
    test_command_lines()
    test_reports_on_a_full_disk()
    test_64_gpus()
    test_gpu_without_uuid()
    test_signals_reach_the_whole_tree()
    test_killed_run_ends_the_job()
    test_killed_run_keeps_gpu_while_job_lives()
    test_json_inside_html()
    test_steps_bounded()
    test_pathological_regex()
    test_placement_lock_held()
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        sys.exit(1)


main()
