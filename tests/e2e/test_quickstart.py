#!/usr/bin/env python3
"""test_quickstart.py - docs/quickstart.md followed on one machine: the configuration files it
writes (its '# /etc/...' blocks, paths moved to a temporary directory, hosts and ports to ephemeral
ones on 127.0.0.1, intervals shortened) pass gpuwatch config check / rules check, promtool and
amtool; the agent runs on gpusim (demo-8gpu, as the page says for a machine without GPUs); a real
Prometheus scrapes it with the page's prometheus.yml and rule files (the test rule added by the
page's own sed command), the dashboard's queries return the GPUs, and both test alerts reach a real
Alertmanager: the one Prometheus evaluates and the one the agent sends itself, each found with the
page's amtool command."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from agentlib import free_port
from skiplib import need_command

GPUWATCH = os.path.abspath(os.environ.get("GPUWATCH", "build/gpuwatch"))
SRC = os.environ.get("GW_SOURCE_DIR", os.getcwd())
DOC = os.path.join(SRC, "docs", "quickstart.md")
failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, detail[:4000]), file=sys.stderr)
    return cond


def blocks(text, lang):
    return re.findall(r"^```%s\n(.*?)^```" % lang, text, re.M | re.S)


def wait_for(what, fn, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.5)
    check(False, "timed out waiting for " + what)
    return None


def get_text(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.read().decode()
    except OSError:
        return None


def get_json(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return json.loads(r.read())
    except (OSError, ValueError):
        return None


def main():
    for tool, package in (("prometheus", "prometheus"), ("promtool", "prometheus"),
                          ("prometheus-alertmanager", "prometheus-alertmanager"), ("amtool", "prometheus-alertmanager")):
        need_command(tool, package)
    with open(DOC) as f:
        doc = f.read()
    files = {}
    for b in blocks(doc, "yaml"):
        first = b.split("\n", 1)[0]
        if first.startswith("# /etc/"):
            files[first[2:]] = b
    check(set(files) >= {"/etc/prometheus/prometheus.yml", "/etc/prometheus/alertmanager.yml",
                         "/etc/prometheus/gpuwatch-quickstart.yml", "/etc/gpuwatch/gpuwatch.yaml",
                         "/etc/gpuwatch/rules/quickstart.yaml"}, "the page writes its five files", str(files.keys()))
    shell = "\n".join(blocks(doc, "sh"))

    tmp = tempfile.mkdtemp(prefix="gw-quickstart-")
    aport, pport, amport = free_port(), free_port(), free_port()
    etc = os.path.join(tmp, "etc")

    def local(text):
        text = text.replace("/etc/", etc + "/")
        text = text.replace("gpu-node-1:9400", "127.0.0.1:%d" % aport).replace('":9400"', '"127.0.0.1:%d"' % aport)
        text = text.replace("localhost:9093", "127.0.0.1:%d" % amport).replace("monitor:9093", "127.0.0.1:%d" % amport)
        text = text.replace("localhost:9090", "127.0.0.1:%d" % pport)
        # shorter intervals, so that the test takes seconds
        return re.sub(r"(scrape_interval|evaluation_interval|group_wait): \d+s", r"\1: 1s", text)

    for path, text in files.items():
        dest = etc + path[len("/etc"):]
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "w") as f:
            f.write(local(text))
    shutil.copy(os.path.join(SRC, "deploy/prometheus/gpuwatch-alerts.yml"), os.path.join(etc, "prometheus"))

    def run(cmd, what):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, what, " ".join(cmd) + "\n" + p.stdout + p.stderr)
        return p.stdout

    # the page's checks
    run([GPUWATCH, "config", "check", etc + "/gpuwatch/gpuwatch.yaml"], "gpuwatch config check of the page's config")
    run([GPUWATCH, "rules", "check", etc + "/gpuwatch/rules/quickstart.yaml"], "gpuwatch rules check of its test rule")
    run(["promtool", "check", "rules", etc + "/prometheus/gpuwatch-quickstart.yml"], "promtool check rules")
    run(["amtool", "check-config", etc + "/prometheus/alertmanager.yml"], "amtool check-config")
    sed = [ln for ln in shell.split("\n") if ln.startswith("sudo sed -i")]
    check(len(sed) == 1, "the page adds the test rule with one sed", str(sed))
    run(["sh", "-c", local(sed[0][len("sudo "):])], "the page's sed runs")
    with open(etc + "/prometheus/prometheus.yml") as f:
        prom_cfg = f.read()
    check(etc + "/prometheus/gpuwatch-quickstart.yml" in prom_cfg, "the sed added the rule file", prom_cfg)
    run(["promtool", "check", "config", etc + "/prometheus/prometheus.yml"], "promtool check config (with both rule files)")

    procs = []
    try:
        log = open(os.path.join(tmp, "services.log"), "w")
        procs.append(subprocess.Popen(
            ["prometheus-alertmanager", "--config.file=" + etc + "/prometheus/alertmanager.yml",
             "--storage.path=" + os.path.join(tmp, "am"), "--web.listen-address=127.0.0.1:%d" % amport,
             "--cluster.listen-address="], stdout=log, stderr=subprocess.STDOUT))
        procs.append(subprocess.Popen(  # --db: the history in the test's directory, not /var/lib/gpuwatch
            [GPUWATCH, "--sim", "demo-8gpu", "agent", "--config", etc + "/gpuwatch/gpuwatch.yaml",
             "--db", os.path.join(tmp, "history.db")], stdout=log, stderr=subprocess.STDOUT))
        procs.append(subprocess.Popen(
            ["prometheus", "--config.file=" + etc + "/prometheus/prometheus.yml",
             "--storage.tsdb.path=" + os.path.join(tmp, "tsdb"), "--web.listen-address=127.0.0.1:%d" % pport],
            stdout=log, stderr=subprocess.STDOUT))

        def query(q):
            d = get_json("http://127.0.0.1:%d/api/v1/query?%s" % (pport, urllib.parse.urlencode({"query": q})))
            return d["data"]["result"] if d and d.get("status") == "success" else None

        # step 2: the agent answers as the page's curl lines expect
        health = wait_for("the agent", lambda: get_text("http://127.0.0.1:%d/healthz" % aport), 30)
        check(health == "ok\n", "agent /healthz answers ok", str(health))
        metrics = get_text("http://127.0.0.1:%d/metrics" % aport) or ""
        util = [ln for ln in metrics.split("\n") if ln.startswith("DCGM_FI_DEV_GPU_UTIL")]
        check(len(util) == 8, "the page's grep finds one DCGM_FI_DEV_GPU_UTIL line per GPU", "\n".join(util))
        # step 3: Prometheus scrapes it
        up = wait_for("Prometheus to scrape the agent", lambda: (query('up{job="gpuwatch"}') or [None])[0], 60)
        check(up and up["value"][1] == "1", "up{job=\"gpuwatch\"} is 1", str(up))
        # ...and the page's own curl line says so (its {...} needs curl's -g: no URL globbing)
        ask = [ln for ln in shell.split("\n") if "/api/v1/query?query=" in ln]
        check(len(ask) == 1, "the page asks Prometheus with one curl line", str(ask))
        for line in ask:
            p = subprocess.run(["sh", "-c", local(line)], capture_output=True, text=True, timeout=30)
            check(p.returncode == 0 and '"1"]' in p.stdout, "the page's curl line runs and shows up == 1",
                  line + "\n" + p.stdout + p.stderr)
        # step 4: the dashboard's queries find the 8 GPUs (template variables at All)
        with open(os.path.join(SRC, "deploy/grafana/gpuwatch.json")) as f:
            dash = json.load(f)
        exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", []) if "expr" in t]
        wanted = [e for e in exprs if e.startswith(("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_POWER_USAGE",
                                                    "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_SM_CLOCK"))]
        check(len(wanted) >= 6, "the dashboard's main panels", str(exprs))
        for e in wanted:
            q = e.replace("$instance", ".*").replace("$gpu", ".*")
            r = query(q)
            check(r is not None and len(r) == 8, "dashboard query gives the 8 GPUs: %s" % q, str(r)[:300])

        # step 5: both test alerts in Alertmanager, found with the page's amtool lines
        amtool = [local(ln) for ln in shell.split("\n") if ln.startswith("amtool --alertmanager.url")]
        check(len(amtool) == 2, "the page queries Alertmanager twice", str(amtool))
        for line in amtool:
            name = line.rsplit("=", 1)[1]

            def found():
                p = subprocess.run(line.split(), capture_output=True, text=True, timeout=30)
                rows = [ln for ln in p.stdout.splitlines()[1:] if name in ln]
                return rows if len(rows) == 8 else None
            rows = wait_for("%s in Alertmanager" % name, found, 90)
            check(rows is not None, "%s reaches Alertmanager, one alert per GPU" % name)
        alerts = get_json("http://127.0.0.1:%d/api/v2/alerts" % amport) or []
        local_alert = [a for a in alerts if a["labels"].get("alertname") == "GpuwatchQuickstartLocal"]
        check(local_alert and "quickstart: GPU" in local_alert[0]["annotations"].get("summary", ""),
              "the agent's alert carries its summary", json.dumps(local_alert[:1]))
        prom_alert = [a for a in alerts if a["labels"].get("alertname") == "GpuwatchQuickstart"]
        check(prom_alert and prom_alert[0]["labels"].get("job") == "gpuwatch", "Prometheus' alert carries the job label",
              json.dumps(prom_alert[:1]))
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if failures:
            with open(os.path.join(tmp, "services.log")) as f:
                print(f.read()[-4000:], file=sys.stderr)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        sys.exit(1)
    print("ok")
