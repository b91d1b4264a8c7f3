#!/usr/bin/env bash
# test_top_remote.sh - `top --host` reads a gpuwatch agent's JSON API over https with basic auth:
# the snapshot and the live screen show the agent's GPUs; a wrong password is a clear error; when
# the agent goes away the screen says so, marks the GPUs STALE, and still answers keys.
. "$(dirname "$0")/top_lib.sh"
need_command openssl openssl

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/key.pem" -out "$WORK/cert.pem" -days 1 \
  -subj /CN=127.0.0.1 -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1 || fail "openssl req"
hash=$("$GPUWATCH" agent --hash-password s3cret) || fail "--hash-password"
cat > "$WORK/agent.yaml" <<YAML
tls:
  cert_file: $WORK/cert.pem
  key_file: $WORK/key.pem
basic_auth_users:
  watcher: "$hash"
YAML
echo s3cret > "$WORK/pw"
echo wrong > "$WORK/badpw"
"$GPUWATCH" --sim "$SCEN/top_thermal.yaml" agent --config "$WORK/agent.yaml" --listen 127.0.0.1:0 \
  --port-file "$WORK/port" 2>"$WORK/agent.err" &
agent=$!
trap 'kill $agent 2>/dev/null; cleanup' EXIT
for _ in $(seq 200); do [ -s "$WORK/port" ] && break; sleep 0.05; done
[ -s "$WORK/port" ] || { cat "$WORK/agent.err" >&2; fail "agent did not start"; }
host="127.0.0.1:$(cat "$WORK/port")"

# The agent samples in the background; poll until its first sample is served.
for _ in $(seq 100); do
  out=$("$GPUWATCH" top --once --host "$host" --tls --cacert "$WORK/cert.pem" --user watcher --password-file "$WORK/pw" 2>&1) \
    && echo "$out" | grep -q "73%" && break
  sleep 0.1
done
echo "$out" | grep -Eq "^0 +NVIDIA H100 80GB HBM3 +73% +40.0 GiB/80.0 GiB" || fail "remote snapshot: $out"
echo "$out" | grep -q "(https://$host)" || fail "remote host not in the header: $out"
echo "$out" | grep -q "ghost-infer" || fail "remote processes: $out"
ok "remote snapshot over https with basic auth"

err=$("$GPUWATCH" top --once --host "$host" --tls --cacert "$WORK/cert.pem" --user watcher --password-file "$WORK/badpw" 2>&1); rc=$?
[ "$rc" = 1 ] || fail "wrong password exited $rc"
echo "$err" | grep -q "HTTP 401" || fail "wrong password message: $err"
err=$("$GPUWATCH" top --once --host "$host" --user watcher --password-file "$WORK/pw" 2>&1); rc=$?
[ "$rc" = 1 ] || fail "plain http to a TLS agent exited $rc: $err"
ok "clear errors for a wrong password and for http to an https agent"

# Let the agent's ring hold several seconds of samples: the charts start with that history.
for _ in $(seq 100); do
  n=$(curl -sk -u watcher:s3cret "https://$host/api/v1/samples?metric=utilization.gpu&gpu=0" | grep -o '\],\[' | wc -l)
  [ "$n" -ge 6 ] && break
  sleep 0.2
done
[ "$n" -ge 6 ] || fail "the agent's ring did not fill ($n samples)"
start r 120 40 top --host "$host" --tls --insecure --user watcher --password-file "$WORK/pw" --interval 0.5
wait_for r " H100 80GB HBM3 "
wait_for r "73%"
wait_for r "ghost-infer"
wait_for r "pending CRIT GPUTemperatureCritical \(pending for [0-9]+s, not firing yet\): GPU 0" # /api/v1/alerts
cols=$(screen r | python3 -c '
import sys
rows = [l for l in sys.stdin.read().split("\n") if "\u2502" in l]
print(len({i for l in rows for i, ch in enumerate(l[:58]) if 0x2801 <= ord(ch) <= 0x28FF}))')
[ "$cols" -ge 4 ] || fail "charts did not start with the agent's history ($cols columns)"
ok "charts prefilled from the agent's /api/v1/samples"
kill "$agent"; wait "$agent" 2>/dev/null
wait_for r "agent https://$host: "
wait_for r "STALE"
keys r '?'
wait_for r "gpuwatch top - keys"
keys r x
ok "agent gone: error shown, GPUs stale, keys still work"
quit r
