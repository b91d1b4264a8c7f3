#!/usr/bin/env bash
# test_history_cli.sh - gpuwatch history / events / history export on a file written by the
# synthetic load of the history bench (build/bench/bench_history) (2 minutes of 8 GPUs from 2025-12-02T11:00:00Z): formats, options, exit codes.
set -euo pipefail
G=${GPUWATCH:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$GW_BUILD_DIR/bench/bench_history" --dir "$T" --seconds 120 --record-only >"$T/bench.txt"
DB="$T/history.db"
R=(--db "$DB" --from 2025-12-02T11:00:00Z --to 2025-12-02T11:01:59Z)

"$G" history --help | grep -q -- '--metric' || fail "history --help"
"$G" events --help | grep -q -- '--since' || fail "events --help"
set +e
"$G" history --bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad option must exit 2"
"$G" history "${R[@]}" --metric no.such.metric >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown metric must exit 2"
"$G" history "${R[@]}" --metric power.draw --agg median >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad agg must exit 2"
"$G" history --db "$DB" --metric power.draw --since yesterday >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad time must exit 2"
"$G" history --db "$T/none.db" --metric power.draw >/dev/null 2>&1; [ $? -eq 1 ] || fail "missing file must exit 1"
"$G" events --db "$DB" --format xml >/dev/null 2>&1; [ $? -eq 2 ] || fail "events bad format must exit 2"
set -e

# csv: every sample of one GPU, in order, one second apart
"$G" history "${R[@]}" --metric utilization.gpu --gpu 3 --format csv >"$T/u.csv"
[ "$(head -1 "$T/u.csv")" = "time,unix_seconds,gpu,pid,metric,value" ] || fail "csv header"
[ "$(tail -n +2 "$T/u.csv" | wc -l)" -eq 120 ] || fail "csv rows: $(wc -l <"$T/u.csv")"
awk -F, 'NR>1 && ($3!=3 || $5!="utilization.gpu" || $6<90 || $6>100) {exit 1}' "$T/u.csv" || fail "csv values"

# json: Prometheus-style matrix; step 60 s avg = mean of the csv values per minute
"$G" history "${R[@]}" --metric utilization.gpu --gpu 3 --step 60s --format json >"$T/u.json"
python3 - "$T/u.json" "$T/u.csv" <<'PY' || fail "json"
import csv, json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "success" and d["data"]["resultType"] == "matrix"
res = d["data"]["result"]
assert len(res) == 1 and res[0]["metric"]["gpu"] == "3" and res[0]["metric"]["__name__"] == "utilization.gpu"
rows = list(csv.DictReader(open(sys.argv[2])))
vals = [float(r["value"]) for r in rows]
assert all(isinstance(v, (int, float)) for _, v in res[0]["values"]), "values must be JSON numbers"
got = [float(v) for _, v in res[0]["values"]]
assert len(got) == 2, got
for i in range(2):
    want = sum(vals[i * 60:(i + 1) * 60]) / 60
    assert abs(got[i] - want) < 1e-9, (got[i], want)
PY

# table: one column per GPU
"$G" history "${R[@]}" --metric temperature.gpu --gpu 0-2 --step 30s >"$T/t.txt"
head -1 "$T/t.txt" | grep -q "gpu2 temperature.gpu" || fail "table header"
[ "$(wc -l <"$T/t.txt")" -eq 5 ] || fail "table rows"

# chart: ASCII without a UTF-8 locale, braille with one; axis labels and legend
LANG=C LC_ALL=C "$G" history "${R[@]}" --metric power.draw --gpu 0,1 --format chart --width 72 --height 14 >"$T/c.txt"
[ "$(wc -l <"$T/c.txt")" -eq 14 ] || fail "chart height"
grep -q "power.draw" "$T/c.txt" && grep -q "(W)" "$T/c.txt" || fail "chart labels"
# the legend names each GPU next to the character its line is drawn with (no colour in a pipe)
grep -q '^ *\* GPU 0 *+ GPU 1$' "$T/c.txt" || fail "chart legend: $(tail -1 "$T/c.txt")"
grep -q '^ *[0-9.]* *[+|].*\*' "$T/c.txt" && grep -q '^ *[0-9.]* *[+|].*[^-]+' "$T/c.txt" || fail "both lines drawn"
LC_ALL=C grep -q -P '[^\x00-\x7F]' "$T/c.txt" && fail "ASCII chart has non-ASCII"
LC_ALL=C.UTF-8 "$G" history "${R[@]}" --metric power.draw --gpu 0 --format chart --width 72 --height 14 | grep -q "⣿ GPU 0" || fail "braille legend"
# UTF-8, several GPUs, no colour (a pipe): braille dots would all look alike, so characters again
LC_ALL=C.UTF-8 "$G" history "${R[@]}" --metric power.draw --gpu 0,1 --format chart --width 72 --height 14 >"$T/cu.txt"
grep -q "⣿" "$T/cu.txt" && fail "several GPUs piped must not be told apart by colour only"
grep -q '\* GPU 0 *+ GPU 1$' "$T/cu.txt" && grep -q "┤" "$T/cu.txt" || fail "UTF-8 chart with characters"

# expressions: per sample and GPU, before bucketing; checked against the fields' own samples
"$G" history "${R[@]}" --metric utilization.gpu,power.draw,memory.used,memory.total --gpu 2,3 --format csv >"$T/f.csv"
"$G" history "${R[@]}" --metric '100*memory.used/memory.total, (utilization.gpu + power.draw) / 2' --gpu 2,3 \
  --format csv >"$T/x.csv"
"$G" history "${R[@]}" --metric '-utilization.gpu+power.draw*2' --gpu 2,3 --step 60s --format json >"$T/x.json"
# 1/(u - u0), u0 the first sample's value: no value (null) exactly where u == u0
U0=$(awk -F, 'NR==2 {print $6}' "$T/u.csv")
"$G" history "${R[@]}" --metric "1/(utilization.gpu-$U0)" --gpu 3 --format json >"$T/n.json"
python3 - "$T/f.csv" "$T/x.csv" "$T/x.json" "$T/n.json" "$T/u.csv" "$U0" <<'PY' || fail "expressions"
import csv, json, sys
f = {}
for r in csv.DictReader(open(sys.argv[1])):
    f[(int(r["gpu"]), r["unix_seconds"], r["metric"])] = float(r["value"])
n = 0
for r in csv.DictReader(open(sys.argv[2])):
    g, t, v = int(r["gpu"]), r["unix_seconds"], float(r["value"])
    if r["metric"] == "100*memory.used/memory.total":
        want = 100 * f[(g, t, "memory.used")] / f[(g, t, "memory.total")]
    else:
        assert r["metric"] == "(utilization.gpu+power.draw)/2", r["metric"]
        want = (f[(g, t, "utilization.gpu")] + f[(g, t, "power.draw")]) / 2
    assert abs(v - want) < 1e-9 * abs(want), (r, want)
    n += 1
assert n == 2 * 2 * 120, n
d = json.load(open(sys.argv[3]))["data"]["result"]
assert [s["metric"]["gpu"] for s in d] == ["2", "3"] and d[0]["metric"]["__name__"] == "-utilization.gpu+power.draw*2"
assert "unit" not in d[0]["metric"]
for s in d:
    g = int(s["metric"]["gpu"])
    for k, (t, v) in enumerate(s["values"]):
        xs = [-f[(g, ts, "utilization.gpu")] + 2 * f[(g, ts, "power.draw")] for (gg, ts, m) in f
              if gg == g and m == "power.draw" and t <= float(ts) < t + 60]
        assert len(xs) == 60 and abs(v - sum(xs) / 60) < 1e-9 * abs(v), (g, t, v)
u = {r["unix_seconds"]: float(r["value"]) for r in csv.DictReader(open(sys.argv[5]))}
vals = json.load(open(sys.argv[4]))["data"]["result"][0]["values"]
assert len(vals) == 120
nulls = 0
for t, v in vals:
    want = u["%.6f" % t]
    if want == float(sys.argv[6]):
        assert v is None, (t, v)
        nulls += 1
    else:
        assert abs(v - 1 / (want - float(sys.argv[6]))) < 1e-12, (t, v)
assert nulls >= 1
PY
set +e
"$G" history "${R[@]}" --metric 'power.draw/(' >/dev/null 2>"$T/bad.err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q "power.draw/(.*character" "$T/bad.err" || fail "bad expression must exit 2 and say where"

# percentiles of each bucket's samples (interpolated between closest ranks), buckets at multiples of
# the step in Unix time: from 11:00:07 the first 1-minute bucket is 11:00:00 and holds 53 samples
for a in p50 p90 p95 p99 max; do
  "$G" history --db "$DB" --from 2025-12-02T11:00:07Z --to 2025-12-02T11:01:59Z --metric utilization.gpu --gpu 3 \
    --step 1m --agg $a --source raw --format json >"$T/p.json"
  python3 - "$T/p.json" "$T/u.csv" $a <<'PY' || fail "--agg $a"
import csv, json, math, sys
vals = json.load(open(sys.argv[1]))["data"]["result"][0]["values"]
samples = [(float(r["unix_seconds"]), float(r["value"])) for r in csv.DictReader(open(sys.argv[2]))]
assert [t for t, _ in vals] == [1764673200, 1764673260], vals
q = {"p50": .5, "p90": .9, "p95": .95, "p99": .99, "max": 1}[sys.argv[3]]
for t, v in vals:
    xs = sorted(x for ts, x in samples if max(t, 1764673207) <= ts < t + 60)
    assert len(xs) == (53 if t == 1764673200 else 60)
    r = q * (len(xs) - 1)
    want = xs[math.floor(r)] + (xs[math.ceil(r)] - xs[math.floor(r)]) * (r - math.floor(r))
    assert abs(v - want) < 1e-9, (t, v, want)
PY
done
"$G" history "${R[@]}" --metric power.draw --gpu 0 --step 7s --format csv | \
  awk -F, 'NR>1 && ($2 % 7 != 0) {exit 1}' || fail "7 s buckets start at multiples of 7 s"

# nothing matched: "no data" on stderr naming the metric, range and file, exit status 1
set +e
"$G" history --db "$DB" --from 2025-12-01T11:00:00Z --to 2025-12-01T12:00:00Z --metric power.draw --gpu 1 \
  >"$T/none.out" 2>"$T/none.err"; rc=$?
"$G" history "${R[@]}" --metric power.draw --gpu 9 --format csv >/dev/null 2>"$T/none9.err"; rc9=$?
set -e
[ $rc -eq 1 ] || fail "no data must exit 1 ($rc)"
[ ! -s "$T/none.out" ] || fail "no data prints nothing on stdout"
grep -q "no data: power.draw on GPU 1 between 2025-12-01T11:00:00Z and 2025-12-01T12:00:00Z in $DB" "$T/none.err" ||
  fail "no data message: $(cat "$T/none.err")"
# a GPU the file never recorded: a usage error as query's --id gives, naming the GPUs there are
n=$(python3 -c "import sqlite3; print(sqlite3.connect('$DB').execute('SELECT max(gpu) + 1 FROM chunks').fetchone()[0])")
[ $rc9 -eq 2 ] || fail "--gpu 9 of a file with GPUs 0-$((n - 1)) must exit 2 ($rc9)"
grep -q "^gpuwatch history: --gpu: no GPU '9' ($n GPUs: 0-$((n - 1)))$" "$T/none9.err" || fail "--gpu 9: $(cat "$T/none9.err")"

# only roll-ups for the range (raw samples deleted as retention does): percentiles and expressions
# say so and exit 1; plain averages read the roll-ups
cp "$DB" "$T/rollups.db"
python3 -c "import sqlite3; c = sqlite3.connect('$T/rollups.db'); c.execute('DELETE FROM chunks'); c.execute('DELETE FROM open_chunks'); c.commit()"
RR=(--db "$T/rollups.db" --from 2025-12-02T11:00:00Z --to 2025-12-02T11:01:59Z --gpu 0 --step 1m)
for m in "--agg p95 --metric power.draw" "--metric 2*power.draw"; do
  set +e
  # shellcheck disable=SC2086
  "$G" history "${RR[@]}" $m >"$T/ro.out" 2>"$T/ro.err"; rc=$?
  set -e
  [ $rc -eq 1 ] && grep -q "only 1-minute roll-ups are kept for this range" "$T/ro.err" || fail "roll-ups only ($m): $rc $(cat "$T/ro.err")"
done
"$G" history "${RR[@]}" --metric power.draw | grep -q "^2025-12-02T11:01:00Z" || fail "avg from roll-ups"

# chart y range: 0-100 for a metric in %, the data's otherwise, --ymin/--ymax when given
chart() { LC_ALL=C "$G" history "${R[@]}" --gpu 0 --format chart --width 72 --height 14 "$@"; }
chart --metric utilization.gpu >"$T/cy.txt"
[ "$(sed -n 2p "$T/cy.txt" | awk '{print $1}')" = 100 ] && [ "$(sed -n 11p "$T/cy.txt" | awk '{print $1}')" = 0 ] ||
  fail "% chart 0-100: $(sed -n 2p "$T/cy.txt")"
chart --metric power.draw >"$T/cp.txt"
[ "$(sed -n 2p "$T/cp.txt" | awk '{print $1}')" != 1000 ] && [ "$(sed -n 11p "$T/cp.txt" | awk '{print $1}')" != 0 ] ||
  fail "W chart auto"
chart --metric power.draw --ymin 0 --ymax 1000 >"$T/cm.txt"
[ "$(sed -n 2p "$T/cm.txt" | awk '{print $1}')" = 1000 ] && [ "$(sed -n 11p "$T/cm.txt" | awk '{print $1}')" = 0 ] ||
  fail "--ymin/--ymax"
chart --metric utilization.gpu --ymin 50 >"$T/cn.txt"
[ "$(sed -n 2p "$T/cn.txt" | awk '{print $1}')" = 100 ] && [ "$(sed -n 11p "$T/cn.txt" | awk '{print $1}')" = 50 ] ||
  fail "--ymin alone"
set +e
chart --metric power.draw --ymin 5 --ymax 1 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--ymin above --ymax must exit 2"
chart --metric power.draw --ymax x >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad --ymax must exit 2"
chart --metric power.draw --panels disk >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad --panels must exit 2"
set -e
# --panels gpu: one chart per metric and GPU, each of its own height and legend
LC_ALL=C "$G" history "${R[@]}" --gpu 0,1 --metric power.draw,utilization.gpu --format chart --width 72 --height 14 \
  --panels gpu >"$T/pg.txt"
[ "$(wc -l <"$T/pg.txt")" -eq 56 ] || fail "4 panels of 14 lines: $(wc -l <"$T/pg.txt")"
[ "$(grep -c "^power.draw on GPU [01], " "$T/pg.txt")" -eq 2 ] && grep -q "^utilization.gpu on GPU 1, " "$T/pg.txt" ||
  fail "panel titles"
[ "$(grep -c '^ *\* GPU [01]$' "$T/pg.txt")" -eq 4 ] || fail "one GPU per panel's legend"
"$G" history --help | grep -q -- "--panels" && "$G" history --help | grep -q "p95" && "$G" history --help |
  grep -q -- "--ymin" || fail "--help lists the new options"

# events
"$G" events --db "$DB" --from 2025-12-02T11:00:00Z --to 2025-12-02T11:02:00Z --format json >"$T/e.json"
python3 -c "import json,sys; e=json.load(open('$T/e.json')); assert all(x['kind'] in ('throttle_start','throttle_end') for x in e)" || fail "events json"

# export: a gpusim scenario with CSV traces
"$G" history export --db "$DB" --from 2025-12-02T11:00:00Z --to 2025-12-02T11:01:59Z --gpu 0,1 --out "$T/exp" >/dev/null
grep -q "^gpus:" "$T/exp/scenario.yaml" || fail "scenario"
grep -q "csv: {file: gpu1.csv, column: power.draw}" "$T/exp/scenario.yaml" || fail "csv generator"
[ "$(tail -n +2 "$T/exp/gpu0.csv" | wc -l)" -eq 120 ] || fail "trace rows"
if [ -x "${GPUSIM_TOOL:-}" ]; then
  "$GPUSIM_TOOL" check "$T/exp/scenario.yaml" || fail "gpusim check of the export"
  # the replay reports the recorded values at the recorded times
  M=power.draw,utilization.gpu,temperature.gpu,energy.consumed,gpm.sm_active,clocks_event_reasons.active
  "$GPUSIM_TOOL" render "$T/exp/scenario.yaml" --step 1s --duration 119s --gpu 1 --metrics $M >"$T/replay.csv"
  "$G" history "${R[@]}" --gpu 1 --metric $M --format csv >"$T/rec.csv"
  python3 - "$T/replay.csv" "$T/rec.csv" <<'PY' || fail "replay differs from the record"
import csv, sys
replay = list(csv.DictReader(open(sys.argv[1])))
rec = {}
for r in csv.DictReader(open(sys.argv[2])):
    rec[(round(float(r["unix_seconds"]) - 1764673200), r["metric"])] = float(r["value"])
n = 0
for row in replay:
    t = round(float(row["t"]))
    for m, v in row.items():
        if m in ("t", "gpu"):
            continue
        assert float(v) == rec[(t, m)], (t, m, v, rec[(t, m)])
        n += 1
assert n == 120 * 6, n
PY
fi

# history check: 0 and "ok" on the whole file; a copy whose roll-up pages are overwritten: check
# exits 1 naming the damage and the intact chunks; history answers from the raw samples, warns on
# stderr and exits 1 (it printed nothing and exited 0 before)
"$G" history check "$DB" >"$T/check.txt" || fail "check of a whole file"
grep -q "^ok: every part" "$T/check.txt" || fail "check says ok"
cp "$DB" "$T/damaged.db"
python3 - "$T/damaged.db" <<'PY' || fail "damaging the copy"
import sqlite3, sys
pages = [p for (p,) in sqlite3.connect(sys.argv[1]).execute("SELECT pageno FROM dbstat WHERE name='rollups'")]
assert pages
with open(sys.argv[1], "r+b") as f:
    for p in pages:
        f.seek((p - 1) * 4096 + 8)
        f.write(b"\xa5" * (4096 - 8))
PY
set +e
"$G" history check "$T/damaged.db" >"$T/check2.txt"; rc=$?
"$G" history --db "$T/damaged.db" --from 2025-12-02T11:00:00Z --to 2025-12-02T11:01:59Z --metric utilization.gpu \
  --gpu 3 --step 60s --format json >"$T/d.json" 2>"$T/d.err"; hrc=$?
set -e
[ $rc -eq 1 ] || fail "check of a damaged file must exit 1"
grep -q "damaged: rollups" "$T/check2.txt" || fail "check names the damaged roll-ups"
grep -q "chunks (sealed chunk groups): [1-9]" "$T/check2.txt" || fail "check lists the intact chunks"
[ $hrc -eq 1 ] || fail "history on a damaged file must exit 1"
grep -q "warning: the history file is damaged" "$T/d.err" || fail "history warns"
cmp -s <(python3 -c "import json; print(json.load(open('$T/u.json'))['data']['result'])") \
  <(python3 -c "import json; print(json.load(open('$T/d.json'))['data']['result'])") || fail "raw must stand in for roll-ups"
echo "ok"
