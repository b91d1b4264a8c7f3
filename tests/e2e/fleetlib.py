"""fleetlib.py - what the fleet diagnosis tests share: the four hosts of tests/scenarios/fleet_*.yaml
(healthy with one GPU of job train/job-700; thermal; input stall; the job's straggler and a GPU idle
with memory held) as agents, the thresholds that fit a minute of data, `gpuwatch diagnose
--prometheus` run as JSON, and the check that each problem is on its host and GPU."""
import json
import os
import subprocess
from agentlib import GPUWATCH, Agent, check, scenario

ROLES = ["healthy", "thermal", "stall", "straggler"]
ENV = {"thermal": {"GPUSIM_T0": "70s"}}  # hot from the first sample
# (role, detector, GPU) of every problem planted; nothing is planted on the healthy host
PLANTED = [("thermal", "thermal", 0), ("stall", "input_stall", 0), ("straggler", "straggler", 0),
           ("straggler", "idle_holding", 1)]


def start_agents(config):
    """One agent per role with config (YAML text) added to its sampling every 250 ms."""
    return {role: Agent(scenario("fleet_%s.yaml" % role), config="interval: 250ms\n" + config(role),
                        env=ENV.get(role)) for role in ROLES}


def thresholds(folder):
    """A --config file shortening the long detectors' durations to fit the test's minute."""
    path = os.path.join(folder, "thresholds.yaml")
    with open(path, "w") as f:
        f.write("diagnosis:\n  thresholds:\n    idle_holding.min_idle_s: 20\n    straggler.min_duration_s: 15\n"
                "    imbalance.min_duration_s: 15\n    input_stall.min_duration_s: 20\n")
    return path


def diagnose(*args):
    p = subprocess.run([GPUWATCH, "diagnose"] + list(args), capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def report(url, since, config, *args):
    """diagnose --prometheus's JSON report (a failed run fails the test)."""
    rc, out, err = diagnose("--prometheus", url, "--since", since, "--config", config, "--format", "json", *args)
    check(rc == 0, "diagnose --prometheus %s: rc %d: %s" % (" ".join(args), rc, err))
    return json.loads(out) if rc == 0 else {"findings": [], "not_run": [], "missing": [], "hosts": 0, "gpus": 0}


def has(findings, host, detector, gpu):
    return any(f["host"] == host and f["detector"] == detector and gpu in f["gpus"] for f in findings)


def check_planted(rep, host_of, what, skip=()):
    """Every planted problem (but those of skip) on its host and GPU; nothing on the healthy host."""
    print("%s:" % what, sorted((f["host"], f["detector"], tuple(f["gpus"])) for f in rep["findings"]))
    check(rep["hosts"] == 4 and rep["gpus"] == 6, "%s: 4 hosts, 6 GPUs: %r" % (what, (rep["hosts"], rep["gpus"])))
    healthy = [f for f in rep["findings"] if f["host"] == host_of("healthy")]
    check(not healthy, "%s: nothing on the healthy host: %r" % (what, [(f["detector"], f["summary"]) for f in healthy]))
    for role, detector, gpu in PLANTED:
        if detector not in skip:
            check(has(rep["findings"], host_of(role), detector, gpu),
                  "%s: %s on %s's GPU %d" % (what, detector, role, gpu))
