"""test_agent_tls_auth.py - TLS and basic auth: no or wrong credentials get 401 with WWW-Authenticate,
the right ones 200 on every endpoint, and plain HTTP to the TLS port does not get an answer."""
import base64
import http.client
import os
import ssl
import subprocess
from agentlib import Agent, GPUWATCH, check, need_gpusim, scenario, wait_for

need_gpusim()
tmp = os.environ.get("TMPDIR", "/tmp")
workdir = subprocess.run(["mktemp", "-d", os.path.join(tmp, "gw-tls-XXXXXX")], capture_output=True, text=True).stdout.strip()
cert, key = os.path.join(workdir, "cert.pem"), os.path.join(workdir, "key.pem")
p = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   capture_output=True, text=True)
check(p.returncode == 0, "openssl: " + p.stderr)
p = subprocess.run([GPUWATCH, "agent", "--hash-password"], input="s3cret pass\n", capture_output=True, text=True)
check(p.returncode == 0 and p.stdout.startswith("$2b$"), "hash-password: %r %r" % (p.stdout, p.stderr))
hashed = p.stdout.strip()
config = "tls:\n  cert_file: %s\n  key_file: %s\nbasic_auth_users:\n  prometheus: '%s'\n" % (cert, key, hashed)


def auth(user, pw):
    return {"Authorization": "Basic " + base64.b64encode(("%s:%s" % (user, pw)).encode()).decode()}


a = Agent(scenario("agent_two.yaml"), config=config)
try:
    a.tls_context = ssl.create_default_context(cafile=cert)
    good = auth("prometheus", "s3cret pass")
    for path in ("/metrics", "/api/v1/gpus", "/healthz", "/", "/nope"):
        st, hdr, _ = a.request(path)
        check(st == 401 and hdr.get("WWW-Authenticate", "").startswith("Basic"), "%s without credentials: %d" % (path, st))
        st, _, _ = a.request(path, headers=auth("prometheus", "wrong"))
        check(st == 401, "%s wrong password: %d" % (path, st))
        st, _, _ = a.request(path, headers=auth("nobody", "s3cret pass"))
        check(st == 401, "%s unknown user: %d" % (path, st))
        st, _, _ = a.request(path, headers={"Authorization": "Basic !!!"})
        check(st == 401, "%s malformed header: %d" % (path, st))
    wait_for("a page with GPU series",
             lambda: (lambda r: r[0] == 200 and "DCGM_FI_DEV_GPU_TEMP{" in r[2])(a.request("/metrics", headers=good)))
    st, _, _ = a.request("/nope", headers=good)
    check(st == 404, "/nope with credentials: %d" % st)
    st, _, body = a.request("/api/v1/gpus", headers=good)
    check(st == 200 and '"gpus"' in body, "/api/v1/gpus with credentials: %d" % st)
    for _ in range(20):  # cached verification keeps this quick
        check(a.request("/healthz", headers=good)[0] in (200, 503), "repeated auth")

    # plain HTTP to the TLS port: no HTTP answer
    c = http.client.HTTPConnection("127.0.0.1", a.port, timeout=5)
    answered = None
    try:
        c.request("GET", "/metrics", headers=good)
        answered = c.getresponse().status
    except (http.client.HTTPException, OSError):
        pass
    finally:
        c.close()
    check(answered is None or answered == 400, "plain HTTP to the TLS port answered %r" % answered)
    # and the TLS port still serves afterwards
    check(a.request("/metrics", headers=good)[0] == 200, "TLS after a plain request")
finally:
    a.stop()

# the same through a Prometheus web-config file (--web.config.file), plain HTTP this time
web = os.path.join(workdir, "web.yml")
with open(web, "w") as f:
    f.write("basic_auth_users:\n  prometheus: '%s'\n" % hashed)
b = Agent(scenario("agent_two.yaml"), args=["--web.config.file", web])
try:
    check(b.request("/metrics")[0] == 401, "web-config: no credentials")
    check(b.request("/metrics", headers=good)[0] == 200, "web-config: right credentials")
finally:
    b.stop()
with open(web, "w") as f:
    f.write("tls_server_config:\n  cert_file: /x.pem\n  client_ca_file: /y.pem\n")
p = subprocess.run([GPUWATCH, "agent", "--web.config.file", web, "--config", "/dev/null"], capture_output=True, text=True, timeout=20)
check(p.returncode == 1 and "web.yml:3:3: unknown key 'client_ca_file' in tls_server_config" in p.stderr, "web-config errors: %r" % p.stderr)
subprocess.run(["rm", "-rf", workdir])
print("PASS")
