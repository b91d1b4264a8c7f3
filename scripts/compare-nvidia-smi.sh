#!/usr/bin/env bash
# compare-nvidia-smi.sh - on a machine with an NVIDIA GPU: runs every nvidia-smi form gpuwatch answers
# with both programs and prints the differences in structure (not in values): the summary table's
# columns, -q's lines and key column (whole and per -d section), -q -x's elements, the --help-query-*
# field names, topo -m's header and cells, --query-gpu / --query-compute-apps / --query-remapped-rows /
# --query-retired-pages headers and value shapes, -L, dmon and pmon headers. One command for the first
# GPU machine: it needs python3 and both programs, nothing else.
# Usage: scripts/compare-nvidia-smi.sh [GPUWATCH] (default build/gpuwatch); OUT=DIR keeps both outputs.
# Exit status: the number of forms whose structure differs (0: all the same).
set -u
gw=${1:-${GPUWATCH:-build/gpuwatch}}
smi=${NVIDIA_SMI:-nvidia-smi}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
command -v "$smi" >/dev/null || { echo "compare-nvidia-smi: no $smi here (a machine with an NVIDIA driver is needed)"; exit 2; }
[ -x "$gw" ] || { echo "compare-nvidia-smi: no gpuwatch at $gw"; exit 2; }
command -v python3 >/dev/null || { echo "compare-nvidia-smi: python3 is needed"; exit 2; }
"$smi" -L >/dev/null 2>&1 || { echo "compare-nvidia-smi: $smi cannot read the GPUs"; exit 2; }

# Every field nvidia-smi's --query-gpu takes on this driver (its help), and the other lists' fields.
fields=$("$smi" --help-query-gpu | sed -n 's/^"\([^"]*\)".*/\1/p' | grep -v ': ' | paste -sd, -)
apps=timestamp,gpu_name,gpu_bus_id,gpu_serial,gpu_uuid,pid,process_name,used_gpu_memory
rows=gpu_bus_id,gpu_uuid,remapped_rows.correctable,remapped_rows.uncorrectable,remapped_rows.pending,remapped_rows.failure
pages=timestamp,gpu_name,gpu_bus_id,gpu_serial,gpu_uuid,retired_pages.address,retired_pages.timestamp,retired_pages.cause

# name|kind|arguments (kind tells how the two outputs are compared)
forms=(
  "table|table|"
  "table -i 0|table|-i 0"
  "-q|q|-q"
  "-q -x|xml|-q -x"
  "--help-query-gpu|help|--help-query-gpu"
  "--help-query-compute-apps|help|--help-query-compute-apps"
  "--help-query-retired-pages|help|--help-query-retired-pages"
  "--help-query-remapped-rows|help|--help-query-remapped-rows"
  "topo -m|topo|topo -m"
  "--query-gpu (every field)|csv|--query-gpu=$fields --format=csv"
  "--query-compute-apps|csv|--query-compute-apps=$apps --format=csv"
  "--query-remapped-rows|csv|--query-remapped-rows=$rows --format=csv"
  "--query-retired-pages|csv|--query-retired-pages=$pages --format=csv"
  "-L|lines|-L"
  "dmon -c 1|head2|dmon -c 1"
  "pmon -c 1|head2|pmon -c 1"
)
for d in MEMORY UTILIZATION ECC TEMPERATURE POWER CLOCK COMPUTE PIDS PERFORMANCE SUPPORTED_CLOCKS PAGE_RETIREMENT \
  ACCOUNTING ENCODER_STATS VOLTAGE FBC_STATS ROW_REMAPPER; do
  forms+=("-q -d $d|q|-q -d $d")
done

differ=0
n=0
for f in "${forms[@]}"; do
  IFS='|' read -r name kind args <<<"$f"
  n=$((n + 1))
  # shellcheck disable=SC2086 # the arguments are words
  "$smi" $args >"$out/$n.smi" 2>"$out/$n.smi.err"
  # shellcheck disable=SC2086
  "$gw" $args >"$out/$n.gw" 2>"$out/$n.gw.err"
  echo "== $name"
  if python3 - "$kind" "$out/$n.smi" "$out/$n.gw" <<'PY'; then :; else differ=$((differ + 1)); fi
