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
grep -q "power.draw" "$T/c.txt" && grep -q "(W)" "$T/c.txt" && grep -q "gpu1" "$T/c.txt" || fail "chart labels"
LC_ALL=C grep -q -P '[^\x00-\x7F]' "$T/c.txt" && fail "ASCII chart has non-ASCII"
LC_ALL=C.UTF-8 "$G" history "${R[@]}" --metric power.draw --gpu 0 --format chart --width 72 --height 14 | grep -q "⣿" || fail "braille legend"

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
