#!/usr/bin/env bash
# test_top_keys.sh - top's navigation keys and the mouse, driven through tmux: Down, Up, PgDn, PgUp,
# Home and End move the process selection by 1, 10 and to either end (clamped there); F1 shows the
# help, F6 sorts by the next column, F10 quits; a mouse click (an X10 mouse report, what the
# terminal sends for a click once top asks for the mouse) selects the process on the clicked row
# and the GPU on the clicked line, a second click on it shows all GPUs again. Which process is
# selected is read back from the screen as the user sees it: the one process row drawn in reverse
# video (tmux capture-pane -e keeps the attributes).
. "$(dirname "$0")/top_lib.sh"

# 30 processes on GPU 0, memory decreasing with the pid: the default sort (GPU memory, largest first)
# lists them by pid, so the row r holds pid BASE + r.
BASE=3900100
N=30
{
  echo "seed: 29"
  echo "gpus:"
  echo "  - preset: h100-sxm"
  echo "    processes:"
  for r in $(seq 0 $((N - 1))); do
    echo "      - {pid: $((BASE + r)), name: worker$r, user: tester, type: C, memory_mib: $((9000 - r * 100)), sm: 5}"
  done
  echo "  - preset: h100-sxm"
} >"$WORK/keys.yaml"

# selected_pid: the pid of the process row drawn in reverse video (ESC [7m), "" when none is
selected_pid() {
  tmx capture-pane -e -p -t k | grep -a $'^\e\\[7m' | sed 's/\x1b\[[0-9;]*m//g' |
    awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {print $2; exit}'
}
# selected PID: waits until that process is the one selected
selected() {
  local end=$((SECONDS + WAIT_S)) got
  while got=$(selected_pid) && [ "$got" != "$1" ]; do
    [ "$SECONDS" -ge "$end" ] && fail "the selected process is pid '$got', not $1"
    sleep 0.05
  done
}

start k 120 40 --sim "$WORK/keys.yaml" top
wait_for k "PROCESSES $N  sort: GPU-MEM desc"
wait_for k " $BASE "
selected "$BASE"
# row: each key, then the row it must select (clamped to the first and the last)
for step in "Down 1" "Down 2" "Up 1" "PgDn 11" "PgDn 21" "PgUp 11" "End $((N - 1))" "Down $((N - 1))" \
            "PgDn $((N - 1))" "Home 0" "Up 0" "PgUp 0" "PgDn 10" "End $((N - 1))" "PgUp $((N - 11))"; do
  set -- $step
  keys k "$1"
  selected "$((BASE + $2))"
done
ok "Up, Down, PgUp, PgDn, Home and End select the process they should, clamped at both ends"

keys k F1
wait_for k "gpuwatch top - keys"
keys k x
wait_gone k "gpuwatch top - keys"
keys k F6
wait_for k "sort: SM% desc"                             # the column after GPU-MEM (docs/top.md)
keys k F6
wait_for k "sort: CPU% desc"
ok "F1 help, F6 next sort column"
keys k '<' '<'                                          # back to GPU-MEM: rows by pid again
wait_for k "sort: GPU-MEM desc"

# The mouse: top asked for it (mousemask); a click is ESC [ M, then 32 + button (0: the left one
# pressed, 3: released), 32 + column and 32 + row, both from 1. Sent as bytes (send-keys -H): as
# text, a coordinate that is ';' would end tmux's command.
click() {
  local x y
  x=$(printf %02x $(($1 + 33)))
  y=$(printf %02x $(($2 + 33)))
  keys k -H 1b 5b 4d 20 "$x" "$y"
  keys k -H 1b 5b 4d 23 "$x" "$y"
}
# row_of TEXT: the screen line (from 0) that holds TEXT
row_of() { screen k | grep -n -F -- "$1" | head -1 | cut -d: -f1 | awk '{print $1 - 1}'; }
keys k Home
selected "$BASE"
for r in 3 7 1; do
  y=$(row_of " $((BASE + r)) ")
  [ -n "$y" ] || fail "pid $((BASE + r)) is not on the screen"
  click 10 "$y"
  selected "$((BASE + r))"
done
ok "a click on a process row selects that process"
y=$(row_of " 1 H100 80GB HBM3 ")                       # GPU 1's panel
[ -n "$y" ] || fail "no panel of GPU 1 on the screen"
click 3 "$y"
wait_for k "on GPU 1"
wait_for k "no process matches"
click 3 "$y"
wait_gone k "on GPU 1"
wait_for k " $BASE "
ok "a click on a GPU selects it; a second click shows all GPUs again"

keys k F10
end=$((SECONDS + WAIT_S))
while [ ! -s "$WORK/k.rc" ] && [ "$SECONDS" -lt "$end" ]; do sleep 0.05; done
[ "$(cat "$WORK/k.rc" 2>/dev/null)" = 0 ] || fail "F10 did not quit with status 0 ($(cat "$WORK/k.rc" 2>/dev/null))"
grep -q "Sanitizer" "$WORK/k.err" && { cat "$WORK/k.err" >&2; fail "sanitizer report"; }
ok "F10 quits"
