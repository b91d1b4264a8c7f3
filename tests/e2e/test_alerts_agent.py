#!/usr/bin/env python3
"""Alerts end to end: the agent on a sped-up thermal scenario (GPUSIM_SPEED) fires and resolves a
temperature alert; a real Alertmanager started here receives it (checked through its /api/v2/alerts);
an exec receiver writes what it got; a webhook receiver gets Alertmanager's version-4 payload; and a
webhook that never answers delays neither the other receivers nor sampling: they deliver, and the
agent samples, while its attempt is still in progress (it can only end by its 10-minute timeout or
by the test closing its server)."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from agentlib import Agent, check, need_gpusim, parse_metrics, scenario, series, wait_for  # noqa: E402
from amlib import Alertmanager, Receiver  # noqa: E402


def main():
    need_gpusim()
    tmp = tempfile.mkdtemp(prefix="gw-alerts-")
    am = Alertmanager(tmp)
    hook = Receiver()
    hang = socket.socket()                         # accepts (backlog), never answers
    hang.bind(("127.0.0.1", 0))
    hang.listen(16)
    exec_out = os.path.join(tmp, "exec.jsonl")
    writer = os.path.join(tmp, "writer.py")       # the exec receiver: stdin JSON + env -> one line of a file
    with open(writer, "w") as f:
        f.write("import json, os, sys\na = json.load(sys.stdin)\n"
                "a['env'] = {k: v for k, v in os.environ.items() if k.startswith('GPUWATCH_ALERT_')}\n"
                "open(sys.argv[1], 'a').write(json.dumps(a) + '\\n')\n")
    rules = os.path.join(tmp, "rules.yaml")
    with open(rules, "w") as f:
        f.write("""groups:
  - name: e2e
    interval: 250ms
    rules:
      - alert: E2EGpuHot
        condition: {metric: temperature.gpu, op: ">", threshold: 90}
        for: 1s
        labels: {severity: critical}
        annotations: {summary: "GPU {{ $labels.gpu }} ({{ $labels.modelName }}) at {{ $value }} C"}
""")
    db = os.path.join(tmp, "history.db")
    config = """interval: 200ms
history: {flush_interval: 1s}
alerts:
  rule_files: [%s]
  external_labels: {cluster: e2e}
  receivers:
    - {name: hang, type: webhook, url: "http://127.0.0.1:%d/", timeout: 10m, retries: 0}
    - {name: script, type: exec, command: [%s, %s, %s], timeout: 10s}
    - {name: hook, type: webhook, url: "%s/hook", headers: {Authorization: Bearer s3cret}}
    - {name: am, type: alertmanager, urls: ["%s"]}
