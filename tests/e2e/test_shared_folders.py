#!/usr/bin/env python3
"""test_shared_folders.py - `gpuwatch run`'s reservation folder is shared by every user, so nothing in it
is trusted: a lock file planted as a link to another file is refused and its target left untouched, a
dangling link as placement.lock creates nothing, lock files are made 0644, a lock file of another user
is locked without being written to, a run of another user is kept off a held GPU; a planted record
cannot name another user; the fallback folder /tmp/gpuwatch-UID is used only when it is the user's own
(0700, not a link), otherwise the run refuses and names GPUWATCH_LOCK_DIR. The parts that need a second
user run as root (setuid to nobody for the other user; a private /run and /tmp with unshare)."""
import os
import pwd
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time

from skiplib import exit_status, skip_part

GPUWATCH = os.path.abspath(os.environ.get("GPUWATCH", "build/gpuwatch"))
SRC = os.environ.get("GW_SOURCE_DIR", os.getcwd())
SCEN = os.path.join(SRC, "tests", "scenarios", "run-topo.yaml")
TMP = tempfile.TemporaryDirectory(prefix="gw-shared-")
os.chmod(TMP.name, 0o755)
LOCKS = os.path.join(TMP.name, "locks")
BASE_ENV = dict(os.environ, GPUWATCH_AGENT="none", GPUWATCH_HISTORY_DB=os.path.join(TMP.name, "history.db"))
failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, detail), file=sys.stderr)
    else:
        print("ok - %s" % what)
    return cond


def env(**kw):
    e = dict(BASE_ENV, GPUWATCH_LOCK_DIR=LOCKS)
    for k, v in kw.items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    return e


def run(args, job, e=None, preexec=None, timeout=60):
    p = subprocess.run([GPUWATCH, "--sim", SCEN, "run"] + args + ["--"] + job, capture_output=True, text=True,
                       timeout=timeout, env=e or env(), preexec_fn=preexec)
    return p.returncode, p.stdout, p.stderr


def uuids():
    out = subprocess.run([GPUWATCH, "--sim", SCEN, "list"], capture_output=True, text=True, env=env()).stdout
    return re.findall(r"UUID: (GPU-[0-9a-f-]+)", out)


def fresh_locks():
    shutil.rmtree(LOCKS, ignore_errors=True)
    os.mkdir(LOCKS)
    os.chmod(LOCKS, 0o1777)


def test_links_in_the_shared_folder(gpus):
    fresh_locks()
    victim = os.path.join(TMP.name, "precious.txt")
    with open(victim, "w") as f:
        f.write("precious\n")
    lock0 = os.path.join(LOCKS, "gpu-%s.lock" % gpus[0])
    os.symlink(victim, lock0)
    rc, _, err = run(["--gpus", "1", "--only", "0"], ["true"])
    check(open(victim).read() == "precious\n", "a lock file linked to another file leaves that file as it was")
    check(rc != 0 and "link" in err, "the run on that GPU says why it cannot reserve it (rc %d)" % rc, err)
    rc, _, err = run(["--gpus", "1"], ["true"])
    check(rc == 0, "another GPU is still placed (rc %d)" % rc, err)
    check(os.path.islink(lock0), "the planted link is left alone")

    fresh_locks()
    target = os.path.join(TMP.name, "created-through-link")
    os.symlink(target, os.path.join(LOCKS, "placement.lock"))
    rc, _, err = run(["--gpus", "1"], ["true"])
    check(not os.path.exists(target), "a dangling link as placement.lock creates nothing")
    check(rc != 0 and "placement.lock" in err and "link" in err, "and the run says so (rc %d)" % rc, err)

    fresh_locks()
    os.mkfifo(os.path.join(LOCKS, "placement.lock"))
    rc, _, err = run(["--gpus", "1"], ["true"], timeout=30)
    check(rc != 0 and "not a regular file" in err, "a FIFO as placement.lock is refused at once (rc %d)" % rc, err)


def test_modes(gpus):
    fresh_locks()
    old = os.umask(0)
    try:
        rc, _, err = run(["--gpus", "2"], ["true"])
    finally:
        os.umask(old)
    check(rc == 0, "a run with umask 0 (rc %d)" % rc, err)
    made = sorted(os.listdir(LOCKS))
    check(any(n.endswith(".lock") and n.startswith("gpu-") for n in made), "lock files made", str(made))
    for n in made:
        m = stat.S_IMODE(os.lstat(os.path.join(LOCKS, n)).st_mode)
        check(m == 0o644, "%s is 0644, not writable by others (%o)" % (n, m))


def as_nobody():
    os.setgid(65534)
    os.setgroups([])
    os.setuid(65534)


