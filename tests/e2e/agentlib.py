"""agentlib.py - helpers for the agent's end-to-end tests: start `gpuwatch agent` on a gpusim
scenario on an ephemeral port, make HTTP requests, parse the Prometheus text format, stop cleanly."""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from skiplib import skip_test

GPUWATCH = os.environ.get("GPUWATCH", "build/gpuwatch")
SOURCE = os.environ.get("GW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
GPUSIM_LIB = os.environ.get("GPUSIM_LIB", "build/gpusim/libnvidia-ml.so.1")


def _sanitized(path):
    try:
        with open(path, "rb") as f:
            return b"__asan_init" in f.read()
    except OSError:
        return False


# An ASan build holds freed memory in quarantine (hundreds of MB), so RSS says nothing of growth
# there; LeakSanitizer checks leaks at exit instead, and the normal build checks RSS.
SANITIZED = _sanitized(GPUWATCH)


def rss_bounded(grew_kb, limit_kb):
    """True when RSS grew less than limit_kb, or always under ASan (see SANITIZED)."""
    return SANITIZED or grew_kb < limit_kb


def scenario(name):
    return os.path.join(SOURCE, "tests", "scenarios", name)


def need_gpusim():
    if not os.path.exists(GPUSIM_LIB):
        skip_test("gpusim (%s) is not built" % GPUSIM_LIB)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def wait_for(what, fn, timeout=15.0, step=0.05):
    """Polls fn() until it returns a true value; returns it, or fails after timeout."""
    end = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > end:
            fail("timed out waiting for " + what)
        time.sleep(step)


class Agent:
    def __init__(self, scen=None, config="", args=(), env=None):
        self.dir = tempfile.TemporaryDirectory(prefix="gw-agent-")
        self.config = os.path.join(self.dir.name, "gpuwatch.yaml")
        with open(self.config, "w") as f:
            f.write(config)
        self.port_file = os.path.join(self.dir.name, "port")
        self.log_path = os.path.join(self.dir.name, "agent.log")
        cmd = [GPUWATCH]
        if scen:
            cmd += ["--sim", scen]
        cmd += ["agent", "--listen", "127.0.0.1:0", "--port-file", self.port_file,
                "--config", self.config] + list(args)
        if "--db" not in args:      # each test records its history in its own folder
            self.db = os.path.join(self.dir.name, "history.db")
            cmd += ["--db", self.db]
        e = dict(os.environ)
        e.update(env or {})
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=e)
        self.port = int(wait_for("the port file", self._read_port, timeout=20))
        self.tls_context = None

    def _read_port(self):
        if self.proc.poll() is not None:
            fail("agent exited early (status %s):\n%s" % (self.proc.returncode, self.logs()))
        try:
            with open(self.port_file) as f:
                return f.read().strip()
        except OSError:
            return None

    def logs(self):
        with open(self.log_path) as f:
            return f.read()

    def request(self, path, method="GET", headers=None, timeout=5.0):
        if self.tls_context:
            c = http.client.HTTPSConnection("127.0.0.1", self.port, timeout=timeout, context=self.tls_context)
        else:
            c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            c.request(method, path, headers=headers or {})
            r = c.getresponse()
            return r.status, dict(r.getheaders()), r.read().decode()
        finally:
            c.close()

    def get_json(self, path):
        st, _, body = self.request(path)
        check(st == 200, "%s: status %d: %s" % (path, st, body))
        return json.loads(body)

    def wait_sampled(self, ngpus=None):
        """Waits until the backend is up and every GPU has a sample."""
        def ready():
            st, _, body = self.request("/api/v1/gpus")
            if st != 200:
                return None
            d = json.loads(body)
            if not d["backend_up"] or not d["gpus"]:
                return None
            if ngpus is not None and len(d["gpus"]) != ngpus:
                return None
            return d if all(g["timestamp"] is not None for g in d["gpus"]) else None
        return wait_for("the first samples", ready)

    def signal(self, sig):
        self.proc.send_signal(sig)

    def status_kb(self, field):
        """A /proc/PID/status figure in kB (VmRSS, VmSize, Threads as a count)."""
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        fail("no %s in /proc/%d/status" % (field, self.proc.pid))

    def stop_within(self, limit_s):
        """SIGTERM; the agent must exit 0 within limit_s seconds. Returns (seconds, logs)."""
        t0 = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=limit_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            fail("agent still running %.1f s after SIGTERM:\n%s" % (limit_s, self.logs()))
        took = time.monotonic() - t0
        return took, self.stop()

    def stop(self):
        """SIGTERM; the agent must exit 0 (under ASan this includes the leak check)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                fail("agent did not stop on SIGTERM:\n" + self.logs())
        self.log.close()
        rc = self.proc.returncode
        if rc != 0:
            fail("agent exited with status %d:\n%s" % (rc, self.logs()))
        out = self.logs()
        self.dir.cleanup()
        return out


_LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def parse_metrics(text):
    """Prometheus text format -> list of (name, labels dict, float value)."""
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _LINE.match(line)
        if not m:
            fail("unparsable metrics line: %r" % line)
        labels = {}
        if m.group(3):
            for lm in _LABEL.finditer(m.group(3)):
                labels[lm.group(1)] = lm.group(2).replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
        out.append((m.group(1), labels, float(m.group(4))))
    return out


def series(samples, name, **labels):
    """Samples of one metric whose labels include the given ones."""
    return [s for s in samples if s[0] == name and all(s[1].get(k) == v for k, v in labels.items())]


def free_port():
    """A port of 127.0.0.1 free a moment ago (for programs that cannot report the one they took)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def get_json_url(url, timeout=30):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read().decode())
