"""nvsmi_ref.py - what real nvidia-smi prints (tests/data/nvidia-smi/: an H100 on driver 590 and an
RTX 4080 SUPER on 595), and the shape of a value, for the nvidia-smi compatibility tests."""
import os
import re

SRC = os.environ.get("GW_SOURCE_DIR", os.getcwd())
REF = os.path.join(SRC, "tests", "data", "nvidia-smi")
BOARDS = ("h100-590", "rtx4080-595")


def ref_lines(board, what):
    """The output lines of one capture (its first line, the command, left out)."""
    with open(os.path.join(REF, "%s-%s" % (board, what))) as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines[1:]


def ref_command(board, what):
    with open(os.path.join(REF, "%s-%s" % (board, what))) as f:
        return f.readline().rstrip("\n")[len("# $ "):]


def query_gpu(board):
    """(fields asked, header cells, value cells) of the capture's --query-gpu of every field."""
    cmd = ref_command(board, "query-gpu.csv")
    fields = cmd.split("--query-gpu=", 1)[1].split(" ")[0].split(",")
    lines = ref_lines(board, "query-gpu.csv")
    return fields, lines[0].split(", "), lines[1].split(", ")


def aliases():
    """alias -> field, from the '"a" or "b"' lines of --help-query-gpu (both boards)."""
    out = {}
    for board in BOARDS:
        for line in ref_lines(board, "help-query-gpu.txt"):
            names = re.findall(r'"([^"]+)"', line)
            if len(names) == 2 and re.match(r'^"[^"]+" or "[^"]+"$', line):
                out[names[1]] = names[0]
    return out


def headers():
    """field -> the header cell nvidia-smi prints for it (both boards)."""
    out = {}
    for board in BOARDS:
        fields, hdr, _ = query_gpu(board)
        for f, h in zip(fields, hdr):
            out.setdefault(f, h)
    return out


def values(board):
    fields, _, vals = query_gpu(board)
    return dict(zip(fields, vals))


UNITS = ("MiB", "W", "%", "MHz", "us", "KB/s", "ms", "MiB/s")


def shape(v):
    """A value's kind and unit: 'int[MiB]', 'fixed2[W]', 'hex18', 'enabled', 'NA', ..."""
    v = v.strip()
    if re.fullmatch(r"\[.*\]", v) or v in ("N/A", ""):
        return "NA"
    unit = ""
    m = re.fullmatch(r"(.*?) (%s)" % "|".join(re.escape(u) for u in UNITS), v)
    if m:
        v, unit = m.group(1), m.group(2)
    if re.fullmatch(r"-?\d+", v):
        k = "int"
    elif re.fullmatch(r"-?\d+\.\d\d", v):
        k = "fixed2"
    elif re.fullmatch(r"-?\d+\.\d", v):
        k = "fixed1"
    elif re.fullmatch(r"0x[0-9A-Fa-f]+", v):
        k = "hex%d" % len(v)
    elif re.fullmatch(r"\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d{3}", v):
        k = "timestamp"
    elif re.fullmatch(r"P\d+", v):
        k = "pstate"
    elif v in ("Active", "Not Active"):
        k = "active"
    elif v in ("Enabled", "Disabled"):
        k = "enabled"
    elif v in ("Yes", "No"):
        k = "yesno"
    elif re.fullmatch(r"GPU-[0-9a-f-]{36}", v):
        k = "uuid"
    else:
        k = "text"
    return k + ("[%s]" % unit if unit else "")


def strip_unit(header_cell):
    return re.sub(r" \[[^\]]+\]$", "", header_cell)


def q_paths(lines):
    """Each line of an nvidia-smi -q report as (section path, column of its ':' or None)."""
    out, stack = [], []
    for line in lines:
        if not line.strip() or line.startswith("="):
            continue
        indent = len(line) - len(line.lstrip(" "))
        if " : " in line or line.rstrip().endswith(" :"):
            key, col = line[:line.index(" :")].strip(), line.index(":")
        else:
            key, col = line.strip(), None
        if re.match(r"^GPU [0-9A-Fa-f]{8}:", key):
            key = "GPU"
        stack = stack[:indent // 4] + [key]
        out.append(("/".join(stack), col))
    return out
