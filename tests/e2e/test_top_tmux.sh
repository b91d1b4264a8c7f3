#!/usr/bin/env bash
# test_top_tmux.sh - `gpuwatch top` driven through tmux on gpusim: GPU names and constant values,
# thresholds, throttle words, a lost GPU, the process list, sort, filter, help, GPU selection,
# layout switch on resize and with `l`, Ctrl-L and a resume, 16 GPUs on 80x24, NO_COLOR and
# TERM=vt100.
. "$(dirname "$0")/top_lib.sh"

# --- the main screen at 120x40 ---
start main 120 40 --sim "$SCEN/top_thermal.yaml" top
wait_for main " H100 80GB HBM3 "
wait_for main "SIMULATED GPUs"
wait_for main "73%"                                   # utilization.gpu constant
wait_for main "40.0 GiB/80.0 GiB"                     # memory.used / memory_total_mib
wait_for main "700/700 W"                             # power draw / cap
wait_for main "92°C"                                  # core temperature
wait_for main "SM 1455 MHz"
wait_for main "throttle: sw power cap, sw thermal slowdown"
ok "names, values and throttle words"
wait_for main "A100-SXM4-40GB"
wait_for main "LOST" 20                               # GPU 1 is lost from 2 s on
ok "lost GPU marked"
l=$(line_of main "A100-SXM4")
echo "$l" | grep -q "LOST" || fail "LOST is not on GPU 1's line: $l"
# The RTX 4080 has no HBM: N/A, never 0.
wait_for main "HBM N/A"
# Processes: the scenario's parent pid and a container pid not visible here.
wait_for main "ghost-infer"
wait_for main "3999999"
wait_for main "PROCESSES 2"
ok "process list"
# Alerts panel: the default rules evaluated on top's own samples (92 C core, 97 C HBM, GPU 1 lost).
wait_for main "pending CRIT GPUTemperatureCritical \(would fire in [0-9]+s\): GPU 0"
wait_for main "GPUMemoryTemperatureWarning"
wait_for main "^CRIT GPULost: GPU 1"
ok "alerts panel"
# Charts with an x axis in seconds.
wait_for main "-[0-9]+s"
wait_for main "util"

# Chart modes: all GPUs (one small chart each), then off.
keys main c
wait_for main "charts: all GPUs"
wait_for main "GPU 2 (⣿|\*) util 25%"
keys main c
wait_for main "charts: off"
wait_gone main "GPU 0 ⣿ util"
keys main c
wait_for main "GPU 0 ⣿ util 73% \(0-100\)"
ok "chart modes"

# Sort by PID ascending: the parent pid (small) comes before 3999999; then descending.
keys main '<' '<' '<'                                 # GPU-MEM -> CONTAINER -> USER -> PID
wait_for main "PID▼"
keys main r
wait_for main "PID▲"
first=$(screen main | grep -nE "^ +[0-9]+ +[0-9]+ " | head -1)
echo "$first" | grep -q "3999999" && fail "ascending pid sort put 3999999 first: $first"
keys main r
wait_for main "PID▼"
first=$(screen main | grep -E "^ +[0-9]+ +[0-9]+ " | head -1)
echo "$first" | grep -q "3999999" || fail "descending pid sort did not put 3999999 first: $first"
ok "sort"

# Filter by text: only the ghost-infer process stays.
keys main / g h o s t Enter
wait_for main "PROCESSES 1 of 2"
wait_for main "filter: ghost"
screen main | grep -q "trainer" && fail "filter kept trainer"
keys main / Escape
wait_for main "PROCESSES 2"
ok "filter"

# Pause freezes the screen (the clock stops), resume brings fresh data back. After more than an
# interval, the help screen and back make top draw everything again: a clock that went on would
# show there, however slow the machine.
keys main p
wait_for main "PAUSED"
frozen=$(screen main | head -1)
sleep 1.2                                             # longer than the interval
keys main '?'
wait_for main "gpuwatch top - keys"
keys main x
wait_gone main "gpuwatch top - keys"
wait_for main "PAUSED"
[ "$(screen main | head -1)" = "$frozen" ] || fail "the header changed while paused"
keys main p
wait_gone main "PAUSED"
wait_for main "73%"
ok "pause and resume"

# Help screen and back.
keys main '?'
wait_for main "gpuwatch top - keys"
wait_for main "SIGKILL"
keys main x
wait_gone main "gpuwatch top - keys"
wait_for main "PROCESSES"
ok "help"

# Select GPU 2: the process table is limited to it (no processes there).
keys main 2
wait_for main "on GPU 2"
wait_for main "no process matches"
keys main a
wait_gone main "on GPU 2"
ok "GPU selection"

# Resize to 80x24: three GPUs still fit in full panels; force compact with l (auto -> full -> compact).
tmx resize-window -t main -x 80 -y 24
wait_for main "00000000:18:00.0"                     # three-line panels show the bus id
screen main | grep -Eq "GPU +NAME +UTIL" && fail "compact header with 3 GPUs at 80x24"
keys main l l
wait_for main "layout: compact"
wait_for main "GPU +NAME +UTIL"
keys main l
wait_for main "layout: auto"
wait_gone main "GPU +NAME +UTIL"
ok "layout key"

# Ctrl-L, and a resume after a stop, send the whole screen again, the rows that do not change
# included. The screen is wiped from outside (a clear written to the pane's terminal) first.
gw=$(pgrep -P "$(tmx list-panes -t main -F '#{pane_pid}')" -f gpuwatch | head -1)
tty=$(tmx display -p -t main '#{pane_tty}')
[ -n "$gw" ] && [ -w "$tty" ] || fail "no gpuwatch process or terminal under the pane"
wait_for main "PROCESSES 2  sort:"
printf '\033[H\033[2J' > "$tty"
wait_gone main "PROCESSES 2  sort:"
keys main C-l                                          # only a whole redraw brings the line back
wait_for main "PROCESSES 2  sort:"
kill -STOP "$gw"
printf '\033[H\033[2J' > "$tty"
wait_gone main "PROCESSES 2  sort:"
kill -CONT "$gw"
wait_for main "PROCESSES 2  sort:"
wait_for main "^ 2 GeForce RTX 4080 SUPER"
ok "Ctrl-L and a resume redraw the whole screen"
quit main

# --- 16 GPUs on 80x24: compact layout, all sixteen visible ---
start g16 80 24 --sim "$SCEN/top_16gpu.yaml" top
wait_for g16 "GPU +NAME +UTIL"
wait_for g16 "^15 "
n=$(screen g16 | grep -cE "^ ?[0-9]{1,2}  H100")
[ "$n" -eq 16 ] || fail "expected 16 GPU lines on 80x24, saw $n"
ok "16 GPUs on 80x24"
# Grow the window: the layout switches to full panels (two lines per GPU at 160 columns).
tmx resize-window -t g16 -x 160 -y 60
wait_gone g16 "GPU +NAME +UTIL"
wait_for g16 "GPU ▕"
ok "resize switches layout"
quit g16

# --- NO_COLOR and TERM=vt100: start and render in ASCII ---
session vt 100 30 "exec 2>$WORK/vt.err; NO_COLOR=1 TERM=vt100 $GPUWATCH --sim $SCEN/top_thermal.yaml top; echo \$? > $WORK/vt.rc; sleep 600"
wait_for vt " H100 80GB HBM3 "
wait_for vt "92C"
wait_for vt "GPU \[\|+"
screen vt | grep -q "°" && fail "vt100 screen has non-ASCII degrees"
ok "NO_COLOR + TERM=vt100 render in ASCII"
quit vt
echo "all top tmux checks passed"
