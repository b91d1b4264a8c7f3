#!/usr/bin/env python3
"""test_alerts_webhook_tls.py - webhook receivers over HTTPS, against local TLS servers with a CA
made here by openssl: a server that requires a client certificate of that CA and basic auth gets
the alert from the receiver that has the CA, its client certificate and the right password (the
certificate's subject and the Authorization header as sent), and refuses the receivers without the
client certificate, with the wrong password, or without the CA; a server whose certificate no CA
signed is refused by a receiver that verifies it, and reached by one with insecure_skip_verify. The
delivered and failed counts of each receiver (gpuwatch_notifications_total, _failed_total) say the
same."""
import base64
import http.server
import json
import os
import ssl
import subprocess
import sys
import tempfile
import threading

from agentlib import Agent, check, need_gpusim, parse_metrics, scenario, series, wait_for
from skiplib import need_command

need_gpusim()
need_command("openssl", "openssl")
work = tempfile.TemporaryDirectory(prefix="gw-tls-hook-")
D = work.name


def path(name):
    return os.path.join(D, name)


def openssl(*args):
    p = subprocess.run(["openssl"] + list(args), capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "openssl %s: %s" % (" ".join(args[:2]), p.stderr))


def signed_by_ca(name, cn, server):
    """name.key and name.pem, signed by the test's CA; a server's names 127.0.0.1."""
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", path(name + ".key"), "-out", path(name + ".csr"),
            "-subj", "/CN=" + cn)
    ext = path(name + ".ext")
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n" if server else
                "extendedKeyUsage=clientAuth\n")
    openssl("x509", "-req", "-in", path(name + ".csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
            "-CAcreateserial", "-out", path(name + ".pem"), "-days", "2", "-extfile", ext)


# the CA, a server and a client certificate of it, and a server certificate no CA signed
openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("ca.key"), "-out", path("ca.pem"),
        "-days", "2", "-subj", "/CN=gpuwatch test CA")
signed_by_ca("server", "127.0.0.1", True)
signed_by_ca("client", "gpuwatch-agent", False)
openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("rogue.key"), "-out", path("rogue.pem"),
        "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1")
GOOD_AUTH = "Basic " + base64.b64encode(b"alice:s3cret").decode()


class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        peer = self.connection.getpeercert() or {}
        subject = dict(x[0] for x in peer.get("subject", ()))
        auth = self.headers.get("Authorization")
        ok = self.server.need_auth is None or auth == self.server.need_auth
        self.server.got.append({"path": self.path, "auth": auth, "client_cn": subject.get("commonName"),
                                "status": 200 if ok else 401, "body": json.loads(body)})
        self.send_response(200 if ok else 401)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def tls_server(cert, key, client_ca=None, need_auth=None):
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    if client_ca:
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(client_ca)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.got, srv.need_auth = [], need_auth
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