import re, sys
import xml.etree.ElementTree as ET

kind, a, b = sys.argv[1:]
smi, gw = (open(p, errors="replace").read() for p in (a, b))


def shape(s):
    """A line with its values blurred: digits 9, hex words X, the rest kept."""
    s = re.sub(r"[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\.\d", "BUSID", s)
    s = re.sub(r"GPU-[0-9a-f-]{36}", "UUID", s)
    return re.sub(r"\d", "9", s)


def q_paths(text):
    out, stack = [], []
    for line in text.split("\n"):
        if not line.strip() or line.startswith("="):
            continue
        indent = len(line) - len(line.lstrip(" "))
        key, col = (line[:line.index(" :")].strip(), line.index(":")) if " : " in line or line.rstrip().endswith(" :") \
            else (line.strip(), None)
        if re.match(r"^GPU [0-9A-Fa-f]{8}:", key):
            key = "GPU"
        stack = stack[:indent // 4] + [key]
        out.append(("/".join(stack), col))
    return out


def report(only_smi, only_gw, what):
    for x in only_smi:
        print("  only nvidia-smi: %s %s" % (what, x))
    for x in only_gw:
        print("  only gpuwatch:   %s %s" % (what, x))
    if not only_smi and not only_gw:
        print("  same structure")
        return 0
    return 1


def ordered_diff(x, y):
    sx, sy = set(x), set(y)
    return [i for i in dict.fromkeys(x) if i not in sy], [i for i in dict.fromkeys(y) if i not in sx]


if kind == "table":
    def cols(t):  # the columns of '|' and '+' on each box line, the header lines as they are
        lines = [l for l in t.split("\n")[1:] if l.startswith(("|", "+"))]
        return ["%s  %s" % ([i for i, c in enumerate(l) if c == l[0]], shape(l) if "Name" in l or "Fan" in l
                or "Processes" in l or "GPU   GI" in l else "") for l in lines]
    rc = report(*ordered_diff(cols(smi), cols(gw)), "line")
elif kind == "q":
    rc = report(*ordered_diff(q_paths(smi), q_paths(gw)), "line (path, ':' column)")
elif kind == "xml":
    def paths(t):
        out = []
        def walk(e, p):
            out.append(p + "/" + e.tag)
            for c in e:
                walk(c, p + "/" + e.tag)
        walk(ET.fromstring(t), "")
        return out
    try:
        rc = report(*ordered_diff(paths(smi), paths(gw)), "element")
    except ET.ParseError as e:
        print("  not well-formed:", e)
        rc = 1
elif kind == "help":
    names = lambda t: re.findall(r'^("[^"]+"(?: or "[^"]+")*)$', t, re.M)
    rc = report(*ordered_diff(names(smi), names(gw)), "field")
elif kind == "topo":
    def cells(t):
        lines = [l for l in t.split("\n") if l.strip()]
        legend = lines.index("Legend:") if "Legend:" in lines else len(lines)
        return [shape(lines[0])] + [re.sub(r"\t[^\t]*\t[^\t]*\t\t[^\t]*$", "\tCPUS\tNODE\t\tID", shape(l))
                                    for l in lines[1:legend]] + lines[legend:]
    rc = report(*ordered_diff(cells(smi), cells(gw)), "line")
elif kind == "csv":
    hs, hg = (t.split("\n")[0].split(", ") for t in (smi, gw))
    rc = report(*ordered_diff(hs, hg), "header cell")
    vals = lambda t: [shape(c) for l in t.split("\n")[1:2] for c in l.split(", ")]
    for h, x, y in zip(hs, vals(smi), vals(gw)):
        if x != y:
            print("  value shape of %s: nvidia-smi %r, gpuwatch %r" % (h, x, y))
            rc = 1
elif kind == "lines":
    rc = report(*ordered_diff([shape(l) for l in smi.split("\n")], [shape(l) for l in gw.split("\n")]), "line")
else:  # head2: the two header lines
    rc = report(*ordered_diff(smi.split("\n")[:2], gw.split("\n")[:2]), "header")
sys.exit(rc)
PY
done
echo
echo "compare-nvidia-smi: $differ of $n forms differ in structure (outputs in $out)"
exit $((differ > 125 ? 125 : differ))
