"""amlib.py - helpers for the alerts' end-to-end tests: a real Alertmanager (Debian's
prometheus-alertmanager) on an ephemeral port, optionally paging a webhook, and an HTTP receiver
that keeps every POST it gets (gpuwatch's webhook receivers, Alertmanager's pages)."""
import http.server
import json
import os
import shutil
import subprocess
import threading
import time
import urllib.request

from agentlib import fail, free_port, get_json_url, wait_for
from skiplib import skip_test

AM_BIN = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")


def need_alertmanager():
    """Skips the test (exit status 77) where Alertmanager is not installed."""
    if not AM_BIN:
        skip_test("prometheus-alertmanager is not installed (Debian package prometheus-alertmanager; "
                  "scripts/deps.sh test installs it)")


class Alertmanager:
    """Alertmanager with its storage in tmp. page_url: a webhook it sends its notifications to
    (grouped by alertname, at once, resolved ones too); None: it notifies nobody."""

    def __init__(self, tmp, page_url=None):
        need_alertmanager()
        self.port = free_port()
        cfg = os.path.join(tmp, "am.yml")
        with open(cfg, "w") as f:
            if page_url:
                f.write("route:\n  receiver: pager\n  group_by: [alertname]\n  group_wait: 1s\n"
                        "  group_interval: 1s\n  repeat_interval: 1h\nreceivers:\n  - name: pager\n"
                        "    webhook_configs: [{url: '%s', send_resolved: true}]\n" % page_url)
            else:
                f.write("route:\n  receiver: none\n  group_wait: 1s\n  group_interval: 1s\nreceivers:\n"
                        "  - name: none\n")
        self.log = open(os.path.join(tmp, "am.log"), "w")
        self.proc = subprocess.Popen(
            [AM_BIN, "--config.file=" + cfg, "--storage.path=" + os.path.join(tmp, "am-data"),
             "--web.listen-address=127.0.0.1:%d" % self.port, "--cluster.listen-address="],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.url = "http://127.0.0.1:%d" % self.port
        wait_for("alertmanager to be ready", self.ready, timeout=60)

    def ready(self):
        if self.proc.poll() is not None:
            fail("alertmanager exited:\n" + open(self.log.name).read())
        try:
            with urllib.request.urlopen(self.url + "/-/ready", timeout=5) as r:
                return r.status == 200
        except OSError:
            return False

    def alerts(self, name):
        """The active alerts called name."""
        return [a for a in get_json_url(self.url + "/api/v2/alerts") if a["labels"].get("alertname") == name]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class Receiver:
    """An HTTP server on 127.0.0.1 that answers 200 to every POST and keeps (monotonic time, path,
    Authorization header, JSON body) of each."""

    def __init__(self):
        got = self.got = []
        lock = self.lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with lock:
                    got.append((time.monotonic(), self.path, self.headers.get("Authorization"), json.loads(body)))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def bodies(self, path):
        """The JSON bodies POSTed to path, oldest first."""
        with self.lock:
            return [g[3] for g in self.got if g[1] == path]

    def stop(self):
        self.server.shutdown()