""" % (rules, hang.getsockname()[1], sys.executable, writer, exec_out, hook.url, am.url)
    agent = Agent(scenario("alerts_thermal.yaml"), config, args=("--db", db), env={"GPUSIM_SPEED": "60"})
    try:
        agent.wait_sampled()

        def exec_lines():
            try:
                return [json.loads(line) for line in open(exec_out)]
            except OSError:
                return []

        # --- fires (95 C from 2 sim-minutes = 2 s on) ---
        firing = wait_for("the exec receiver to get the firing alert",
                          lambda: [a for a in exec_lines() if a["status"] == "firing"], timeout=60)[0]
        check(firing["labels"]["alertname"] == "E2EGpuHot" and firing["labels"]["gpu"] == "0", "exec labels: %r" % firing)
        check(firing["labels"]["cluster"] == "e2e" and firing["labels"]["severity"] == "critical", "labels: %r" % firing)
        check(firing["annotations"]["summary"].startswith("GPU 0 (NVIDIA H100"), "summary: %r" % firing["annotations"])
        check(firing["env"].get("GPUWATCH_ALERT_STATUS") == "firing", "exec env: %r" % firing["env"])
        check(firing["env"].get("GPUWATCH_ALERT_LABEL_ALERTNAME") == "E2EGpuHot", "exec env: %r" % firing["env"])
        check(float(firing["value"]) > 90, "value %r" % firing["value"])

        api = agent.get_json("/api/v1/alerts")
        check(any(a["labels"]["alertname"] == "E2EGpuHot" and a["state"] == "firing" for a in api["data"]["alerts"]),
              "/api/v1/alerts: %r" % api)
        _, _, text = agent.request("/metrics")
        m = parse_metrics(text)
        check(series(m, "gpuwatch_alert", alertname="E2EGpuHot", gpu="0", severity="critical", alertstate="firing"),
              "no gpuwatch_alert firing series on /metrics")

        # the good webhook got a version-4 payload with the auth header, while the other one hangs
        got = wait_for("the webhook payload", lambda: [g for g in hook.got if g[3]["status"] == "firing"],
                       timeout=60)[0]
        check(got[2] == "Bearer s3cret", "webhook Authorization header: %r" % got[2])
        check(got[3]["version"] == "4" and got[3]["receiver"] == "hook", "webhook payload: %r" % got[3])
        check(got[3]["alerts"][0]["labels"]["alertname"] == "E2EGpuHot", "webhook alerts: %r" % got[3]["alerts"])

        # Alertmanager has it, with an endsAt in the future (now + 4m as Prometheus sends)
        am_alert = wait_for("Alertmanager to hold the alert", lambda: am.alerts("E2EGpuHot"), timeout=60)[0]
        check(am_alert["labels"]["gpu"] == "0" and am_alert["labels"]["cluster"] == "e2e", "AM labels: %r" % am_alert)
        check(am_alert["status"]["state"] == "active", "AM state: %r" % am_alert["status"])

        # the hanging webhook delayed nothing: the others delivered, and sampling goes on, while its
        # attempt is still in progress
        def hang_counts():
            m = parse_metrics(agent.request("/metrics")[2])
            return [(series(m, name, receiver="hang") or [(0, 0, 0)])[0][2]
                    for name in ("gpuwatch_notifications_total", "gpuwatch_notifications_failed_total")]
        check(hang_counts() == [0, 0], "the hanging webhook's attempt ended: %r" % hang_counts())
        stamps = set()

        def sampled():
            stamps.add(agent.get_json("/api/v1/gpus")["gpus"][0]["timestamp"])
            return len(stamps) >= 6
        wait_for("5 rounds of sampling while the webhook hangs", sampled, timeout=60)
        check(hang_counts() == [0, 0], "the hanging webhook's attempt ended: %r" % hang_counts())
        hang.close()  # its connection is reset: the attempt fails now, and is counted
        wait_for("the hanging webhook's failure to be counted", lambda: hang_counts()[1] >= 1, timeout=60)

        # --- resolves (60 C from 7 sim-minutes on) ---
        resolved = wait_for("the exec receiver to get the resolution",
                            lambda: [a for a in exec_lines() if a["status"] == "resolved"], timeout=60)[0]
        check(resolved["endsAt"] > resolved["startsAt"], "resolved times: %r" % resolved)
        wait_for("Alertmanager to see it resolved", lambda: not am.alerts("E2EGpuHot"), timeout=60)
        wait_for("the webhook's resolved payload", lambda: [b for b in hook.bodies("/hook") if b["status"] == "resolved"],
                 timeout=60)
        api = agent.get_json("/api/v1/alerts")
        check(not [a for a in api["data"]["alerts"] if a["labels"]["alertname"] == "E2EGpuHot"], "still active: %r" % api)
        check([a for a in api["data"]["resolved"] if a["labels"]["alertname"] == "E2EGpuHot"], "not kept as resolved")
        _, _, text = agent.request("/metrics")
        m = parse_metrics(text)
        check(not series(m, "gpuwatch_alert", alertname="E2EGpuHot"), "gpuwatch_alert still on /metrics")
        ok = series(m, "gpuwatch_notifications_total", receiver="am")
        check(ok and ok[0][2] >= 2, "alertmanager sends: %r" % ok)
        logs = agent.stop()
        check('msg="alert firing" alertname=E2EGpuHot' in logs and 'msg="alert resolved" alertname=E2EGpuHot' in logs,
              "log lines missing:\n" + logs)
        # the history's event table has both transitions (kind alert)
        out = subprocess.run([os.environ.get("GPUWATCH", "build/gpuwatch"), "events", "--db", db, "--kind", "alert",
                              "--format", "json"], capture_output=True, text=True, timeout=20)
        check(out.returncode == 0, "gpuwatch events: %s%s" % (out.stdout, out.stderr))
        check("alertname=E2EGpuHot state=firing" in out.stdout and "alertname=E2EGpuHot state=resolved" in out.stdout,
              "alert events not in the history:\n" + out.stdout)
    except SystemExit:
        if agent.proc.poll() is None:
            print(agent.logs())
        raise
    finally:
        if agent.proc.poll() is None:
            agent.proc.kill()
        am.stop()
        hook.stop()
        hang.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print("alerts e2e: OK")


main()
