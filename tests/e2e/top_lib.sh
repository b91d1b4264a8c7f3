# top_lib.sh - helpers for the tmux-driven tests of `gpuwatch top` (sourced, not a test itself).
# Each test gets a private tmux server (-L), a UTF-8 locale, its own preferences folder
# (XDG_CONFIG_HOME), and its sessions are killed on exit.
# Under ASan, quit() fails on any sanitizer report, leaks at exit included (top frees its windows).
set -u
: "${GPUWATCH:?GPUWATCH is set by ctest}"
: "${GW_SOURCE_DIR:?GW_SOURCE_DIR is set by ctest}"
export LANG=C.UTF-8 LC_ALL=C.UTF-8
SOCK="gwtest$$"
WORK=$(mktemp -d)
export GPUWATCH_HISTORY_DB="$WORK/history.db"   # an agent started here records into the test folder
export XDG_CONFIG_HOME="$WORK/config"           # top's preferences: this test's own, never the user's
export GPUWATCH_RUNTIME_DIR="${GPUWATCH_RUNTIME_DIR:-$WORK/runtime}" # an agent's state file, never the user's
SCEN="$GW_SOURCE_DIR/tests/scenarios"
tmx() { tmux -L "$SOCK" -f /dev/null "$@"; }
cleanup() { tmx kill-server 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; for s in $(tmx list-sessions -F '#S' 2>/dev/null); do echo "--- screen of $s:" >&2; tmx capture-pane -p -t "$s" >&2; done; exit 1; }
ok() { echo "ok - $*"; }

# start NAME WIDTH HEIGHT ARGS...: runs gpuwatch ARGS in a new session; its exit status and
# stderr land in $WORK/NAME.rc and $WORK/NAME.err when it ends. START_ENV="VAR=value ...": an
# environment for that command (the tmux server's own environment is that of the first session).
start() {
  local name=$1 w=$2 h=$3; shift 3
  local cmd="${START_ENV:+$START_ENV }$GPUWATCH"
  for a in "$@"; do cmd="$cmd $(printf '%q' "$a")"; done
  tmx new-session -d -s "$name" -x "$w" -y "$h" \
    "exec 2>$WORK/$name.err; $cmd; echo \$? > $WORK/$name.rc; sleep 600" \; set-option -s exit-empty off ||
    fail "tmux new-session $name"
  # (the server, started by the first session with the test's environment, stays up between sessions:
  # killing the last one would end it while the next new-session connects, "server exited unexpectedly")
}
screen() { tmx capture-pane -p -t "$1"; }
# wait_for NAME REGEX [SECONDS]: polls the screen until it matches (grep -E).
wait_for() {
  local name=$1 re=$2 limit=${3:-15} i=0
  while [ "$i" -lt $((limit * 20)) ]; do
    screen "$name" | grep -Eq -- "$re" && return 0
    sleep 0.05; i=$((i + 1))
  done
  fail "screen of $name never showed /$re/"
}
# wait_gone NAME REGEX [SECONDS]: polls until the screen no longer matches.
wait_gone() {
  local name=$1 re=$2 limit=${3:-15} i=0
  while [ "$i" -lt $((limit * 20)) ]; do
    screen "$name" | grep -Eq -- "$re" || return 0
    sleep 0.05; i=$((i + 1))
  done
  fail "screen of $name still shows /$re/"
}
keys() { tmx send-keys -t "$1" "${@:2}"; }
# quit NAME: presses q and checks gpuwatch exited with 0 and printed no error (ASan included).
quit() {
  keys "$1" q
  local i=0
  while [ ! -s "$WORK/$1.rc" ] && [ "$i" -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
  [ -s "$WORK/$1.rc" ] || fail "$1 did not exit on q"
  [ "$(cat "$WORK/$1.rc")" = 0 ] || { cat "$WORK/$1.err" >&2; fail "$1 exited with $(cat "$WORK/$1.rc")"; }
  if grep -q "Sanitizer" "$WORK/$1.err"; then cat "$WORK/$1.err" >&2; fail "$1: sanitizer report"; fi
  tmx kill-session -t "$1"
}
# Line of the screen that contains a text (first one).
line_of() { screen "$1" | grep -F -- "$2" | head -1; }