mtls = tls_server(path("server.pem"), path("server.key"), client_ca=path("ca.pem"), need_auth=GOOD_AUTH)
rogue = tls_server(path("rogue.pem"), path("rogue.key"))
m_url = "https://127.0.0.1:%d/hook" % mtls.server_address[1]
r_url = "https://127.0.0.1:%d/hook" % rogue.server_address[1]
client_tls = "{ca_file: %s, cert_file: %s, key_file: %s}" % (path("ca.pem"), path("client.pem"), path("client.key"))
rules = path("rules.yaml")
with open(rules, "w") as f:
    f.write("""groups:
  - name: tls
    interval: 250ms
    rules:
      - alert: TLSHookHot
        condition: {metric: temperature.gpu, op: ">", threshold: 90}
        labels: {severity: critical}
""")
# what each receiver must end with: delivered (the alert reached the server) or failed
want = {
    "mtls": "delivered",                 # CA, client certificate, right password
    "nocert": "failed",                  # the server requires a client certificate
    "badpass": "failed",                 # 401
    "noca": "failed",                    # the system CAs do not know the test's CA
    "untrusted": "failed",               # the rogue certificate is not the CA's
    "insecure": "delivered",             # insecure_skip_verify: the rogue server is reached
}
config = """interval: 250ms
alerts:
  default_rules: false
  rule_files: [%(rules)s]
  receivers:
    - {name: mtls, type: webhook, url: "%(m)s", basic_auth: {username: alice, password: s3cret}, tls: %(client)s, retries: 0, timeout: 1m}
    - {name: nocert, type: webhook, url: "%(m)s", basic_auth: {username: alice, password: s3cret}, tls: {ca_file: %(ca)s}, retries: 0, timeout: 1m}
    - {name: badpass, type: webhook, url: "%(m)s", basic_auth: {username: alice, password: wrong}, tls: %(client)s, retries: 0, timeout: 1m}
    - {name: noca, type: webhook, url: "%(m)s", basic_auth: {username: alice, password: s3cret}, tls: {cert_file: %(cert)s, key_file: %(key)s}, retries: 0, timeout: 1m}
    - {name: untrusted, type: webhook, url: "%(r)s", tls: {ca_file: %(ca)s}, retries: 0, timeout: 1m}
    - {name: insecure, type: webhook, url: "%(r)s", tls: {insecure_skip_verify: true}, retries: 0, timeout: 1m}
""" % {"rules": rules, "m": m_url, "r": r_url, "client": client_tls, "ca": path("ca.pem"), "cert": path("client.pem"),
       "key": path("client.key")}
agent = Agent(scenario("alerts_hot.yaml"), config)
try:
    agent.wait_sampled(ngpus=1)

    def counts():
        m = parse_metrics(agent.request("/metrics")[2])
        out = {}
        for name in want:
            sent = series(m, "gpuwatch_notifications_total", receiver=name)
            failed = series(m, "gpuwatch_notifications_failed_total", receiver=name)
            out[name] = (sent[0][2] if sent else 0, failed[0][2] if failed else 0)
        return out

    def all_done():
        c = counts()
        return c if all(sent + failed >= 1 for sent, failed in c.values()) else None
    final = wait_for("every receiver's first notification to be delivered or to fail", all_done, timeout=120)
    for name, outcome in want.items():
        sent, failed = final[name]
        if outcome == "delivered":
            check(sent >= 1 and failed == 0, "%s: delivered (sent %d, failed %d)" % (name, sent, failed))
        else:
            check(sent == 0 and failed >= 1, "%s: failed (sent %d, failed %d)" % (name, sent, failed))
    # what the servers saw: the client certificate and the basic auth as sent
    good = [g for g in mtls.got if g["status"] == 200]
    check(len(good) >= 1, "the mTLS server got the alert: %r" % mtls.got)
    g = good[0]
    check(g["auth"] == GOOD_AUTH and g["client_cn"] == "gpuwatch-agent" and g["path"] == "/hook",
          "basic auth and client certificate as sent: %r" % {k: g[k] for k in ("auth", "client_cn", "path")})
    check(g["body"]["version"] == "4" and g["body"]["receiver"] == "mtls" and
          g["body"]["alerts"][0]["labels"]["alertname"] == "TLSHookHot", "the webhook payload: %r" % g["body"])
    bad = [x for x in mtls.got if x["status"] == 401]
    check(len(bad) >= 1 and all(x["client_cn"] == "gpuwatch-agent" and x["auth"] != GOOD_AUTH for x in bad),
          "the wrong password reached the server with the certificate and got 401: %r" % bad)
    check(len(mtls.got) == len(good) + len(bad) and all(x["body"]["receiver"] in ("mtls", "badpass") for x in mtls.got),
          "no request without the client certificate or the CA reached the mTLS server: %r" %
          [x["body"]["receiver"] for x in mtls.got])
    check([x["body"]["receiver"] for x in rogue.got] and all(x["body"]["receiver"] == "insecure" for x in rogue.got),
          "only insecure_skip_verify reached the rogue server: %r" % [x["body"]["receiver"] for x in rogue.got])
    logs = agent.stop()
finally:
    if agent.proc.poll() is None:
        agent.proc.kill()
    mtls.shutdown()
    rogue.shutdown()
print("test_alerts_webhook_tls: OK")
sys.exit(0)
