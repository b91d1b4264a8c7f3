"""test_history_damaged.py - the agent's history file is damaged while the agent is down (its header
overwritten; or, after a kill -9, the pages of its chunks and checkpoint pieces, which the next
start reads to seal them): the next agent moves it aside with a log line, counts it in
gpuwatch_history_damaged_files_total and records into a new file; `gpuwatch history check` tells the
old file damaged and the new one whole (docs/reliability.md, "Data")."""
import glob
import os
import sqlite3
import subprocess
import tempfile
from agentlib import Agent, GPUWATCH, check, need_gpusim, parse_metrics, scenario, wait_for

need_gpusim()
CONFIG = "history:\n  flush_interval: 300ms\n"
SCEN = scenario("history-agent.yaml")


def rows(db):
    p = subprocess.run([GPUWATCH, "history", "--db", db, "--metric", "temperature.gpu", "--since", "1h",
                        "--format", "csv"], capture_output=True, text=True, timeout=30)
    return p.returncode, max(0, len(p.stdout.splitlines()) - 1)


def damaged_total(agent):
    _, _, body = agent.request("/metrics")
    for name, _, value in parse_metrics(body):
        if name == "gpuwatch_history_damaged_files_total":
            return value
    return None


def damage(db, how):
    if how == "header":
        with open(db, "r+b") as f:
            f.write(b"this is no longer a database.. " * 3)
        return
    c = sqlite3.connect(db)
    pages = [p for (p,) in c.execute("SELECT pageno FROM dbstat WHERE name IN ('chunks', 'open_chunks')")]
    c.close()
    check(pages, "the file has chunk pages")
    with open(db, "r+b") as f:
        for p in pages:
            f.seek((p - 1) * 4096)
            f.write(b"\xa5" * 4096)


for how in ("header", "pages"):
    with tempfile.TemporaryDirectory(prefix="gw-damaged-") as d:
        db = os.path.join(d, "history.db")
        a = Agent(SCEN, config=CONFIG, args=["--interval", "100ms", "--db", db])
        a.wait_sampled()
        wait_for("samples in the file", lambda: rows(db)[1] >= 5)
        if how == "header":
            a.stop()
        else:  # killed: its open groups stay as checkpoint pieces, which the next start seals
            a.proc.kill()
            a.proc.wait()
            a.log.close()
            c = sqlite3.connect(db)  # the WAL folded in, as after any checkpoint
            c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            c.close()
        damage(db, how)

        b = Agent(SCEN, config=CONFIG, args=["--interval", "100ms", "--db", db])
        b.wait_sampled()
        wait_for("the damaged file counted", lambda: damaged_total(b) == 1)
        aside = glob.glob(db + ".damaged-*")
        check(len([p for p in aside if not p.endswith("-wal")]) == 1, "one file moved aside: %s" % aside)
        wait_for("new samples in the new file", lambda: rows(db)[1] >= 5)
        check(damaged_total(b) == 1, "counted once")
        logs = b.stop()
        check("history: file damaged; moved aside, recording into a new file" in logs, "the log line:\n" + logs)
        check("moved_to=%s" % aside[0] in logs, "the log names where it went")
        old = [p for p in aside if not p.endswith("-wal")][0]
        p = subprocess.run([GPUWATCH, "history", "check", old], capture_output=True, text=True, timeout=60)
        check(p.returncode == 1, "history check of the damaged file exits 1: %s" % p.stdout)
        p = subprocess.run([GPUWATCH, "history", "check", db], capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, "history check of the new file exits 0: %s" % p.stdout)
print("ok")
