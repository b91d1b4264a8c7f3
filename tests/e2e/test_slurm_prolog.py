"""test_slurm_prolog.py - deploy/slurm's prolog and epilog give every Slurm job a gpuwatch job
record with its summary, from the samples an agent records meanwhile (gpusim's GPUs).

1. Slurm's documented environment (slurm.conf(5), "Prolog and Epilog Scripts": a fresh environment
   with SLURM_JOB_ID, SLURM_JOB_USER, SLURM_JOB_GPUS, SLURM_ARRAY_*, SLURM_JOB_EXIT_CODE2 and
   SLURM_CONF): a job's record, an array task's name, exit statuses (an exit code, a signal),
   GPUs that are not a list, no job id, a gpuwatch that cannot run (the scripts never fail the
   job), a report folder that is a link (no report through it).
2. A real single-node Slurm from Debian (munged, slurmctld, slurmd on ephemeral ports as this
   test's user, the scripts as Prolog/Epilog, two gres GPUs): a job submitted with srun gets its
   record. Where this machine cannot host slurmd, the test says exactly why (skiplib) after part 1."""
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from agentlib import Agent, GPUWATCH, SOURCE, check, need_gpusim, scenario, wait_for
from rwlib import free_port
from skiplib import exit_status, skip_part

need_gpusim()
PROLOG = os.path.join(SOURCE, "deploy", "slurm", "prolog.sh")
EPILOG = os.path.join(SOURCE, "deploy", "slurm", "epilog.sh")
tmp = tempfile.TemporaryDirectory(prefix="gw-slurm-")
T = tmp.name
db = os.path.join(T, "history.db")
reports = os.path.join(T, "reports")
os.makedirs(reports)
slurm_conf = os.path.join(T, "slurm.conf")
with open(os.path.join(T, "gpuwatch.env"), "w") as f:  # beside slurm.conf, where the scripts look
    f.write("GPUWATCH=%s\nGPUWATCH_DB=%s\nGPUWATCH_REPORT_DIR=%s\n" % (GPUWATCH, db, reports))


def run_script(script, **env):
    """The script as slurmd runs it: a fresh environment of SLURM_* variables."""
    e = {"SLURM_CONF": slurm_conf}
    e.update(env)
    r = subprocess.run(["/bin/sh", script], env=e, capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "%s exited %d: %s" % (script, r.returncode, r.stderr))
    return r


def job(jid):
    r = subprocess.run([GPUWATCH, "jobs", "show", jid, "--json", "--db", db], capture_output=True, text=True)
    return json.loads(r.stdout) if r.returncode == 0 and r.stdout.startswith("{") else None


def jobs_list():
    r = subprocess.run([GPUWATCH, "jobs", "--db", db, "-n", "100"], capture_output=True, text=True)
    return r.stdout


def samples_since(a, t):
    d = a.get_json("/api/v1/samples?metric=power.draw&gpu=0&since=%.3f" % t)
    return len(d["series"][0]["samples"]) if d["series"] else 0


