"""rwlib.py - helpers for remote write's end-to-end tests: the receivers (Prometheus with its
remote-write receiver, VictoriaMetrics, and a scripted receiver of our own that decodes both
protocol versions with its own snappy and protobuf readers, independent of the C encoder), the
agent's history read back, and the comparison of what a receiver holds with the history."""
import http.server
import json
import os
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from agentlib import GPUWATCH, fail, parse_metrics, series

BUILD = os.environ.get("GW_BUILD_DIR", "build")
STALE = 0x7ff0000000000002


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# ---- snappy (block format) and protobuf, read independently of the agent's encoder ----

def _varint(b, i):
    shift = value = 0
    while True:
        c = b[i]
        i += 1
        value |= (c & 0x7f) << shift
        if c < 0x80:
            return value, i
        shift += 7


def snappy_decompress(data):
    n, i = _varint(data, 0)
    out = bytearray()
    while i < len(data):
        tag = data[i]
        i += 1
        kind = tag & 3
        if kind == 0:
            length = tag >> 2
            if length >= 60:
                nb = length - 59
                length = int.from_bytes(data[i:i + nb], "little")
                i += nb
            length += 1
            out += data[i:i + length]
            i += length
            continue
        if kind == 1:
            length = ((tag >> 2) & 7) + 4
            off = ((tag >> 5) << 8) | data[i]
            i += 1
        elif kind == 2:
            length = (tag >> 2) + 1
            off = int.from_bytes(data[i:i + 2], "little")
            i += 2
        else:
            length = (tag >> 2) + 1
            off = int.from_bytes(data[i:i + 4], "little")
            i += 4
        if off == 0 or off > len(out):
            raise ValueError("snappy: bad offset")
        for _ in range(length):
            out.append(out[-off])
    if len(out) != n:
        raise ValueError("snappy: %d bytes, header says %d" % (len(out), n))
    return bytes(out)


def pb_fields(b):
    """(field number, value) of a message: ints for varints, bytes for the rest."""
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(b, i)
        elif wt == 1:
            v = b[i:i + 8]
            i += 8
        elif wt == 2:
            ln, i = _varint(b, i)
            v = b[i:i + ln]
            i += ln
        elif wt == 5:
            v = b[i:i + 4]
            i += 4
        else:
            raise ValueError("protobuf: wire type %d" % wt)
        yield f, v


def _sample(b):
    value, ts = 0.0, 0
    bits = 0
    for f, v in pb_fields(b):
        if f == 1:
            bits = struct.unpack("<Q", v)[0]
            value = struct.unpack("<d", v)[0]
        elif f == 2:
            ts = v if v < 1 << 63 else v - (1 << 64)
    return ts, value, bits


def decode_v1(raw):
    """prometheus.WriteRequest -> [(labels as a list of pairs, [(ts, value, bits)])]."""
    out = []
    for f, ts in pb_fields(raw):
        if f != 1:
            continue
        labels, samples = [], []
        for g, v in pb_fields(ts):
            if g == 1:
                d = dict(pb_fields(v))
                labels.append((d.get(1, b"").decode(), d.get(2, b"").decode()))
            elif g == 2:
                samples.append(_sample(v))
        out.append((labels, samples, None))
    return out


def decode_v2(raw):
    """io.prometheus.write.v2.Request -> [(labels, samples, (type, help))]; checks the symbols."""
    symbols, series = [], []
    for f, v in pb_fields(raw):
        if f == 4:
            symbols.append(v.decode())
        elif f == 5:
            series.append(v)
    if not symbols or symbols[0] != "":
        raise ValueError("symbols[0] is not the empty string")
    out = []
    for ts in series:
        refs, samples, meta = [], [], (0, "")
        for g, v in pb_fields(ts):
            if g == 1:
                if isinstance(v, int):
                    refs.append(v)
                else:  # packed
                    i = 0
                    while i < len(v):
                        r, i = _varint(v, i)
                        refs.append(r)
            elif g == 2:
                samples.append(_sample(v))
            elif g == 5:
                d = dict(pb_fields(v))
                meta = (d.get(1, 0), symbols[d.get(3, 0)])
        if len(refs) % 2:
            raise ValueError("odd labels_refs")
        labels = [(symbols[refs[k]], symbols[refs[k + 1]]) for k in range(0, len(refs), 2)]
        out.append((labels, samples, meta))
    return out


