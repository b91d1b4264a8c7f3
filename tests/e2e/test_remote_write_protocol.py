"""test_remote_write_protocol.py - the sender's side of the Remote-Write specification, against a
receiver of our own that decodes every request with its own snappy and protobuf readers
(rwlib.Receiver):

1. 2.0 to a receiver that takes it: the required headers, the tenant header, a bearer token read
   from its file at each request (a rotated token is used from then on), the symbol table, each
   series' type and help, sorted unique labels, samples in time order, a stale marker when a
   process ends; basic auth with a password file; https:// with the receiver's certificate checked
   against tls_config.ca_file, and nothing sent to one whose certificate cannot be checked.
2. Fallback to 1.0: on 415, and on a 2xx without the Written headers (a 1.x receiver that read the
   2.0 request as empty); the refused samples are sent again as 1.0.
3. Retries: 5xx (500, 502, 503, 504) and 429 are retried with the same request, with exponential
   backoff and jitter between min_backoff and max_backoff, and at least what Retry-After asks; the
   other 4xx (400, 401, 403, 404, 413) are never retried, are counted and logged."""
import base64
import os
import shutil
import subprocess
import sys
import tempfile
import time
from agentlib import Agent, check, need_gpusim, parse_metrics, scenario, series, wait_for
import rwlib
from skiplib import exit_status, skip_part

need_gpusim()
tmp = tempfile.TemporaryDirectory(prefix="gw-rw-proto-")


def agent_for(endpoint_yaml):
    config = "interval: 250ms\nhistory: {enabled: false}\nremote_write:\n  endpoints:\n    - " + endpoint_yaml
    return Agent(scenario("rw_8gpu.yaml"), config)


def value(a, name, **labels):
    st, _, body = a.request("/metrics")
    s = series(parse_metrics(body), name, **labels)
    return s[0][2] if s else None


def requests_of(rcv, pred=lambda r: True):
    return [r for r in rcv.snapshot()[0] if pred(r)]


def sample_keys(rec):
    return {(tuple(l), ts) for l, samples, _ in rec["decoded"] for ts, _, _ in samples}


