#!/usr/bin/env python3
"""Fleet artifacts: deploy/prometheus/gpuwatch-alerts.yml passes `promtool check rules` and the promtool
tests in tests/prometheus/; it holds the same alerts (names, severities, durations, XIDs) as the local
default rules; it and deploy/grafana/gpuwatch.json (valid JSON, a sane dashboard) reference only series
gpuwatch exports: the catalog's dcgm/native names and the agent's and alert engine's own series."""
import glob
import json
import os
import re
import subprocess
import sys

from skiplib import need_command

SRC = os.environ.get("GW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
PROM_RULES = os.path.join(SRC, "deploy/prometheus/gpuwatch-alerts.yml")
LOCAL_RULES = os.path.join(SRC, "deploy/rules/gpuwatch-default.yaml")
DASHBOARD = os.path.join(SRC, "deploy/grafana/gpuwatch.json")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def run(cmd):
    p = subprocess.run(cmd, cwd=SRC, capture_output=True, text=True, timeout=50)
    if p.returncode != 0:
        fail("%s exited %d:\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.stdout


# Series the agent writes itself (not catalog metrics) that the rules and the dashboard use. Once the
# agent's exporter is in the tree, each must be found in its sources too.
AGENT_SERIES = {"gpuwatch_up", "gpuwatch_gpu_lost", "gpuwatch_sample_age_seconds", "gpuwatch_process_memory_bytes"}


def exported_series():
    """Names gpuwatch can put on /metrics: the catalog's dcgm and native names, plus the literal
    gpuwatch_* family names written by the agent and the alert engine."""
    names = {"ALERTS", "ALERTS_FOR_STATE", "up"}
    cat = open(os.path.join(SRC, "src/core/catalog.c")).read()
    names.update(re.findall(r'DCGM\("(DCGM_FI_[A-Z0-9_]+)"', cat))
    names.update(re.findall(r'\.prom = "(gpuwatch_[a-z0-9_]+)"', cat))
    names.update(re.findall(r'\bPROM\s*\)?[^"]*"(gpuwatch_[a-z0-9_]+)"', cat))
    for m in re.finditer(r'"(gpuwatch_[a-z0-9_]+)"\s*\)', cat):  # GPM(...) rows pass the native name last
        names.add(m.group(1))
    prefix = re.search(r'\.prom = "(gpuwatch_clock_event_reason_)" NAME', cat)
    if prefix:
        for bit in re.findall(r'CER\(M_\w+, "(\w+)"', cat):
            names.add(prefix.group(1) + bit)
    for layer in ("src/agent", "src/alerts", "src/plugins"):
        for f in glob.glob(os.path.join(SRC, layer, "*.c")):
            text = open(f).read()
            names.update(re.findall(r'"(gpuwatch_[a-z0-9_]+)[ {"]', text))
            names.update(re.findall(r'gpuwatch_notifications_%s', text) and
                         ["gpuwatch_notifications_total", "gpuwatch_notifications_failed_total",
                          "gpuwatch_notifications_dropped_total"] or [])
    agent_src = glob.glob(os.path.join(SRC, "src/agent/expo*.c"))
    if agent_src:
        for s in AGENT_SERIES - names:
            fail("%s is not written by the agent (src/agent)" % s)
    return names | AGENT_SERIES


def series_in(expr):
    expr = re.sub(r'"[^"]*"', '""', expr)                  # label values
    return set(re.findall(r'\b((?:DCGM_FI_|gpuwatch_)[A-Za-z0-9_]+|ALERTS)\b', expr))


def rule_blocks(path, key):
    """(alert, severity, for, xid, expr) per rule, from our consistently formatted rule files."""
    text = open(path).read()
    out = []
    for block in re.split(r'\n\s*- alert: ', text)[1:]:
        name = block.split("\n", 1)[0].strip()
        sev = re.search(r'severity: (\w+)', block)
        dur = re.search(r'\n\s*for: (\S+)', block)
        xid = re.search(r'xid: "(\d+)"', block)
        expr = re.search(r'\n\s*%s: (\|\n(?:\s{10,}.*\n)+|.*)' % key, block)
        out.append((name, sev and sev.group(1), dur.group(1) if dur else "0", xid and xid.group(1),
                    expr.group(1) if expr else ""))
    return out


def main():
    need_command("promtool", "prometheus")
    run(["promtool", "check", "rules", PROM_RULES])
    tests = sorted(glob.glob(os.path.join(SRC, "tests/prometheus/*.yml")))
    if not tests:
        fail("no promtool tests in tests/prometheus/")
    out = run(["promtool", "test", "rules"] + tests)
    if "SUCCESS" not in out:
        fail("promtool test rules did not report SUCCESS:\n" + out)

    prom = rule_blocks(PROM_RULES, "expr")
    local = rule_blocks(LOCAL_RULES, "condition")
    key = lambda r: r[:4]
    if sorted(map(key, prom)) != sorted(map(key, local)):
        fail("PromQL and local default rules differ:\n  only PromQL: %s\n  only local: %s" % (
            sorted(set(map(key, prom)) - set(map(key, local))), sorted(set(map(key, local)) - set(map(key, prom)))))

    known = exported_series()
    for name, _, _, xid, expr in prom:
        for s in series_in(expr) - known:
            fail("rule %s%s uses %s, which gpuwatch does not export" % (name, " xid " + xid if xid else "", s))

    dash = json.load(open(DASHBOARD))
    if not dash.get("title") or not dash.get("uid"):
        fail("dashboard needs a title and a uid")
    ids, exprs = set(), []
    for p in dash.get("panels", []):
        if p.get("id") in ids:
            fail("panel id %s used twice" % p.get("id"))
        ids.add(p.get("id"))
        g = p.get("gridPos", {})
        if not all(k in g for k in ("x", "y", "w", "h")) or g["x"] + g["w"] > 24:
            fail("panel %r has a bad gridPos %r" % (p.get("title"), g))
        if p.get("type") != "row" and not p.get("targets"):
            fail("panel %r has no query" % p.get("title"))
        exprs += [(p.get("title"), t.get("expr", "")) for t in p.get("targets", [])]
    for v in dash.get("templating", {}).get("list", []):
        q = v.get("query")
        exprs.append(("variable " + v["name"], q.get("query", "") if isinstance(q, dict) else ""))
    for title, expr in exprs:
        for s in series_in(expr) - known:
            fail("dashboard panel %r uses %s, which gpuwatch does not export" % (title, s))
    used = set().union(*(series_in(e) for _, e in exprs))
    for must in ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_TEMP",
                 "DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
                 "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "ALERTS", "gpuwatch_alert"):
        if must not in used:
            fail("dashboard does not show %s" % must)
    temp = [p for p in dash["panels"] if p.get("title") == "Core temperature"]
    steps = temp and [s.get("value") for s in temp[0]["fieldConfig"]["defaults"]["thresholds"]["steps"]]
    if steps != [None, 80, 90]:
        fail("core temperature bands should be at the alert thresholds 80/90, got %r" % steps)

    if failures:
        sys.exit(1)
    print("fleet artifacts: %d PromQL rules, %d dashboard queries OK" % (len(prom), len(exprs)))


main()