def check_series_rules(decoded):
    """What both versions require of every series: sorted, unique, non-empty labels, __name__,
    samples in time order. Returns a problem, or None."""
    for labels, samples, _ in decoded:
        names = [n for n, _ in labels]
        if names != sorted(names) or len(set(names)) != len(names):
            return "labels not sorted or repeated: %r" % labels
        if any(not n or not v for n, v in labels):
            return "an empty label: %r" % labels
        if "__name__" not in names:
            return "no __name__: %r" % labels
        ts = [s[0] for s in samples]
        if ts != sorted(ts) or len(set(ts)) != len(ts):
            return "samples not in time order: %r" % labels
    return None


# ---- a scripted receiver ----

class Receiver:
    """A remote-write receiver on 127.0.0.1: decodes every request (either version), keeps the
    samples of those it answers 2xx, and answers from a script: a list of (status, headers) taken
    one per request, then `then`. v2: whether it takes 2.0 (else 415 for 2.0 requests)."""

    def __init__(self, v2=True, script=(), then=204, written_headers=True, tls=None):
        self.v2 = v2
        self.script = list(script)
        self.then = then
        self.written_headers = written_headers
        self.requests = []  # dicts: t, version, headers, status, body, decoded, problem
        self.series = {}    # labels tuple -> {ts: (value, bits)}
        self.lock = threading.Lock()
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(n)
                owner._handle(self, body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        scheme = "http"
        if tls:  # (certificate, key): HTTPS
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(tls[0], tls[1])
            self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
            scheme = "https"
        self.url = "%s://127.0.0.1:%d/api/v1/write" % (scheme, self.port)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def _handle(self, h, body):
        ctype = h.headers.get("Content-Type", "")
        version = 2 if "proto=io.prometheus.write.v2.Request" in ctype else 1
        rec = {"t": time.monotonic(), "version": version, "headers": dict(h.headers), "body": body,
               "problem": None, "decoded": []}
        try:
            raw = snappy_decompress(body)
            rec["decoded"] = decode_v2(raw) if version == 2 else decode_v1(raw)
            rec["problem"] = check_series_rules(rec["decoded"])
        except (ValueError, IndexError, UnicodeDecodeError) as e:
            rec["problem"] = "undecodable: %s" % e
        with self.lock:
            if self.script:
                status, headers = self.script.pop(0)
            elif version == 2 and not self.v2:
                status, headers = 415, {}
            else:
                status, headers = self.then, {}
            nsamples = sum(len(s) for _, s, _ in rec["decoded"])
            if status // 100 == 2:
                for labels, samples, _ in rec["decoded"]:
                    d = self.series.setdefault(tuple(labels), {})
                    for ts, v, bits in samples:
                        d[ts] = (v, bits)
                if version == 2 and self.written_headers:
                    headers = dict(headers)
                    headers["X-Prometheus-Remote-Write-Samples-Written"] = str(nsamples)
            rec["status"] = status
            self.requests.append(rec)
        h.send_response(status)
        for k, v in headers.items():
            h.send_header(k, v)
        h.send_header("Content-Length", "0")
        h.end_headers()

    def snapshot(self):
        with self.lock:
            return list(self.requests), {k: dict(v) for k, v in self.series.items()}

    def close(self):
        self.server.shutdown()
        self.server.server_close()


# ---- real receivers ----

class Store:
    """A receiver daemon on an ephemeral port (subclasses say how to start it); stop() and start()
    keep its data."""
    name, ready_path = "", ""

    def __init__(self, tmp):
        self.dir = tmp
        self.port = free_port()
        self.url = "http://127.0.0.1:%d/api/v1/write" % self.port
        self.proc = None
        self.logfile = os.path.join(tmp, self.name + ".log")
        self.start()

    def start(self):
        log = open(self.logfile, "a")
        self.proc = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT)
        wait_http(self.name + " ready", "http://127.0.0.1:%d%s" % (self.port, self.ready_path), self)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def log(self):
        with open(self.logfile) as f:
            return f.read()