agents, receivers = [], []
try:
    # 1. 2.0, headers, token rotation, symbols, metadata, stale markers; basic auth
    token = os.path.join(tmp.name, "token")
    with open(token, "w") as f:
        f.write("first-token\n")
    rcv = rwlib.Receiver(v2=True)
    receivers.append(rcv)
    a = agent_for("url: %s\n      name: r\n      headers: {X-Scope-OrgID: team-a}\n"
                  "      authorization: {credentials_file: %s}\n"
                  "      queue_config: {batch_send_deadline: 250ms}\n" % (rcv.url, token))
    agents.append(a)
    wait_for("2.0 requests", lambda: len(requests_of(rcv, lambda r: r["status"] == 204)) >= 3, timeout=60)
    with open(token + ".new", "w") as f:
        f.write("second-token")
    os.rename(token + ".new", token)
    n_before = len(requests_of(rcv))
    wait_for("a request with the new token", lambda: any(r["headers"].get("Authorization") == "Bearer second-token"
                                                         for r in requests_of(rcv)[n_before:]), timeout=30)
    wait_for("the Slurm processes' stale markers (they end at 3 s)", lambda: len({
        dict(l)["gpu"] for r in requests_of(rcv) for l, s, _ in r["decoded"] if ("user", "bob") in l
        and ("__name__", "gpuwatch_process_memory_bytes") in l for _, _, bits in s if bits == rwlib.STALE}) == 8,
        timeout=60)
    for r in requests_of(rcv):
        h = r["headers"]
        check(r["version"] == 2, "a 1.0 request to a 2.0 receiver")
        check(h.get("Content-Encoding") == "snappy" and
              h.get("Content-Type") == "application/x-protobuf;proto=io.prometheus.write.v2.Request" and
              h.get("X-Prometheus-Remote-Write-Version") == "2.0.0" and h.get("User-Agent") and
              h.get("X-Scope-OrgID") == "team-a", "headers %r" % h)
        check(h.get("Authorization") in ("Bearer first-token", "Bearer second-token"), "token %r" % h.get("Authorization"))
        check(r["problem"] is None, "request: %s" % r["problem"])
        for labels, samples, (mtype, help_text) in r["decoded"]:
            name = dict(labels)["__name__"]
            check(help_text, "%s: no help" % name)
            check(mtype in (1, 2) and (mtype == 1 or not name.endswith("_total")), "%s: type %d" % (name, mtype))
    check(value(a, "gpuwatch_remote_write_protocol_version", remote_name="r") == 2, "version 2 in use")
    bob = {}  # each of the ended process's series: its samples in order, the stale marker last
    for r in requests_of(rcv):
        for l, s, _ in r["decoded"]:
            if ("user", "bob") in l and ("__name__", "gpuwatch_process_memory_bytes") in l:
                bob.setdefault(tuple(l), []).extend(bits for _, _, bits in s)
    check(bob and all(b[-1] == rwlib.STALE and b.count(rwlib.STALE) == 1 for b in bob.values()),
          "stale markers: %r" % {dict(k)["gpu"]: [hex(x) for x in v[-2:]] for k, v in bob.items()})
    a.stop()
    agents.remove(a)
    pw = os.path.join(tmp.name, "pw")
    with open(pw, "w") as f:
        f.write("s3cret\n")
    rcv2 = rwlib.Receiver(v2=True)
    receivers.append(rcv2)
    a = agent_for("url: %s\n      name: b\n      basic_auth: {username: gpu, password_file: %s}\n"
                  "      queue_config: {batch_send_deadline: 250ms}\n" % (rcv2.url, pw))
    agents.append(a)
    wait_for("a request", lambda: requests_of(rcv2), timeout=60)
    want = "Basic " + base64.b64encode(b"gpu:s3cret").decode()
    check(requests_of(rcv2)[0]["headers"].get("Authorization") == want, "basic auth %r" % requests_of(rcv2)[0]["headers"])
    a.stop()
    agents.remove(a)
    # TLS: an https:// receiver whose certificate the agent checks against the CA file it is given
    if shutil.which("openssl"):
        cert, key = os.path.join(tmp.name, "cert.pem"), os.path.join(tmp.name, "key.pem")
        p = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                            "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                           capture_output=True, text=True)
        check(p.returncode == 0, "openssl req: " + p.stderr)
        rcv3 = rwlib.Receiver(v2=True, tls=(cert, key))
        receivers.append(rcv3)
        a = agent_for("url: %s\n      name: s\n      tls_config: {ca_file: %s}\n"
                      "      queue_config: {batch_send_deadline: 250ms}\n" % (rcv3.url, cert))
        agents.append(a)
        wait_for("an https request", lambda: requests_of(rcv3, lambda r: r["status"] == 204 and not r["problem"]),
                 timeout=60)
        a.stop()
        agents.remove(a)
        # a receiver whose certificate the agent cannot check: nothing is taken, the agent retries
        rcv4 = rwlib.Receiver(v2=True, tls=(cert, key))
        receivers.append(rcv4)
        a = agent_for("url: %s\n      name: u\n      queue_config: {batch_send_deadline: 250ms}\n" % rcv4.url)
        agents.append(a)
        wait_for("failed TLS attempts", lambda: (value(a, "gpuwatch_remote_write_requests_total", remote_name="u",
                                                       code="none") or 0) >= 2, timeout=60)
        check(not requests_of(rcv4), "a request passed an unchecked certificate")
        a.stop()
        agents.remove(a)
    else:
        skip_part("the TLS part: openssl is not installed (Debian package openssl; scripts/deps.sh test installs it)")

    # 2. fallback to 1.0: on 415, and on a 2xx without the Written headers
    for kind, rcv in (("415", rwlib.Receiver(v2=False)), ("no Written headers", rwlib.Receiver(written_headers=False))):
        receivers.append(rcv)
        a = agent_for("url: %s\n      name: f\n      queue_config: {batch_send_deadline: 250ms}\n" % rcv.url)
        agents.append(a)
        wait_for("1.0 requests taken", lambda: len(requests_of(rcv, lambda r: r["version"] == 1 and r["status"] == 204))
                 >= 2, timeout=60)
        reqs = requests_of(rcv)
        check(reqs[0]["version"] == 2 and reqs[0]["status"] in (415, 204), "%s: first request %r" % (kind, reqs[0]["status"]))
        check(all(r["version"] == 1 for r in reqs[1:]), "%s: 2.0 after the fallback" % kind)
        check(sample_keys(reqs[0]) <= sample_keys(reqs[1]), "%s: the refused samples were not sent again" % kind)
        check(reqs[1]["headers"].get("X-Prometheus-Remote-Write-Version") == "0.1.0" and
              reqs[1]["headers"].get("Content-Type") == "application/x-protobuf", "%s: 1.0 headers" % kind)
        check(value(a, "gpuwatch_remote_write_protocol_version", remote_name="f") == 1, "version 1 in use")
        a.stop()
        agents.remove(a)

    # 3. retries and backoff
    retried = [500, 502, 503, 504]
    refused = [400, 401, 403, 404, 413]
    script = [(c, {}) for c in retried] + [(429, {"Retry-After": "1"})] + [(c, {}) for c in refused]
    rcv = rwlib.Receiver(v2=False, script=script)
    receivers.append(rcv)
    a = agent_for("url: %s\n      name: t\n      protocol: \"1.0\"\n"
                  "      queue_config: {batch_send_deadline: 200ms, min_backoff: 100ms, max_backoff: 300ms}\n" % rcv.url)
    agents.append(a)
    wait_for("the script to be answered", lambda: len(requests_of(rcv, lambda r: r["status"] == 204)) >= 2, timeout=60)
    reqs = requests_of(rcv)
    bodies = [r["body"] for r in reqs]
    n5 = len(retried)
    # the first request and its retries: the same body until the 400
    check(all(b == bodies[0] for b in bodies[:n5 + 2]), "5xx/429 not retried with the same request")
    waits = [reqs[i + 1]["t"] - reqs[i]["t"] for i in range(n5 + 1)]
    # backoff: 100 ms doubling, capped at 300 ms, each with jitter between half and all of it
    for i, w in enumerate(waits[:n5]):
        expect = min(0.1 * 2 ** i, 0.3)
        check(w >= expect * 0.5 - 0.01, "retry %d after %.3f s, backoff %.3f s" % (i + 1, w, expect))
    check(waits[n5] >= 0.99, "Retry-After: 1 honoured: %.3f s" % waits[n5])
    # each refusing 4xx ends its request: the next one carries other samples
    first_refused = n5 + 1
    for k in range(len(refused)):
        r, nxt = reqs[first_refused + k], reqs[first_refused + k + 1]
        check(r["status"] == refused[k], "script order %r" % [x["status"] for x in reqs])
        check(nxt["body"] != r["body"], "status %d retried" % r["status"])
    n_first = sum(len(s) for _, s, _ in reqs[0]["decoded"])
    wait_for("the counters", lambda: value(a, "gpuwatch_remote_write_samples_failed_total", remote_name="t") is not None)
    failed = value(a, "gpuwatch_remote_write_samples_failed_total", remote_name="t")
    retried_n = value(a, "gpuwatch_remote_write_samples_retried_total", remote_name="t")
    check(retried_n == n_first * (n5 + 1), "retried %r, expected %d" % (retried_n, n_first * (n5 + 1)))
    check(failed >= n_first, "failed %r" % failed)
    check(value(a, "gpuwatch_remote_write_requests_total", remote_name="t", code="5xx") == n5, "5xx count")
    log = a.stop()
    agents.remove(a)
    check("the receiver refused a request" in log and "status=400" in log, "refusal not logged:\n" + log[-2000:])
    print("OK")
    status = exit_status(False)
finally:
    for ag in agents:
        if ag.proc.poll() is None:
            ag.proc.kill()
            ag.proc.wait()
    for r in receivers:
        r.close()
    tmp.cleanup()
sys.exit(status)
