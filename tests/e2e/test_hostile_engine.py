#!/usr/bin/env python3
"""test_hostile_engine.py - `gpuwatch diagnose --prometheus` against a fake engine whose answers are
hostile: escape sequences and bad UTF-8 in label names and values, label values of 100 kB (cut), NaN,
infinities and numbers past any range, times outside the range or going back, points that are not
pairs, 5000 GPU series over 100 hosts, error answers with escape sequences, an HTML error page, an
answer over the size cap, a vector where a matrix was asked, not JSON. Each run exits 0 or 1 (never
a crash), prints only clean UTF-8 without control characters, and names the engine in its errors."""
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

GPUWATCH = os.path.abspath(os.environ.get("GPUWATCH", "build/gpuwatch"))
failures = []
ESC = "\u001b[2J\u001b]0;pwned\u0007\u009b31m"
MODE = {"m": ""}


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, detail[-3000:]), file=sys.stderr)
    else:
        print("ok - %s" % what)


def labels(h, g, name):
    lab = {"__name__": name, "instance": "node%d%s:9400" % (h, ESC), "gpu": str(g), "uuid": "GPU-%d-%d" % (h, g),
           "bad-name": "x", ESC: "y"}
    if MODE["m"] != "many":
        lab["long"] = "v" * 100000
    return lab


def series_answer(q):
    n_hosts = 100 if MODE["m"] == "many" else 3
    out = [labels(h, g, "gpuwatch_utilization_ratio") for h in range(n_hosts) for g in range(50 if MODE["m"] == "many" else 2)]
    out.append({"__name__": "gpuwatch_utilization_ratio", "gpu": "1"})  # no host
    out.append({"__name__": "gpuwatch_utilization_ratio", "instance": "h", "gpu": "99"})  # no such GPU index
    out.append({"__name__": "gpuwatch_utilization_ratio", "instance": "h", "gpu": "-1"})
    out.append("not an object")
    return {"status": "success", "data": out, "warnings": ["slow" + ESC]}


def matrix_answer(q):
    start, end = float(q["start"][0]), float(q["end"][0])
    query = q["query"][0]
    name = query.split('__name__="')[1].split('"')[0] if '__name__="' in query else "x"
    res = []
    for h in range(3):
        for g in range(2):
            vals = [[start + k, v] for k, v in enumerate(["0.5", "NaN", "+Inf", "-Inf", "1e308", "-1e308", "x", ""])]
            vals += [[start - 1e6, "0.5"], [end + 1e6, "0.5"], [start + 3, "0.5"], [start + 20, 5], [1, 2, 3], "z"]
            vals += [[start + 30 + k, "%g" % (0.95 if name.endswith("ratio") else 1e6)] for k in range(int(min(end - start, 600)) - 30)]
            res.append({"metric": labels(h, g, name), "values": vals})
    res.append({"metric": "x", "values": []})
    res.append({"values": [[start, "1"]]})
    return {"status": "success", "data": {"resultType": "matrix", "result": res}}


class Engine(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def send(self, status, body, ctype="application/json"):
        data = body if isinstance(body, bytes) else body.encode("utf-8", "surrogateescape")
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except OSError:
            pass  # the client refused an answer over its cap and closed

    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(u.query)
        m = MODE["m"]
        if m == "error":
            return self.send(400, json.dumps({"status": "error", "errorType": "bad_data" + ESC, "error": "parse error" + ESC}))
        if m == "html":
            return self.send(502, "<html><body>Bad Gateway" + ESC + "</body></html>", "text/html")
        if m == "huge":
            return self.send(200, b'{"status":"success","data":["' + b"x" * (17 << 20) + b'"]}')
        if m == "notjson":
            return self.send(200, "\x1b[2J" + "{" * 5000)
        if u.path.endswith("/api/v1/series"):
            return self.send(200, json.dumps(series_answer(q)))
        if u.path.endswith("/api/v1/query"):
            return self.send(200, json.dumps({"status": "success", "data": {"resultType": "vector", "result": [
                {"metric": {}, "value": [float(q["time"][0]), "NaN"]}]}}))
        if u.path.endswith("/api/v1/query_range"):
            if m == "vector":
                return self.send(200, json.dumps({"status": "success", "data": {"resultType": "vector", "result": []}}))
            return self.send(200, json.dumps(matrix_answer(q)))
        self.send(404, "{}")


def clean(text):
    return not any((ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) < 0xa0 or 0xdc80 <= ord(c) <= 0xdcff for c in text)


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Engine)
threading.Thread(target=srv.serve_forever, daemon=True).start()
url = "http://127.0.0.1:%d/prom" % srv.server_address[1]
try:
    for mode, want_rc, says in (("", 0, "fleet: 3 hosts, 6 GPUs"), ("many", 0, "fleet: 100 hosts"),
                                ("error", 1, "HTTP 400: bad_data"), ("html", 1, "HTTP 502: <html><body>Bad Gateway"),
                                ("huge", 1, "an answer over"), ("notjson", 1, "nested deeper"),
                                ("vector", 1, "a vector where a matrix was asked")):
        MODE["m"] = mode
        for fmt in ("text", "json"):
            t0 = time.monotonic()
            p = subprocess.run([GPUWATCH, "diagnose", "--prometheus", url, "--since", "10m", "--format", fmt],
                               capture_output=True, timeout=300)
            out, err = p.stdout.decode("utf-8", "surrogateescape"), p.stderr.decode("utf-8", "surrogateescape")
            name = "%s (%s)" % (mode or "hostile labels and values", fmt)
            check(p.returncode == want_rc, "%s: exit %d" % (name, want_rc), "rc %d\n%s\n%s" % (p.returncode, out[-2000:], err))
            check(clean(out) and clean(err), "%s: clean output" % name, repr((out[-500:], err[-500:])))
            if mode == "":
                check("gpuwatch diagnose: warning: engine %s: slow" % url in err, "%s: the engine's warning" % name, err)
            where = out if want_rc == 0 else err
            if fmt == "json" and want_rc == 0:
                rep = json.loads(out)
                where = "fleet: %d hosts, %d GPUs" % (rep["hosts"], rep["gpus"])
            check(says in where, "%s: says %r" % (name, says), where[-1500:])
            if want_rc:
                check(("engine " + url) in err, "%s: names the engine" % name, err)
finally:
    srv.shutdown()
sys.exit(1 if failures else 0)
