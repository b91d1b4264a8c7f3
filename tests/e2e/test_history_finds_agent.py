#!/usr/bin/env python3
"""history, events and diagnose find the running agent's history file (its state file under
GPUWATCH_RUNTIME_DIR), say which file they read, and fall back to the default, saying so, once the
agent has stopped and removed its state file."""
import os, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(__file__))
from agentlib import Agent, check, wait_for, GPUWATCH

tmp = tempfile.mkdtemp(prefix="gw-find-")
env = dict(os.environ, GPUWATCH_RUNTIME_DIR=tmp, HOME=tmp, XDG_STATE_HOME=os.path.join(tmp, "state"))
state = os.path.join(tmp, "agent.state")
a = Agent("demo-8gpu", config="history:\n  flush_interval: 1s\n", env=env)
try:
    db = a.db
    wait_for("the state file", lambda: os.path.exists(state), timeout=20)
    text = open(state).read()
    check("db=%s\n" % db in text and "pid=%d\n" % a.proc.pid in text and "listen=127.0.0.1:%d\n" % a.port in text,
          "state file %r" % text)
    wait_for("a flush", lambda: os.path.exists(db), timeout=20)
    time.sleep(1.5)
    for args in (["history", "--metric", "temperature.gpu", "--since", "5m"], ["events", "--since", "5m"],
                 ["diagnose", "--since", "5m"]):
        p = subprocess.run([GPUWATCH] + args, env=env, capture_output=True, text=True, timeout=60)
        check(p.returncode == 0 and "reading %s (the running agent's, pid %d)" % (db, a.proc.pid) in p.stderr,
              "%s: %d %r" % (args[0], p.returncode, p.stderr))
finally:
    a.stop()
check(not os.path.exists(state), "the state file is removed when the agent stops")
p = subprocess.run([GPUWATCH, "history", "--metric", "temperature.gpu"], env=env, capture_output=True, text=True)
check("(the default; no running agent found" in p.stderr and (p.returncode == 0 or "no history file" in p.stderr),
      "without an agent: %d %r" % (p.returncode, p.stderr))
print("PASS")