class Prometheus(Store):
    """Prometheus with its remote-write receiver (no scraping)."""
    name, ready_path = "prometheus", "/-/ready"

    def command(self):
        cfg = os.path.join(self.dir, "prometheus.yml")
        with open(cfg, "w") as f:
            f.write("global:\n  scrape_interval: 1m\n")
        return [shutil.which("prometheus"), "--config.file=" + cfg, "--storage.tsdb.path=" + os.path.join(self.dir, "data"),
                "--web.listen-address=127.0.0.1:%d" % self.port, "--web.enable-remote-write-receiver"]

    def raw(self, selector, start, end):
        """Every raw sample of the matching series in [start, end] (seconds): {labels tuple: {ms: value}}."""
        span = max(1, int(end - start) + 1)
        q = urllib.parse.urlencode({"query": "%s[%ds]" % (selector, span), "time": "%.3f" % end})
        d = get_json("http://127.0.0.1:%d/api/v1/query?%s" % (self.port, q))
        out = {}
        for r in d["data"]["result"]:
            labels = tuple(sorted(r["metric"].items()))
            out[labels] = {int(round(float(t) * 1000)): float(v) for t, v in r["values"]
                           if float(t) >= start}
        return out


class Victoria(Store):
    """VictoriaMetrics single-node (/api/v1/write)."""
    name, ready_path = "victoria", "/health"

    def command(self):
        return [shutil.which("victoria-metrics"), "-httpListenAddr=127.0.0.1:%d" % self.port,
                "-storageDataPath=" + os.path.join(self.dir, "vmdata"), "-retentionPeriod=1",
                "-search.latencyOffset=0s", "-search.disableCache"]

    def raw(self, selector, start, end):
        urllib.request.urlopen("http://127.0.0.1:%d/internal/force_flush" % self.port, timeout=10).read()
        q = urllib.parse.urlencode({"match[]": selector, "start": "%.3f" % start, "end": "%.3f" % end})
        with urllib.request.urlopen("http://127.0.0.1:%d/api/v1/export?%s" % (self.port, q), timeout=60) as r:
            text = r.read().decode()
        out = {}
        for line in text.splitlines():
            if not line.strip():
                continue
            d = json.loads(line)
            labels = tuple(sorted(d["metric"].items()))
            vals = out.setdefault(labels, {})
            for t, v in zip(d["timestamps"], d["values"]):
                vals[int(t)] = float(v) if v is not None else float("nan")
        return out


