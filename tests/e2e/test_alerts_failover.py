#!/usr/bin/env python3
"""test_alerts_failover.py - an alertmanager receiver with several URLs, against a real pair of
Alertmanagers started here: with both up each gets the alert; with the first stopped the second
still gets the next one and the batch counts as delivered (Prometheus counts a batch as failed
only when no Alertmanager took it); with both stopped the batch counts as failed. Each phase is
its own agent on a scenario that is hot from the start and its own alert name, so that no phase
depends on how fast the machine runs the one before."""
import os
import shutil
import sys
import tempfile

from agentlib import Agent, check, need_gpusim, parse_metrics, scenario, series, wait_for
from amlib import Alertmanager, need_alertmanager

need_gpusim()
need_alertmanager()
tmp = tempfile.mkdtemp(prefix="gw-am-pair-")
os.mkdir(os.path.join(tmp, "am1"))
os.mkdir(os.path.join(tmp, "am2"))
am1 = Alertmanager(os.path.join(tmp, "am1"))
am2 = Alertmanager(os.path.join(tmp, "am2"))
dead = []


def phase(alert, urls):
    """Runs an agent whose rule fires `alert` at once, until its alertmanager receiver has counted a
    batch as delivered or failed; returns (sent, failed)."""
    rules = os.path.join(tmp, alert + ".yaml")
    with open(rules, "w") as f:
        f.write("""groups:
  - name: failover
    interval: 250ms
    rules:
      - alert: %s
        condition: {metric: temperature.gpu, op: ">", threshold: 90}
""" % alert)
    config = """interval: 250ms
alerts:
  default_rules: false
  rule_files: [%s]
  receivers:
    - {name: am, type: alertmanager, urls: [%s], retries: 0, timeout: 1m}
""" % (rules, ", ".join('"%s"' % u for u in urls))
    agent = Agent(scenario("alerts_hot.yaml"), config)
    try:
        agent.wait_sampled(ngpus=1)

        def counted():
            m = parse_metrics(agent.request("/metrics")[2])
            sent = series(m, "gpuwatch_notifications_total", receiver="am")
            failed = series(m, "gpuwatch_notifications_failed_total", receiver="am")
            c = (sent[0][2] if sent else 0, failed[0][2] if failed else 0)
            return c if c[0] + c[1] >= 1 else None
        return wait_for("the alertmanager receiver's first batch (%s)" % alert, counted, timeout=120)
    finally:
        agent.stop()


try:
    # both up: each Alertmanager holds the alert
    sent, failed = phase("FailoverBoth", [am1.url, am2.url])
    check(sent >= 1 and failed == 0, "both up: delivered (sent %d, failed %d)" % (sent, failed))
    for am in (am1, am2):
        a = wait_for("%s to hold FailoverBoth" % am.url, lambda: am.alerts("FailoverBoth"), timeout=60)[0]
        check(a["labels"]["gpu"] == "0" and a["status"]["state"] == "active", "%s: %r" % (am.url, a))
    # the first one stopped: the second takes the batch, which counts as delivered
    am1.stop()
    dead.append(am1)
    sent, failed = phase("FailoverSecond", [am1.url, am2.url])
    check(sent >= 1 and failed == 0, "first down: delivered to the second (sent %d, failed %d)" % (sent, failed))
    wait_for("the second Alertmanager to hold FailoverSecond", lambda: am2.alerts("FailoverSecond"), timeout=60)
    # the other order: the live one first, the stopped one second
    sent, failed = phase("FailoverFirst", [am2.url, am1.url])
    check(sent >= 1 and failed == 0, "second down: delivered to the first (sent %d, failed %d)" % (sent, failed))
    wait_for("the live Alertmanager to hold FailoverFirst", lambda: am2.alerts("FailoverFirst"), timeout=60)
    # both stopped: the batch failed
    am2.stop()
    dead.append(am2)
    sent, failed = phase("FailoverNone", [am1.url, am2.url])
    check(sent == 0 and failed >= 1, "both down: failed (sent %d, failed %d)" % (sent, failed))
finally:
    for am in (am1, am2):
        if am not in dead:
            am.stop()
    shutil.rmtree(tmp, ignore_errors=True)
print("test_alerts_failover: OK")
sys.exit(0)