a = Agent(scenario("rw_8gpu.yaml"), "interval: 250ms\nhistory: {flush_interval: 1s}\n", args=["--db", db])
daemons = []
try:
    a.wait_sampled(ngpus=8)
    # 1. the documented environment
    t0 = time.time()
    run_script(PROLOG, SLURM_JOB_ID="7001", SLURM_JOB_USER="alice", SLURM_JOB_GPUS="0,1")
    check("slurm-7001" in jobs_list(), "prolog: no record:\n" + jobs_list())
    wait_for("samples during the job", lambda: samples_since(a, t0) >= 8, timeout=60)
    wait_for("the history to hold them", lambda: subprocess.run(
        [GPUWATCH, "history", "--db", db, "--metric", "power.draw", "--gpu", "0", "--from", "%.3f" % t0,
         "--step", "0", "--format", "csv"], capture_output=True, text=True).stdout.count("\n") >= 5, timeout=60)
    run_script(EPILOG, SLURM_JOB_ID="7001", SLURM_JOB_USER="alice", SLURM_JOB_GPUS="0,1", SLURM_JOB_EXIT_CODE2="0:0")
    j = job("slurm-7001")
    check(j is not None, "epilog: no summary for slurm-7001")
    check(j["job"]["exit_status"] == 0 and j["job"]["user"] == "alice", "job %r" % j["job"])
    check([g["index"] for g in j["gpus"]] == [0, 1], "GPUs %r" % [g.get("index") for g in j["gpus"]])
    check(all(g["energy_j"] and g["energy_j"] > 0 for g in j["gpus"]), "energy %r" % [g.get("energy_j") for g in j["gpus"]])
    procs = {p["pid"]: p for p in j.get("processes", [])}
    check(procs, "no processes in the summary")
    report = os.path.join(reports, "slurm-7001.html")
    check(os.path.getsize(report) > 1000, "no report")
    # an array task, exit statuses, bad GPUs
    cases = [({"SLURM_JOB_ID": "7002", "SLURM_ARRAY_JOB_ID": "7000", "SLURM_ARRAY_TASK_ID": "2",
               "SLURM_JOB_GPUS": "3"}, "3:0", 3),
             ({"SLURM_JOB_ID": "7003", "SLURM_JOB_GPUS": "2-3"}, "0:9", 137),
             ({"SLURM_JOB_ID": "7004", "SLURM_JOB_GPUS": "0;reboot"}, "", 0)]
    for env, code, want in cases:
        run_script(PROLOG, SLURM_JOB_USER="bob", **env)
        run_script(EPILOG, SLURM_JOB_USER="bob", SLURM_JOB_EXIT_CODE2=code, **env)
        jid = "slurm-" + env["SLURM_JOB_ID"]
        jj = job(jid)
        check(jj is not None, "%s: no summary" % jid)
        check(jj["job"]["exit_status"] == want, "%s: exit %r, expected %d" % (jid, jj["job"]["exit_status"], want))
    check("slurm job 7000_2" in jobs_list(), "array task's name:\n" + jobs_list())
    check(job("slurm-7004")["gpus"] == [], "GPUs that are not a list were used")
    # no job id: nothing; a gpuwatch that cannot run: the scripts still exit 0
    before = jobs_list()
    run_script(PROLOG, SLURM_JOB_USER="bob")
    run_script(EPILOG, SLURM_JOB_ID="x1")
    check(jobs_list() == before, "a record without a job id")
    with open(os.path.join(T, "gpuwatch.env"), "a") as f:
        f.write("GPUWATCH=/nonexistent/gpuwatch\n")
    run_script(PROLOG, SLURM_JOB_ID="7005")
    run_script(EPILOG, SLURM_JOB_ID="7005")
    with open(os.path.join(T, "gpuwatch.env"), "w") as f:
        f.write("GPUWATCH=%s\nGPUWATCH_DB=%s\nGPUWATCH_REPORT_DIR=%s\n" % (GPUWATCH, db, os.path.join(T, "linked")))
    os.symlink(reports, os.path.join(T, "linked"))
    run_script(PROLOG, SLURM_JOB_ID="7006", SLURM_JOB_GPUS="0")
    run_script(EPILOG, SLURM_JOB_ID="7006", SLURM_JOB_GPUS="0")
    check(job("slurm-7006") is not None and not os.path.exists(os.path.join(reports, "slurm-7006.html")),
          "a report written through a linked folder")
    with open(os.path.join(T, "gpuwatch.env"), "w") as f:
        f.write("GPUWATCH=%s\nGPUWATCH_DB=%s\nGPUWATCH_REPORT_DIR=%s\n" % (GPUWATCH, db, reports))
    print("part 1: the scripts in Slurm's documented environment: OK")

    # 2. a real Slurm, where this machine can host one
    why = None
    tools = ["munged", "munge", "slurmctld", "slurmd", "srun", "sinfo"]
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        why = "%s not installed (Debian packages munge, slurmctld, slurmd, slurm-client)" % ", ".join(missing)
    if not why:
        host = socket.gethostname().split(".")[0]
        os.makedirs(os.path.join(T, "munge"), mode=0o700)
        key = os.path.join(T, "munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        sock = os.path.join(T, "munge", "munge.sock")
        r = subprocess.run(["munged", "--force", "--key-file", key, "--socket", sock,
                            "--pid-file", os.path.join(T, "munge", "munged.pid"),
                            "--log-file", os.path.join(T, "munge", "munged.log"),
                            "--seed-file", os.path.join(T, "munge", "seed")], capture_output=True, text=True)
        if r.returncode != 0:
            why = "munged cannot start here: " + (r.stderr.strip() or r.stdout.strip())
    if not why:
        daemons.append(os.path.join(T, "munge", "munged.pid"))
        for d in ("state", "spool", "log"):
            os.makedirs(os.path.join(T, d))
        cport, dport = free_port(), free_port()
        with open(slurm_conf, "w") as f:
            f.write("""ClusterName=gwtest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={cport}
SlurmdPort={dport}
SlurmUser={user}
SlurmdUser={user}
AuthType=auth/munge
AuthInfo=socket={sock}
CryptoType=crypto/munge
StateSaveLocation={T}/state
SlurmdSpoolDir={T}/spool
SlurmctldPidFile={T}/slurmctld.pid
SlurmdPidFile={T}/slurmd.pid
SlurmctldLogFile={T}/log/slurmctld.log
SlurmdLogFile={T}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
GresTypes=gpu
Prolog={prolog}
Epilog={epilog}
PrologFlags=Alloc
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} Gres=gpu:2 State=UNKNOWN
PartitionName=gw Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""".format(user=pwd.getpwuid(os.geteuid()).pw_name, host=host, cport=cport, dport=dport, sock=sock, T=T, prolog=PROLOG, epilog=EPILOG,
                cpus=os.cpu_count()))
        with open(os.path.join(T, "gres.conf"), "w") as f:  # two stand-in device files
            f.write("NodeName=%s Name=gpu File=/dev/null\nNodeName=%s Name=gpu File=/dev/zero\n" % (host, host))
        env = dict(os.environ, SLURM_CONF=slurm_conf)
        for prog, pid in (("slurmctld", "slurmctld.pid"), ("slurmd", "slurmd.pid")):
            r = subprocess.run([prog, "-f", slurm_conf], env=env, capture_output=True, text=True, timeout=60)
            if r.returncode != 0:
                why = "%s cannot start here: %s" % (prog, (r.stderr or r.stdout).strip()[-500:])
                break
            daemons.append(os.path.join(T, pid))
    if not why:
        def node_idle():
            r = subprocess.run(["sinfo", "-h", "-o", "%t"], env=env, capture_output=True, text=True)
            return r.stdout.strip() == "idle"
        end = time.monotonic() + 120
        while not node_idle() and time.monotonic() < end:
            time.sleep(0.5)
        if not node_idle():
            logs = open(os.path.join(T, "log", "slurmd.log")).read()[-800:]
            why = "slurmd did not register an idle node within 120 s: " + logs
    if not why:
        t1 = time.time()
        r = subprocess.run(["srun", "--gres=gpu:2", "-N1", "/bin/sh", "-c", "echo $SLURM_JOB_ID; sleep 3"], env=env,
                           capture_output=True, text=True, timeout=120)
        check(r.returncode == 0, "srun: %s %s" % (r.stdout, r.stderr))
        jid = "slurm-" + r.stdout.split()[0]
        wait_for("the epilog's summary of " + jid, lambda: job(jid), timeout=90, step=0.5)
        j = job(jid)
        check(j["job"]["exit_status"] == 0 and j["job"]["user"] == pwd.getpwuid(os.geteuid()).pw_name,
              "job %r" % j["job"])
        check([g["index"] for g in j["gpus"]] == [0, 1], "GPUs %r" % [g.get("index") for g in j["gpus"]])
        check(j["job"]["duration_s"] >= 2.5, "duration %r" % j["job"].get("duration_s"))
        check(os.path.exists(os.path.join(reports, jid + ".html")), "no report for " + jid)
        print("part 2: a real Slurm job (%s) got its record: OK" % jid)
        print("OK")
    else:
        skip_part("a real single-node Slurm: " + why)
    status = exit_status(False)
finally:
    for pidfile in reversed(daemons):  # each daemon ends before the next and before its files go
        try:
            with open(pidfile) as f:
                pid = int(f.read().strip())
            os.kill(pid, 15)
            end = time.monotonic() + 30
            while os.path.exists("/proc/%d" % pid) and time.monotonic() < end:
                time.sleep(0.1)
            if os.path.exists("/proc/%d" % pid):
                os.kill(pid, 9)
        except (OSError, ValueError):
            pass
    a.stop()
    tmp.cleanup()
sys.exit(status)
