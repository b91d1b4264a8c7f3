"""test_agent_gzip.py - /metrics with Accept-Encoding: gzip on gpusim: a valid gzip body whose page
carries the same GPU series as the identity page, Content-Encoding and Vary headers, promtool on the
decompressed page, HEAD, and identity for `gzip;q=0`, `identity` or no header."""
import gzip
import http.client
import shutil
import subprocess
import sys
from agentlib import Agent, check, fail, need_gpusim, parse_metrics, scenario
from skiplib import exit_status, skip_part

# Series written per scrape (the page's tail): their values may differ between two scrapes.
# series that may change from one scrape to the next (connections: the previous one may still be closing)
PER_SCRAPE = ("gpuwatch_scrape_duration_seconds", "gpuwatch_sample_age_seconds", "gpuwatch_sampling_duration_seconds",
              "gpuwatch_http_connections", "gpuwatch_http_connections_closed_total")


def fetch(a, headers=None, method="GET"):
    """-> (status, headers with lower-case names, raw body bytes)"""
    c = http.client.HTTPConnection("127.0.0.1", a.port, timeout=5)
    try:
        c.request(method, "/metrics", headers=headers or {})
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        c.close()


def series_of(text):
    return sorted((n, tuple(sorted(l.items())), v) for n, l, v in parse_metrics(text) if n not in PER_SCRAPE)


need_gpusim()
a = Agent(scenario("agent_two.yaml"))
try:
    a.wait_sampled(ngpus=2)

    # identity: no header, `identity`, and gzip refused; always Vary
    for h in ({}, {"Accept-Encoding": "identity"}, {"Accept-Encoding": "gzip;q=0"},
              {"Accept-Encoding": "deflate, br"}):
        st, hdr, body = fetch(a, h)
        check(st == 200, "%r: status %d" % (h, st))
        check("content-encoding" not in hdr, "%r: Content-Encoding %r" % (h, hdr.get("content-encoding")))
        check(hdr.get("vary", "").lower() == "accept-encoding", "%r: Vary %r" % (h, hdr.get("vary")))
        check(body.startswith(b"# HELP "), "%r: not the text page: %r" % (h, body[:40]))

    # gzip: the same series as the identity page (retried while a sampling round changes values)
    for attempt in range(20):
        _, _, id1 = fetch(a)
        st, hdr, gz = fetch(a, {"Accept-Encoding": "gzip"})
        _, _, id2 = fetch(a)
        s1, s2 = series_of(id1.decode()), series_of(id2.decode())
        if s1 == s2:
            break
    else:
        fail("the identity page kept changing between scrapes")
    check(st == 200, "gzip: status %d" % st)
    check(hdr.get("content-encoding") == "gzip", "Content-Encoding %r" % hdr.get("content-encoding"))
    check(hdr.get("vary", "").lower() == "accept-encoding", "gzip: Vary %r" % hdr.get("vary"))
    check(hdr.get("content-type", "").startswith("text/plain; version=0.0.4"), "gzip: Content-Type %r" % hdr.get("content-type"))
    check(int(hdr.get("content-length", "-1")) == len(gz), "Content-Length %s, body %d" % (hdr.get("content-length"), len(gz)))
    try:
        text = gzip.decompress(gz).decode()
    except Exception as e:   # noqa: BLE001 - any failure to inflate is the test failing
        fail("gzip body does not decompress: %s" % e)
    check(len(gz) < len(text) / 3, "gzip body %d bytes for a %d byte page" % (len(gz), len(text)))
    sg = series_of(text)
    check(sg == s1, "gzip page differs from identity:\n only gzip %r\n only identity %r" %
          (sorted(set(sg) - set(s1))[:5], sorted(set(s1) - set(sg))[:5]))
    names = {n for n, _, _ in parse_metrics(text)}
    for n in PER_SCRAPE[:2] + ("gpuwatch_up", "DCGM_FI_DEV_GPU_TEMP"):
        check(n in names, "gzip page lacks %s" % n)
    check(text.endswith("\n"), "gzip page does not end with a newline")

    # other spellings that allow gzip
    for h in ("GZIP", "br, gzip;q=0.5", "*", "identity;q=0.5, *"):
        st, hdr, body = fetch(a, {"Accept-Encoding": h})
        check(st == 200 and hdr.get("content-encoding") == "gzip", "%r: status %d, encoding %r" % (h, st, hdr.get("content-encoding")))
        check(b"gpuwatch_up" in gzip.decompress(body), "%r: page lacks gpuwatch_up" % h)

    # HEAD: the gzip headers, no body
    st, hdr, body = fetch(a, {"Accept-Encoding": "gzip"}, method="HEAD")
    check(st == 200 and hdr.get("content-encoding") == "gzip" and body == b"",
          "HEAD gzip: status %d, encoding %r, %d body bytes" % (st, hdr.get("content-encoding"), len(body)))

    # promtool reads the decompressed page (its native series without a complaint)
    promtool = shutil.which("promtool")
    if promtool is None:
        skip_part("promtool is not installed (Debian package prometheus; scripts/deps.sh test installs it)")
    else:
        native = "".join(l + "\n" for l in text.splitlines() if "DCGM_" not in l)
        p = subprocess.run([promtool, "check", "metrics"], input=native, capture_output=True, text=True)
        check(p.returncode == 0, "promtool check metrics (decompressed page) failed:\n%s%s" % (p.stdout, p.stderr))
finally:
    a.stop()
print("test_agent_gzip: OK")
sys.exit(exit_status(0))
