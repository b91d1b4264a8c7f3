#!/usr/bin/env bash
# bench_cli.sh - costs of the nvidia-smi style commands on the simulated 8-GPU demo:
#  1. one-shot `query --fields all --format csv`: median wall time (hyperfine, else a timed loop);
#  2. its instructions (valgrind callgrind), split into libnvidia-ml (gpusim), the gpuwatch binary
#     and the rest (libc, loader), and gpuwatch's steady-state Ir per GPU per dmon sample;
#  3. `dmon -d 0.1` CPU use over ~10 s, from /proc/PID/stat utime+stime.
# Usage: scripts/bench_cli.sh [BUILD_DIR]   (figures only; targets are judged by people, not here)
set -u
build=$(cd "${1:-build}" && pwd)
gw="${GPUWATCH:-$build/gpuwatch}"
scen="${BENCH_SCENARIO:-demo-8gpu}"
secs="${BENCH_DMON_SECONDS:-10}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
query=("$gw" --sim "$scen" query --fields all --format csv)

"${query[@]}" >/dev/null 2>"$tmp/err" || { echo "bench_cli: query failed: $(cat "$tmp/err")"; exit 1; }
gpus=$("$gw" --sim "$scen" list 2>/dev/null | wc -l)

# 1. wall time (and the floor of starting any process here, /bin/true)
floor=""
if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 5 --runs 100 --export-json "$tmp/f.json" /bin/true >/dev/null 2>&1
  floor=$(python3 -c 'import json,sys; print("%.2f" % (json.load(open(sys.argv[1]))["results"][0]["median"]*1e3))' "$tmp/f.json")
  hyperfine -N --warmup 5 --runs 100 --export-json "$tmp/h.json" "${query[*]}" >/dev/null 2>&1
  read -r median user <<<"$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.2f %.2f" % (r["median"]*1e3, r["user"]*1e3))' "$tmp/h.json")"
  wall_how="hyperfine -N, 100 runs"
else
  for i in $(seq 1 51); do
    s=$(date +%s%N); "${query[@]}" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000 ))
  done | sort -n > "$tmp/t"
  median=$(awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]/1000}' "$tmp/t")
  user=""
  wall_how="shell loop, 51 runs"
fi

# Self Ir per object from a callgrind output file: "object Ir" lines, and "total Ir".
split_ir() {
  python3 - "$1" <<'PY'
import re, sys
names, fnames, ob, cob, fn, cfn, skip, per, total, ours_calls = {}, {}, "?", None, "?", "?", False, {}, 0, 0
def is_nvml(o): return "libnvidia-ml" in o
def is_ours(o): return o.endswith("/gpuwatch")
def is_lib(o): return re.search(r"/lib(c|m|cjson)\.so", o) is not None
for line in open(sys.argv[1], errors="replace"):
    line = line.rstrip("\n")
    if line.startswith("ob=") or line.startswith("cob="):
        m = re.match(r"c?ob=\((\d+)\)(?: (.*))?", line)
        if m and m.group(2):
            names[m.group(1)] = m.group(2)       # names are defined once, in ob= or cob= lines
        name = names.get(m.group(1), "?") if m else line.split("=", 1)[1]
        if line.startswith("ob="): ob = name
        else: cob = name
    elif line.startswith("fn="):
        m = re.match(r"fn=\((\d+)\)(?: (.*))?", line)
        if m and m.group(2):
            fnames[m.group(1)] = m.group(2)
        fn = fnames.get(m.group(1), "?") if m else line[3:]
    elif line.startswith("cfn="):
        m = re.match(r"cfn=\((\d+)\)(?: (.*))?", line)
        if m and m.group(2):
            fnames[m.group(1)] = m.group(2)
        cfn = fnames.get(m.group(1), "?") if m else line[4:]
    elif line.startswith("calls="):
        skip = True
    elif line[:1].isdigit() or line[:1] in "+-*":
        parts = line.split()
        cost = int(parts[1]) if len(parts) >= 2 else 0
        if skip:                                  # inclusive cost of a call
            callee = cob or ob
            if is_ours(ob) and is_lib(callee) and fn not in ("_start", "(below main)") \
                    and not cfn.startswith("dl"):     # dlopen/dlsym: loading, not our work
                ours_calls += cost                # libc/libm/cJSON work done for gpuwatch
            skip, cob = False, None
            continue
        per[ob] = per.get(ob, 0) + cost
    elif line.startswith("totals:") or line.startswith("summary:"):
        total = int(line.split()[1])
nvml = sum(v for k, v in per.items() if is_nvml(k))
ours = sum(v for k, v in per.items() if is_ours(k))
print(total or sum(per.values()), nvml, ours, ours_calls)
PY
}

