"""abuse_clients.py - hostile HTTP clients for scripts/bench_abuse.sh (never a test):
  trickle PORT SECONDS N    N connections from 127.0.0.2, each sending one header line a second
                            and never finishing its request; closed ones are opened again
  idle PORT SECONDS N       N connections from 30 addresses (127.0.0.2-31) that send nothing;
                            closed ones are opened again
  malformed PORT SECONDS N  at least N malformed requests, one per connection, spread over SECONDS
  oversized PORT SECONDS    requests with 15 KB headers, 20 KB URLs and 1 GB Content-Lengths
                            (bodies never sent), back to back
  churn PORT SECONDS        a mix every second: 50 connections opened and dropped idle, 20 proper
                            requests, 20 malformed ones, 5 with a body
Prints one line of counts at the end."""
import socket
import sys
import time

JUNK = (b"GARBAGE\r\n\r\n", b"GET\r\n\r\n", b"GET /metrics HTTP/9.9\r\n\r\n", b"\x00\x01\x02\xff\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\nNoColonHeader\r\n\r\n", b"GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n1\r\n",
        b"\r\n\r\n\r\n", b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 400 + b"\r\n")


def connect(port, src="127.0.0.1"):
    s = socket.socket()
    s.bind((src, 0))
    s.settimeout(2)
    s.connect(("127.0.0.1", port))
    return s


def one_shot(port, data, src="127.0.0.3", wait=False):
    """Sends data and closes (a flood does not wait); wait: reads the answer first."""
    try:
        s = connect(port, src)
        s.sendall(data)
        if wait:
            try:
                s.recv(65536)
            except OSError:
                pass
        s.close()
        return 1
    except OSError:
        return 0


def closed(s):
    try:
        return s.recv(4096, socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def hold(port, seconds, n, addrs, trickle):
    socks, opened = [None] * n, 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.monotonic()
        for i in range(n):
            s = socks[i]
            if s is not None and closed(s):
                s.close()
                s = socks[i] = None
            if s is None:
                try:
                    s = socks[i] = connect(port, "127.0.0.%d" % (2 + i % addrs))
                    opened += 1
                    if trickle:
                        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
                except OSError:
                    continue
            elif trickle:
                try:
                    s.send(b"X-Slow: %d\r\n" % i)
                except OSError:
                    pass
        time.sleep(max(0.0, 1.0 - (time.monotonic() - t0)))
    for s in socks:
        if s is not None:
            s.close()
    print("connections opened: %d (held %d at a time)" % (opened, n))


def malformed(port, seconds, count):
    """At least count malformed requests, spread over the given seconds."""
    t0, sent, i = time.monotonic(), 0, 0
    end = t0 + seconds
    while i < count or time.monotonic() < end:
        if i >= count and sent / max(time.monotonic() - t0, 1e-3) > count / seconds:
            time.sleep(0.001)
            continue
        sent += one_shot(port, JUNK[i % len(JUNK)])
        i += 1
    print("malformed requests: %d in %.1f s" % (sent, time.monotonic() - t0))


def oversized(port, seconds):
    reqs = (b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 15000 + b"\r\n\r\n",
            b"GET /" + b"b" * 20000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
            b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n",
            b"POST /api/v1/gpus HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n" + b"c" * 65536)
    n, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        n += one_shot(port, reqs[n % len(reqs)])
    print("oversized requests: %d" % n)


def churn(port, seconds):
    n, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.monotonic()
        idle = []
        for i in range(50):
            try:
                idle.append(connect(port, "127.0.0.%d" % (2 + i % 10)))
            except OSError:
                pass
        for i in range(20):
            n += one_shot(port, b"GET /api/v1/gpus HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", wait=True)
            n += one_shot(port, JUNK[i % len(JUNK)])
        for i in range(5):
            n += one_shot(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + b"d" * 100)
        for s in idle:
            s.close()
        time.sleep(max(0.0, 1.0 - (time.monotonic() - t0)))
    print("churn requests: %d" % n)


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "trickle":
        hold(port, float(sys.argv[3]), int(sys.argv[4]), 1, True)
    elif mode == "idle":
        hold(port, float(sys.argv[3]), int(sys.argv[4]), 30, False)
    elif mode == "malformed":
        malformed(port, float(sys.argv[3]), int(sys.argv[4]))
    elif mode == "oversized":
        oversized(port, float(sys.argv[3]))
    elif mode == "churn":
        churn(port, float(sys.argv[3]))
    else:
        sys.exit("unknown mode " + mode)


main()
