"""test_agent_tls_versions.py - TLS versions and suites (docs/reliability.md, Security): by default
TLS 1.0 and 1.1 are refused and TLS 1.2 offers only forward-secret AEAD suites, TLS 1.3 works;
tls_server_config's min_version, cipher_suites and curve_preferences (Prometheus' web-config names)
are applied; a request body is refused at the headers, 401 first when auth is on; --hash-password
warns about bcrypt's 72 bytes."""
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from agentlib import Agent, GPUWATCH, check, need_gpusim, scenario
from skiplib import need_command

need_gpusim()
need_command("openssl", "openssl")
work = tempfile.TemporaryDirectory(prefix="gw-tlsv-")
cert, key = os.path.join(work.name, "cert.pem"), os.path.join(work.name, "key.pem")
p = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   capture_output=True, text=True)
check(p.returncode == 0, "openssl req: " + p.stderr)


def handshake(port, *opts):
    """The protocol and cipher openssl s_client agreed on, or None when the handshake failed."""
    p = subprocess.run(["openssl", "s_client", "-connect", "127.0.0.1:%d" % port] + list(opts),
                       input="", capture_output=True, text=True, timeout=20)
    for line in p.stdout.splitlines():
        if line.startswith("New, ") and "Cipher is" in line:
            proto, cipher = line[5:].split(", Cipher is ")
            return None if cipher == "(NONE)" else (proto, cipher)
    return None


OLD = ["-cipher", "DEFAULT@SECLEVEL=0"]  # lets this OpenSSL offer TLS 1.0/1.1 at all
tls = "tls:\n  cert_file: %s\n  key_file: %s\n" % (cert, key)
a = Agent(scenario("agent_two.yaml"), config=tls)
try:
    for v in ("-tls1", "-tls1_1"):
        check(handshake(a.port, v, *OLD) is None, "%s accepted by default" % v)
    check(handshake(a.port, "-tls1_2", "-cipher", "AES128-SHA:AES256-SHA:DES-CBC3-SHA") is None, "CBC/RSA kx suites")
    got = handshake(a.port, "-tls1_2")
    check(got is not None and got[0] == "TLSv1.2", "TLS 1.2: %r" % (got,))
    check(got[1].startswith("ECDHE-") and ("GCM" in got[1] or "CHACHA20" in got[1]), "ECDHE with AEAD: %r" % (got,))
    got = handshake(a.port, "-tls1_3")
    check(got and got[0] == "TLSv1.3", "TLS 1.3: %r" % (got,))
finally:
    a.stop()

# web-config: TLS 1.2 only, one suite, one curve
web = os.path.join(work.name, "web.yml")
with open(web, "w") as f:
    f.write("tls_server_config:\n  cert_file: %s\n  key_file: %s\n  min_version: TLS12\n  max_version: TLS12\n"
            "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384]\n  curve_preferences: [CurveP384]\n" % (cert, key))
b = Agent(scenario("agent_two.yaml"), args=["--web.config.file", web])
try:
    check(handshake(b.port, "-tls1_3") is None, "TLS 1.3 above max_version")
    check(handshake(b.port, "-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256") is None, "a suite not listed")
    got = handshake(b.port, "-tls1_2", "-cipher", "ECDHE-RSA-AES256-GCM-SHA384", "-groups", "P-384")
    check(got == ("TLSv1.2", "ECDHE-RSA-AES256-GCM-SHA384"), "the listed suite: %r" % (got,))
    check(handshake(b.port, "-tls1_2", "-groups", "X25519") is None, "a curve not listed")
finally:
    b.stop()
for bad, words in (("min_version: TLS14", "'TLS14' is not one of TLS10, TLS11, TLS12, TLS13"),
                   ("cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]", "is broken (RC4, 3DES) and not offered"),
                   ("cipher_suites: [TLS_FOO]", "unknown name 'TLS_FOO'"),
                   ("min_version: TLS13\n  max_version: TLS12", "min_version is above max_version")):
    with open(web, "w") as f:
        f.write("tls_server_config:\n  cert_file: %s\n  key_file: %s\n  %s\n" % (cert, key, bad))
    p = subprocess.run([GPUWATCH, "agent", "--web.config.file", web, "--config", "/dev/null"], capture_output=True,
                       text=True, timeout=20)
    check(p.returncode == 1 and words in p.stderr, "%r: %r" % (bad, p.stderr))

# bodies with auth: 401 at the headers, the body never read
p = subprocess.run([GPUWATCH, "agent", "--hash-password"], input="pw\n", capture_output=True, text=True)
check(p.returncode == 0 and "72" not in p.stderr, "short password: no warning")
c = Agent(scenario("agent_two.yaml"), config=tls + "basic_auth_users:\n  prom: '%s'\n" % p.stdout.strip())
try:
    ctx = ssl.create_default_context(cafile=cert)
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", c.port), timeout=5), server_hostname="127.0.0.1")
    s.settimeout(60)
    s.sendall(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n")
    reply = s.recv(200)  # the body is never sent: an answer at all shows it was refused at the headers
    s.close()
    check(reply.startswith(b"HTTP/1.1 401"), "body without credentials: %r" % reply[:40])
finally:
    c.stop()
p = subprocess.run([GPUWATCH, "agent", "--hash-password"], input="x" * 80 + "\n", capture_output=True, text=True)
check(p.returncode == 0 and p.stdout.startswith("$2b$") and "only the first 72" in p.stderr, "72-byte warning: %r" % p.stderr)
work.cleanup()
print("PASS")
