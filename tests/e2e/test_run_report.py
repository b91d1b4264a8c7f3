#!/usr/bin/env python3
"""test_run_report.py - gpuwatch run --report opens in headless Chromium: no console errors, every chart
drawn (each canvas has ink, and a screenshot is not blank), the findings listed; the report needs no
network (one file, no external reference)."""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

from skiplib import need_command

GPUWATCH = os.environ.get("GPUWATCH", "build/gpuwatch")
SRC = os.environ.get("GW_SOURCE_DIR", os.getcwd())
TMP = tempfile.TemporaryDirectory(prefix="gw-report-")
ENV = dict(os.environ, GPUWATCH_LOCK_DIR=os.path.join(TMP.name, "locks"),
           GPUWATCH_HISTORY_DB=os.path.join(TMP.name, "history.db"), GPUWATCH_AGENT="none")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
failures = []
passes = [0]

JOB = r"""
import time
for s in range(1, 9):
    time.sleep(0.5)
    print('step %d | loss %.3f' % (s, 3.0 / s), flush=True)
"""


def check(cond, what, detail=""):
    passes[0] += 1 if cond else 0
    if not cond:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, detail[:3000]), file=sys.stderr)
    return cond


def chromium(args, profile):
    return subprocess.run([shutil.which("chromium")] + FLAGS + ["--user-data-dir=" + profile] + args,
                          capture_output=True, text=True, timeout=120)


def png_pixels(path):
    """Decodes an 8-bit RGB(A) PNG (what Chromium writes): (width, height, rows of bytes)."""
    data = open(path, "rb").read()
    pos, idat, w, h, ctype = 8, b"", 0, 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    rows, prev, stride = [], bytearray(w * bpp), w * bpp
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    need_command("chromium", "chromium")
    report = os.path.join(TMP.name, "report.html")
    scen = os.path.join(SRC, "tests", "scenarios", "run-report.yaml")
    p = subprocess.run([GPUWATCH, "--sim", scen, "run", "--gpus", "2", "--report", report, "--", "python3", "-c", JOB],
                       capture_output=True, text=True, env=ENV, timeout=120)
    check(p.returncode == 0 and os.path.exists(report), "the job runs and writes its report", p.stderr)
    html = open(report, encoding="utf-8").read()
    check(re.search(r"""(src|href)=["']?(https?:)?//""", html) is None, "the report references nothing outside")
    check("Chart.js v" in html, "Chart.js is inlined")
    nfind = len(re.findall(r'<li class="finding ', html))
    summary_findings = p.stderr.split("findings")[-1]
    profile = os.path.join(TMP.name, "profile")
    r = chromium(["--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--dump-dom",
                  "file://" + report], profile)
    dom = r.stdout
    body = re.search(r"<body[^>]*>", dom)
    check(body is not None, "Chromium loads the report", r.stderr[-2000:])
    body = body.group(0) if body else ""
    charts = re.search(r'data-charts="(\d+)"', body)
    drawn = re.search(r'data-charts-drawn="(\d+)"', body)
    # 2 GPUs x 4 charts + the step-time chart
    check(charts and int(charts.group(1)) == 9, "nine charts (%s)" % body, body)
    check(charts and drawn and drawn.group(1) == charts.group(1), "every chart drawn (%s)" % body, body)
    check("data-errors" not in body, "no script error", body)
    console = [line for line in r.stderr.splitlines() if "CONSOLE" in line]
    check(not [c for c in console if re.search(r"error|Uncaught", c, re.I)], "no console errors", "\n".join(console))
    check(nfind >= 1 and "hw_health" in html, "the findings are listed (hw_health: XID 48)",
          summary_findings)
    check(dom.count('class="finding ') == nfind, "the findings are in the page Chromium shows")
    shot = os.path.join(TMP.name, "shot.png")
    r = chromium(["--window-size=1300,1800", "--virtual-time-budget=5000", "--screenshot=" + shot,
                  "file://" + report], os.path.join(TMP.name, "profile2"))
    check(os.path.exists(shot), "a screenshot", r.stderr[-2000:])
    if os.path.exists(shot):
        w, h, bpp, rows = png_pixels(shot)
        colored = 0
        for row in rows:
            for x in range(0, w * bpp, bpp * 3):
                rr, gg, bb = row[x], row[x + 1], row[x + 2]
                if max(rr, gg, bb) - min(rr, gg, bb) > 60:
                    colored += 1
        check(colored > 300, "the screenshot shows coloured chart lines (%d pixels sampled)" % colored)
    print("%d passed, %d failed" % (passes[0], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