def get_json(url, timeout=30):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def wait_http(what, url, owner, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if owner.proc.poll() is not None:
            fail("%s: exited:\n%s" % (what, owner.log()))
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    fail("timed out waiting for " + what)


# ---- the agent's side ----

def agent_value(a, name, **labels):
    """A series' value on the agent's /metrics, or None."""
    st, _, body = a.request("/metrics")
    if st != 200:
        fail("/metrics: %d" % st)
    s = series(parse_metrics(body), name, **labels)
    return s[0][2] if s else None


def readings_since(a, since):
    """Readings of GPU 0 taken since `since` (seconds), from the agent's ring."""
    d = a.get_json("/api/v1/samples?metric=temperature.gpu&gpu=0&since=%.3f" % since)
    return len(d["series"][0]["samples"]) if d["series"] else 0


def wait_caught_up(a, remote_name, t, timeout=180):
    """Waits until the endpoint sent every sample up to time t and went back to sending live; on a
    timeout fails with its series and the end of the agent's log."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if delivered(a, remote_name, t) and agent_value(a, "gpuwatch_remote_write_queue_state",
                                                         remote_name=remote_name, state="sending") == 1:
            return
        time.sleep(0.5)
    st, _, body = a.request("/metrics")
    mine = [l for l in body.splitlines() if l.startswith("gpuwatch_remote_write") and not l.endswith(" 0")]
    fail("timed out waiting for the agent to catch up to %.3f:\n%s\n%s" % (t, "\n".join(mine), a.logs()[-3000:]))


def delivered(a, remote_name, t):
    """The endpoint's receiver took every sample up to time t."""
    hs = agent_value(a, "gpuwatch_remote_write_queue_highest_sent_timestamp_seconds", remote_name=remote_name)
    return hs is not None and hs >= t


def compare_store(store, db, cat, selector, start, end, need):
    """compare() for native and dcgm series between a store and the history file db, each needing at
    least `need` history samples. Returns [(which, total, found, bad)]."""
    fields = sorted(f for f, (p, _, d, _) in cat.items() if p or d)
    hist = history_values(db, fields, start, end)
    raw = store.raw(selector, start - 1, end + 1)
    out = []
    for which in ("native", "dcgm"):
        total, found, bad = compare(raw, hist, cat, which)
        if total < need:
            fail("%s: only %d history samples in the range" % (which, total))
        out.append((which, total, found, bad))
    return out, raw

def catalog():
    """field -> (native name, native scale, dcgm name, dcgm scale) for every numeric metric."""
    out = subprocess.run([os.path.join(BUILD, "tools", "catalog_names")], capture_output=True, text=True, check=True)
    cat = {}
    for line in out.stdout.splitlines():
        field, prom, pscale, dcgm, dscale, _ = line.split("\t")
        cat[field] = (None if prom == "-" else prom, float(pscale), None if dcgm == "-" else dcgm, float(dscale))
    return cat


def history_values(db, fields, start, end):
    """{(field, gpu): {ms: value}} of the history's raw samples in [start, end] (seconds)."""
    out = {}
    for k in range(0, len(fields), 20):
        r = subprocess.run([GPUWATCH, "history", "--db", db, "--metric", ",".join(fields[k:k + 20]),
                            "--from", "%.3f" % start, "--to", "%.3f" % end, "--step", "0", "--format", "json"],
                           capture_output=True, text=True)
        if r.returncode not in (0, 1):
            fail("gpuwatch history: %s" % r.stderr)
        if r.returncode == 1:
            continue
        d = json.loads(r.stdout)
        for s in d["data"]["result"] if "data" in d else d["result"]:
            m = s["metric"]
            key = (m["__name__"], int(m["gpu"]))
            vals = out.setdefault(key, {})
            for t, v in s["values"]:
                if v is not None:
                    vals[int(round(float(t) * 1e6)) // 1000] = float(v)  # the sample's ms, as sent
    return out


def compare(receiver_raw, history, cat, which):
    """Matches every history sample of every metric exported under `which` ("native" or "dcgm")
    with the receiver's. Returns (samples in the history, found with the same value, mismatches)."""
    by_name = {}
    for labels, vals in receiver_raw.items():
        d = dict(labels)
        gpu = d.get("gpu")
        if gpu is None:
            continue
        by_name.setdefault((d["__name__"], int(gpu)), {}).update(vals)
    total = found = 0
    bad = []
    for (field, gpu), vals in history.items():
        prom, pscale, dcgm, dscale = cat[field]
        name, scale = (prom, pscale) if which == "native" else (dcgm, dscale)
        if not name or name == "gpuwatch_xid_errors_total":
            continue
        got = by_name.get((name, gpu), {})
        for ms, v in vals.items():
            total += 1
            want = v * scale
            g = got.get(ms)
            if g is not None and (g == want or abs(g - want) <= 1e-9 * abs(want)):
                found += 1
            elif len(bad) < 10:
                bad.append("%s gpu %d at %d ms: history %r, receiver %r" % (name, gpu, ms, want, g))
    return total, found, bad