# Dynamic loader start-up (median of 9): every library gpuwatch links is mapped and relocated first.
ld_cycles() {
  for i in 1 2 3 4 5 6 7 8 9; do
    LD_DEBUG=statistics "$@" 2>&1 >/dev/null | awk '/total startup time in dynamic loader/ {print $(NF-1)}'
  done | sort -n | sed -n 5p
}
ld_gw=$(ld_cycles "$gw" --help)
ld_true=$(ld_cycles /bin/true)
nlibs=$(ldd "$gw" | wc -l)

# 2. instructions
cg=""; dmon_ir=""
if command -v valgrind >/dev/null; then
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.q" "${query[@]}" >/dev/null 2>&1
  read -r q_total q_nvml q_ours q_oc <<<"$(split_ir "$tmp/cg.q")"
  # steady state: dmon -c 40 minus dmon -c 10 = 30 samples of every GPU
  for n in 10 40; do
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.d$n" "$gw" --sim "$scen" dmon -d 0.1 -c $n -s pucvmet >/dev/null 2>&1
  done
  read -r a_total a_nvml a_ours a_oc <<<"$(split_ir "$tmp/cg.d10")"
  read -r b_total b_nvml b_ours b_oc <<<"$(split_ir "$tmp/cg.d40")"
  cg=1
fi

# 3. dmon CPU use
"$gw" --sim "$scen" dmon -d 0.1 >/dev/null 2>&1 &
pid=$!
sleep 1                                         # leave start-up out
tck=$(getconf CLK_TCK)
t0=$(awk '{print $14 + $15}' /proc/$pid/stat); s0=$(date +%s%N)
sleep "$secs"
t1=$(awk '{print $14 + $15}' /proc/$pid/stat); s1=$(date +%s%N)
kill -INT $pid; wait $pid; rc=$?
cpu=$(awk -v t=$((t1 - t0)) -v hz="$tck" -v ns=$((s1 - s0)) 'BEGIN {printf "%.2f", t / hz / (ns / 1e9) * 100}')

echo "gpuwatch CLI benchmark: scenario $scen ($gpus GPUs), $(nproc) CPUs"
printf '%-58s %s\n' "measure" "value"
printf '%-58s %s ms (%s)\n' "query --fields all --format csv: median wall" "$median" "$wall_how"
[ -n "$floor" ] && printf '%-58s %s ms\n' "  /bin/true median wall on this machine (spawn floor)" "$floor"
printf '%-58s %s cycles (%s libraries; /bin/true %s)\n' "  dynamic loader start-up of gpuwatch" "$ld_gw" "$nlibs" "$ld_true"
[ -n "$user" ] && printf '%-58s %.3f ms\n' "  user CPU per run (hyperfine mean)" "$user"
if [ -n "$cg" ]; then
  printf '%-58s %s\n' "query one-shot: total Ir" "$q_total"
  printf '%-58s %s\n' "  Ir in libnvidia-ml (gpusim)" "$q_nvml"
  printf '%-58s %s\n' "  Ir in the gpuwatch binary (start-up included)" "$q_ours"
  printf '%-58s %s\n' "  Ir in libc/libm/cJSON called from gpuwatch" "$q_oc"
  printf '%-58s %s\n' "  Ir elsewhere (dynamic loader, gpusim's libc/libyaml use)" "$((q_total - q_nvml - q_ours - q_oc))"
  per_gpu_ours=$(( (b_ours - a_ours) / 30 / gpus ))
  per_gpu_nvml=$(( (b_nvml - a_nvml) / 30 / gpus ))
  per_gpu_all=$(( (b_total - a_total) / 30 / gpus ))
  per_gpu_oc=$(( (b_oc - a_oc) / 30 / gpus ))
  printf '%-58s %s\n' "dmon -s pucvmet steady state: Ir per GPU per sample, all" "$per_gpu_all"
  printf '%-58s %s\n' "  of which libnvidia-ml (gpusim)" "$per_gpu_nvml"
  printf '%-58s %s\n' "  of which gpuwatch code (sampler, NVML backend, formatting)" "$per_gpu_ours"
  printf '%-58s %s\n' "  of which libc/libm/cJSON called by gpuwatch" "$per_gpu_oc"
  printf '%-58s %s us (at 1000 Ir/us)\n' "  gpuwatch work per GPU per sample, estimate" \
    "$(awk -v i="$((per_gpu_ours + per_gpu_oc))" 'BEGIN {printf "%.2f", i / 1000}')"
fi
printf '%-58s %s %% of one core (%s s, exit %s)\n' "dmon -d 0.1 CPU use" "$cpu" "$secs" "$rc"
if [ -n "$cg" ]; then
  # Instructions per microsecond actually achieved by dmon (its CPU time covers all Ir of 10 samples/s).
  awk -v all="$per_gpu_all" -v ours="$((per_gpu_ours + per_gpu_oc))" -v g="$gpus" -v cpu="$cpu" 'BEGIN {
    if (cpu <= 0) exit
    rate = all * g * 10 / (cpu / 100 * 1e6)
    printf "%-58s %.0f Ir/us -> %.1f us per GPU per sample\n", "  gpuwatch work at the rate dmon achieved", rate, ours / rate }'
fi
