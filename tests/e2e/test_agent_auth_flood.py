"""test_agent_auth_flood.py - password guessing does not stop scrapes: while many clients send wrong
passwords (each a bcrypt check), the scraper whose credentials are cached is answered 200 every time,
guesses get 401 or, beyond the bounded queue of the password-check thread, 429 with Retry-After; and
a user who logs in for the first time after the flood is let in."""
import base64
import subprocess
import threading
import time
from agentlib import Agent, GPUWATCH, check, need_gpusim, scenario, wait_for


def hash_of(pw):
    p = subprocess.run([GPUWATCH, "agent", "--hash-password"], input=pw + "\n", capture_output=True, text=True)
    check(p.returncode == 0 and p.stdout.startswith("$2b$"), "hash-password: %r" % p.stderr)
    return p.stdout.strip()


def auth(user, pw):
    return {"Authorization": "Basic " + base64.b64encode(("%s:%s" % (user, pw)).encode()).decode()}


need_gpusim()
# the guessers and the scraper share 127.0.0.1, and 429s come back fast: the per-address connection
# rate (test_agent_abuse.py) is off here so that this tests the password-check queue alone
config = ("http:\n  connection_rate_per_ip: 0\nbasic_auth_users:\n  prometheus: '%s'\n  grafana: '%s'\n" %
          (hash_of("scrape pw"), hash_of("dash pw")))
a = Agent(scenario("agent_two.yaml"), config=config)
try:
    good = auth("prometheus", "scrape pw")
    wait_for("a first page with GPU series (the credentials are then cached)",
             lambda: (lambda r: r[0] == 200 and "DCGM_FI_DEV_GPU_TEMP{" in r[2])(a.request("/metrics", headers=good)))


    stop = threading.Event()
    guesses = {}
    retry_after = []
    lock = threading.Lock()

    def guess(n):
        i = 0
        while not stop.is_set():
            user = "prometheus" if n % 2 else "nobody"       # known and unknown user names
            try:
                st, hdr, _ = a.request("/metrics", headers=auth(user, "guess %d-%d" % (n, i)), timeout=20)
            except OSError as e:
                st, hdr = "error %s" % e, {}
            with lock:
                guesses[st] = guesses.get(st, 0) + 1
                if st == 429:
                    retry_after.append(hdr.get("Retry-After"))
            i += 1

    threads = [threading.Thread(target=guess, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    scrapes, worst = [], 0.0
    end = time.monotonic() + 4
    while time.monotonic() < end:
        t0 = time.monotonic()
        st, _, body = a.request("/metrics", headers=good, timeout=20)
        worst = max(worst, time.monotonic() - t0)
        scrapes.append(st == 200 and "DCGM_FI_DEV_GPU_TEMP{" in body)
        # a route that runs on the API queue, not the password queue, is answered too
        st, _, body = a.request("/api/v1/samples?gpu=0&metric=temperature.gpu&since=1m", headers=good, timeout=20)
        scrapes.append(st == 200 and '"samples"' in body)
        time.sleep(0.05)
    stop.set()
    for t in threads:
        t.join()
    print("guesses by status: %s; %d scrapes, slowest %.1f ms" % (guesses, len(scrapes), worst * 1000))
    check(scrapes and all(scrapes), "a cached scraper (/metrics, /api/v1/samples) was refused during the flood: %s" % scrapes)
    check(set(guesses) <= {401, 429}, "guesses got other answers: %s" % guesses)
    check(guesses.get(401, 0) > 0, "no guess was checked: %s" % guesses)
    check(guesses.get(429, 0) > 0, "16 guessers never overflowed the password-check queue: %s" % guesses)
    check(all(r == "1" for r in retry_after), "429 without Retry-After: 1: %s" % retry_after[:5])
    # the queue drains: a first login after the flood is checked and let in, a wrong one is not
    check(a.request("/api/v1/gpus", headers=auth("grafana", "dash pw"))[0] == 200, "first login after the flood")
    check(a.request("/api/v1/gpus", headers=auth("grafana", "wrong"))[0] == 401, "wrong password after the flood")
    # the agent stops cleanly with checks queued (the stop resumes every suspended connection)
    def late(n):
        try:
            a.request("/", headers=auth("prometheus", "late %d" % n), timeout=20)
        except OSError:
            pass   # the agent may close it while stopping: what matters is that it stops

    for n in range(12):
        threading.Thread(target=late, args=(n,), daemon=True).start()
    time.sleep(0.05)
finally:
    a.stop()   # fails the test unless the agent exits 0 within 20 s