def test_two_users(gpus):
    """root holds GPU 0 with a job; nobody's run on GPU 0 is refused, on GPU 1 placed; the lock files
    root made are locked by nobody's run without being written to, and its record is its own."""
    fresh_locks()
    rc, _, err = run(["--gpus", "1", "--only", "1"], ["true"])
    lock1 = os.path.join(LOCKS, "gpu-%s.lock" % gpus[1])
    check(rc == 0 and os.stat(lock1).st_uid == 0, "root's run made GPU 1's lock file", err)
    holder = subprocess.Popen([GPUWATCH, "--sim", SCEN, "run", "--gpus", "1", "--only", "0", "--", "sleep", "60"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    try:
        lock0 = os.path.join(LOCKS, "gpu-%s.lock" % gpus[0])
        end = time.monotonic() + 30
        listed = ""
        while time.monotonic() < end:
            listed = subprocess.run([GPUWATCH, "run", "--list"], capture_output=True, text=True, env=env()).stdout
            if "held by" in listed:
                break
            time.sleep(0.1)
        check("held by pid %d (root" % holder.pid in listed, "run --list names root's run as the holder", listed)
        rc, _, err = run(["--gpus", "1", "--only", "0"], ["true"], preexec=as_nobody)
        check(rc != 0 and "reserved by pid %d (root" % holder.pid in err,
              "another user's run is kept off the GPU root holds (rc %d)" % rc, err)
        rc, _, err = run(["--gpus", "1", "--only", "1"], ["true"], preexec=as_nobody)
        check(rc == 0, "and placed on a free one, locking root's 0644 lock file (rc %d)" % rc, err)
        check(os.stat(lock1).st_uid == 0 and stat.S_IMODE(os.stat(lock1).st_mode) == 0o644,
              "root's lock file is still root's, 0644")
        rec = os.path.join(LOCKS, "gpu-%s.owner-65534" % gpus[1])
        check(os.path.exists(rec) and os.stat(rec).st_uid == 65534, "nobody's record is a file of nobody's own")
    finally:
        holder.kill()
        holder.wait()
    # A record planted by nobody under root's uid is not believed.
    fresh_locks()
    forged = os.path.join(LOCKS, "gpu-%s.owner-0" % gpus[2])
    open(os.path.join(LOCKS, "gpu-%s.lock" % gpus[2]), "w").close()
    with open(forged, "w") as f:
        f.write("pid=%d\njob=forged\ncommand=\x1b]0;owned\x07evil\n" % os.getpid())
    os.chown(forged, 65534, 65534)
    listed = subprocess.run([GPUWATCH, "run", "--list"], capture_output=True, text=True, env=env()).stdout
    check("forged" not in listed and "\x1b" not in listed, "a record owned by another uid than its name is ignored",
          listed)


def test_private_fallback():
    """In a private /run and /tmp (unshare): nobody's run without GPUWATCH_LOCK_DIR or XDG_RUNTIME_DIR
    falls back to /tmp/gpuwatch-65534 only when that is nobody's own 0700 folder."""
    script = r"""
set -u
# the real /tmp stays reachable under /run/host-tmp: a build or a checkout under /tmp (a CI clone)
mount -t tmpfs none /run && mkdir /run/host-tmp && mount --bind /tmp /run/host-tmp || exit 90
mount -t tmpfs none /tmp || exit 90
chmod 1777 /tmp
rm -rf /run/gpuwatch
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
t=/tmp/gpuwatch-65534
mkdir "$t"; chmod 0777 "$t"                                   # another user (root) made it first
as_nobody "$GPUWATCH" --sim "$SCEN" run --gpus 1 -- true 2>/tmp/e1; echo "rc1=$?"
echo "err1=$(tr '\n' ' ' </tmp/e1)"
rm -rf "$t"; mkdir /tmp/elsewhere; chmod 777 /tmp/elsewhere; ln -s /tmp/elsewhere "$t"
as_nobody "$GPUWATCH" --sim "$SCEN" run --gpus 1 -- true 2>/tmp/e2; echo "rc2=$?"
echo "err2=$(tr '\n' ' ' </tmp/e2)"
echo "elsewhere=$(ls /tmp/elsewhere | tr '\n' ' ')"
rm -f "$t"
as_nobody "$GPUWATCH" --sim "$SCEN" run --gpus 1 -- true 2>/tmp/e3; echo "rc3=$?"
echo "err3=$(tr '\n' ' ' </tmp/e3)"
echo "mode3=$(stat -c '%a %u' "$t")"
"""
    e = env(GPUWATCH_LOCK_DIR=None, XDG_RUNTIME_DIR=None, SCEN=SCEN)
    e = {k: "/run/host-tmp/" + v[5:] if v.startswith("/tmp/") else v for k, v in e.items()}
    p = subprocess.run(["unshare", "-m", "bash", "-c", script], capture_output=True, text=True, env=e, timeout=120)
    out = dict(line.split("=", 1) for line in p.stdout.splitlines() if "=" in line)
    if p.returncode == 90 or "rc1" not in out:
        check(False, "private /run and /tmp with unshare -m", p.stdout + p.stderr)
        return
    check(out.get("rc1") != "0" and "GPUWATCH_LOCK_DIR" in out.get("err1", "") and "owned by uid 0" in out["err1"],
          "a /tmp/gpuwatch-UID made by another user is refused, naming the problem and GPUWATCH_LOCK_DIR",
          p.stdout)
    check(out.get("rc2") != "0" and "GPUWATCH_LOCK_DIR" in out.get("err2", "") and not out.get("elsewhere", "").strip(),
          "a /tmp/gpuwatch-UID that is a link is refused and nothing is written where it points", p.stdout)
    check(out.get("rc3") == "0" and out.get("mode3") == "700 65534",
          "a missing one is made 0700 for the user and used", p.stdout)


def main():
    gpus = uuids()
    if not check(len(gpus) >= 3, "the scenario has GPUs", str(gpus)):
        return 1
    test_links_in_the_shared_folder(gpus)
    test_modes(gpus)
    if os.geteuid() == 0:
        test_two_users(gpus)
        test_private_fallback()
    else:
        skip_part("two users and a private /tmp need root (make test as root runs them, as nobody for the other user)")
    return exit_status(failures)


if __name__ == "__main__":
    sys.exit(main())
