# top_lib.sh - helpers for the tmux-driven tests of `gpuwatch top` (sourced, not a test itself).
# Each test gets a private tmux server (-L), a UTF-8 locale, its own preferences folder
# (XDG_CONFIG_HOME), and its sessions are killed on exit.
# Under ASan, quit() fails on any sanitizer report, leaks at exit included (top frees its windows).
set -u
: "${GPUWATCH:?GPUWATCH is set by ctest}"
: "${GW_SOURCE_DIR:?GW_SOURCE_DIR is set by ctest}"
. "$(dirname "${BASH_SOURCE[0]}")/skiplib.sh"
need_command tmux tmux
export LANG=C.UTF-8 LC_ALL=C.UTF-8
SOCK="gwtest$$"
WORK=$(mktemp -d)
export GPUWATCH_HISTORY_DB="$WORK/history.db"   # the commands started here read the test folder's history
export XDG_CONFIG_HOME="$WORK/config"           # top's preferences: this test's own, never the user's
export GPUWATCH_RUNTIME_DIR="${GPUWATCH_RUNTIME_DIR:-$WORK/runtime}" # an agent's state file, never the user's
SCEN="$GW_SOURCE_DIR/tests/scenarios"
tmx() { tmux -L "$SOCK" -f /dev/null "$@"; }
cleanup() { tmx kill-server 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
# A session that lives as long as the test: killing a test's last session never ends the server
# (a new session started while it shuts down would go with it).
tmx new-session -d -s keepalive -x 20 -y 5 "sleep 86400" || { echo "FAIL: tmux new-session" >&2; exit 1; }
fail() { echo "FAIL: $*" >&2; for s in $(tmx list-sessions -F '#S' 2>/dev/null); do echo "--- screen of $s:" >&2; tmx capture-pane -p -t "$s" >&2; done; exit 1; }
ok() { echo "ok - $*"; }

# session NAME WIDTH HEIGHT COMMAND: a new session running the bash COMMAND in the test's
# environment as it is now (the tmux server's own is that of whoever started the server, and
# keepalive started it): the pane's environment is replaced by the test's exported variables, but
# the terminal's own (TERM, TMUX, TMUX_PANE).
session() {
  local name=$1 w=$2 h=$3 cmd=$4 script="$WORK/$1.sh"
  {
    echo 'for v in $(compgen -e); do case $v in TERM|TMUX|TMUX_PANE) ;; *) unset "$v" ;; esac; done'
    export -p | grep -v -E '^declare -x (TERM|TMUX|TMUX_PANE)='
    printf '%s\n' "$cmd"
  } >"$script"
  tmx new-session -d -s "$name" -x "$w" -y "$h" "exec bash --noprofile --norc $script" ||
    fail "tmux new-session $name"
}
# start NAME WIDTH HEIGHT ARGS...: runs gpuwatch ARGS in a new session; its exit status and
# stderr land in $WORK/NAME.rc and $WORK/NAME.err when it ends. START_ENV="VAR=value ...": more
# environment for that command.
start() {
  local name=$1 w=$2 h=$3; shift 3
  local cmd="${START_ENV:+$START_ENV }$GPUWATCH"
  for a in "$@"; do cmd="$cmd $(printf '%q' "$a")"; done
  session "$name" "$w" "$h" "exec 2>$WORK/$name.err; $cmd; echo \$? > $WORK/$name.rc; sleep 600"
}
screen() { tmx capture-pane -p -t "$1"; }
# Waits are for what the screen shows, bounded generously (60 s: a loaded machine, an ASan build);
# the bound is only reached when the test fails.
WAIT_S=${WAIT_S:-60}
# wait_for NAME REGEX [SECONDS]: polls the screen until it matches (grep -E).
wait_for() {
  local name=$1 re=$2 limit=${3:-$WAIT_S} text
  local end=$((SECONDS + limit))
  while :; do
    text=$(screen "$name") && grep -Eq -- "$re" <<<"$text" && return 0
    [ "$SECONDS" -ge "$end" ] && fail "screen of $name never showed /$re/ in ${limit} s$(no_screen "$name")"
    sleep 0.05
  done
}
# wait_gone NAME REGEX [SECONDS]: polls until a screen, captured, no longer matches (a screen that
# cannot be captured never passes: gpuwatch gone is no proof that the text went away).
wait_gone() {
  local name=$1 re=$2 limit=${3:-$WAIT_S} text
  local end=$((SECONDS + limit))
  while :; do
    text=$(screen "$name") && ! grep -Eq -- "$re" <<<"$text" && return 0
    [ "$SECONDS" -ge "$end" ] && fail "screen of $name still shows /$re/ after ${limit} s$(no_screen "$name")"
    sleep 0.05
  done
}
# no_screen NAME: why a screen could not be captured, if it cannot (for the failure message).
no_screen() { screen "$1" >/dev/null 2>&1 || echo " (no screen to capture: gpuwatch exited $(cat "$WORK/$1.rc" 2>/dev/null))"; }
# mark NAME: a key whose effect shows on the screen, pressed after others: once its effect shows,
# every key pressed before it has been handled (top reads keys in order). Used before checking that
# a key did nothing: pause (p) shows PAUSED; p again resumes.
mark() {
  keys "$1" p
  wait_for "$1" "PAUSED"
  keys "$1" p
  wait_gone "$1" "PAUSED"
}
keys() { tmx send-keys -t "$1" "${@:2}"; }
# quit NAME: presses q and checks gpuwatch exited with 0 and printed no error (ASan included).
quit() {
  keys "$1" q
  local end=$((SECONDS + WAIT_S))
  while [ ! -s "$WORK/$1.rc" ] && [ "$SECONDS" -lt "$end" ]; do sleep 0.05; done
  [ -s "$WORK/$1.rc" ] || fail "$1 did not exit on q"
  [ "$(cat "$WORK/$1.rc")" = 0 ] || { cat "$WORK/$1.err" >&2; fail "$1 exited with $(cat "$WORK/$1.rc")"; }
  if grep -q "Sanitizer" "$WORK/$1.err"; then cat "$WORK/$1.err" >&2; fail "$1: sanitizer report"; fi
  tmx kill-session -t "$1"
}
# Line of the screen that contains a text (first one).
line_of() { screen "$1" | grep -F -- "$2" | head -1; }
# expect_usage PATTERN ARGS...: `gpuwatch top ARGS` exits 2 with a line matching PATTERN on stderr.
expect_usage() {
  local re=$1 err rc
  shift
  err=$("$GPUWATCH" top "$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" = 2 ] || fail "top $* exited $rc, not 2: $err"
  grep -Eq -- "$re" <<<"$err" || fail "top $*: expected /$re/, got: $err"
}
# util_moves NAME HOST GPU: waits until the fleet screen's utilization of GPU of HOST changes.
util_moves() {
  local first
  util_of() { screen "$1" | grep -E "^$2 +$3 " | awk '{print $3}'; }
  first=$(util_of "$@")
  for _ in $(seq 600); do [ "$(util_of "$@")" != "$first" ] && return 0; sleep 0.05; done
  fail "GPU $3 of $2 stopped updating ($first)"
}
