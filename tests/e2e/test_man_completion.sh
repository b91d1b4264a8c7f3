#!/usr/bin/env bash
# test_man_completion.sh - the manual pages render without warnings and cover every command and
# nvidia-smi option the program has; the bash and zsh completions complete commands, options, field
# lists (after commas too), scenarios, -q sections, formats and subcommands from what the program
# itself lists (gpuwatch --complete, --help), for both spellings of option values.
set -u
. "$(dirname "$0")/skiplib.sh"
GW=${GPUWATCH:?GPUWATCH not set}
SRC=${GW_SOURCE_DIR:?GW_SOURCE_DIR not set}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }

# --- man pages: man -l where man is installed, else groff; the coverage checks on the rendered text ---
render() { # page -> text on stdout, warnings on stderr
  if command -v man >/dev/null 2>&1; then
    LC_ALL=C.UTF-8 MANWIDTH=100 man --warnings -l "$1"
  else
    groff -man -Tutf8 -ww "$1"
  fi
}
if command -v man >/dev/null 2>&1 || command -v groff >/dev/null 2>&1; then
  for page in gpuwatch gpusim; do
    f=$SRC/man/$page.1
    if command -v groff >/dev/null 2>&1; then
      groff -man -Tutf8 -ww -z "$f" 2>"$TMP/groff.err"
      check '[ $? -eq 0 ] && [ ! -s "$TMP/groff.err" ]' "$page.1: groff without warnings: $(head -3 "$TMP/groff.err")"
    fi
    render "$f" >"$TMP/$page.txt" 2>"$TMP/man.err"
    check '[ $? -eq 0 ] && [ ! -s "$TMP/man.err" ]' "$page.1: renders without warnings: $(head -3 "$TMP/man.err")"
    for sec in NAME SYNOPSIS DESCRIPTION "SEE ALSO"; do
      check 'grep -q "^$sec" "$TMP/$page.txt"' "$page.1 has a $sec section"
    done
  done
  check 'head -1 "$TMP/gpuwatch.txt" | grep -q "^GPUWATCH(1)"' "gpuwatch.1 title line"
  # every command has its subsection; every -d section and nvidia-smi option of --help is described
  for c in $("$GW" --complete commands); do
    [ "$c" = help ] && continue
    check 'grep -q "^\.SS \"*$c\b" "$SRC/man/gpuwatch.1"' "gpuwatch.1 has a section for '$c'"
  done
  for s in $("$GW" --complete sections); do
    check 'grep -q "$s" "$TMP/gpuwatch.txt"' "gpuwatch.1 names the -d section $s"
  done
  for o in $("$GW" --help | sed -n '/nvidia-smi.s options/,$p' | grep -oE -- '--?[a-z][-a-z]*' | sort -u); do
    check 'grep -qF -- "$o" "$TMP/gpuwatch.txt"' "gpuwatch.1 describes the nvidia-smi option $o"
  done
else
  skip_part "neither man nor groff is installed (Debian packages man-db, groff): the manual pages" || bad "man"
fi

# --- bash ---
bash_complete() { # words... -> the completions, one a line
  bash -c 'source "$1/completions/gpuwatch.bash"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1));
           _gpuwatch; printf "%s\n" "${COMPREPLY[@]}"' _ "$SRC" "$GW" "$@"
}
fields=$("$GW" --complete fields)
check '[ "$(bash_complete qu)" = query ]' "bash: a command: $(bash_complete qu | tr '\n' ' ')"
check '[ "$(bash_complete "" | sort)" = "$("$GW" --complete commands | sort)" ]' "bash: every command"
check '[ "$(bash_complete --sim demo)" = demo-8gpu ]' "bash: --sim scenario"
check '[ "$(bash_complete --sim demo-8gpu que)" = query ]' "bash: command after --sim"
want=$(printf "%s\n" $fields | grep "^temperature\.g" | sort)
check '[ "$(bash_complete query --fields temperature.g | sort)" = "$want" ]' "bash: --fields FIELD: $(bash_complete query --fields temperature.g | tr '\n' ' ')"
check '[ "$(bash_complete query --fields index,temperature.g | sort)" = "$(printf "index,%s\n" $want)" ]' "bash: a field after a comma"
check '[ "$(bash_complete --query-gpu = memory.us)" = memory.used ]' "bash: --query-gpu=FIELD (bash splits at =)"
check '[ "$(bash_complete --query-gpu = | wc -l)" -eq "$(printf "%s\n" $fields | wc -l)" ]' "bash: every field after --query-gpu="
check '[ "$(bash_complete --query-compute-apps = pid,used_ | sort)" = "$(printf "pid,used_gpu_memory\npid,used_memory")" ]' \
  "bash: compute-app fields"
check '[ "$(bash_complete -q -d = MEMORY,TEMP)" = MEMORY,TEMPERATURE ]' "bash: -q -d sections"
check '[ "$(bash_complete dmon --format j)" = json ]' "bash: dmon formats"
check 'bash_complete query --format "" | grep -qx "csv,noheader,nounits"' "bash: nvidia-smi's format spelling"
check '[ "$(bash_complete query --fi | sort | tr "\n" " ")" = "--fields --filename " ]' "bash: query's options from its --help"
check 'bash_complete --qu | grep -qx -- --query-gpu' "bash: nvidia-smi's options at the top"
check '[ "$(bash_complete top --la)" = --layout ]' "bash: a module command's options (top)"
check '[ "$(bash_complete rules "" | tr "\n" " ")" = "check test " ]' "bash: subcommands from the usage"

# --- zsh (where installed): the completion function against stubs of compadd/compset ---
if command -v zsh >/dev/null 2>&1; then
  check 'zsh -n "$SRC/completions/_gpuwatch"' "zsh: _gpuwatch parses"
  cat >"$TMP/stubs.zsh" <<'ZSH'
compset() { [[ $1 == -P ]] || return 1; local pat=$2 m; [[ $PREFIX == ${~pat}* ]] || return 1
  m=${(M)PREFIX##${~pat}}; IPREFIX+=$m; PREFIX=${PREFIX#$m} }
compadd() { local -a arr; while (( $# )); do case $1 in -a) arr+=(${(P)2}); shift 2;; -S|-P|-J|-X) shift 2;; -q) shift;;
  *) arr+=($1); shift;; esac; done; local a; for a in $arr; do [[ $a == ${PREFIX}* ]] && print -r -- "$IPREFIX$a"; done }
_files() { : }
source "$1/completions/_gpuwatch" 2>/dev/null
shift; words=("$@"); CURRENT=$#; PREFIX=${words[CURRENT]}; IPREFIX=; _gpuwatch
ZSH
  zsh_complete() { zsh -f "$TMP/stubs.zsh" "$SRC" "$GW" "$@"; }
  check '[ "$(zsh_complete qu)" = query ]' "zsh: a command"
  check '[ "$(zsh_complete query --fields index,temperature.g | sort)" = "$(printf "index,%s\n" $want)" ]' "zsh: a field after a comma"
  check '[ "$(zsh_complete --query-gpu=memory.us)" = --query-gpu=memory.used ]' "zsh: --query-gpu=FIELD: $(zsh_complete --query-gpu=memory.us)"
  check '[ "$(zsh_complete -q -d MEMORY,TEMP)" = MEMORY,TEMPERATURE ]' "zsh: -q -d sections"
  check '[ "$(zsh_complete --sim demo)" = demo-8gpu ]' "zsh: --sim scenario"
  check '[ "$(zsh_complete rules "" | tr "\n" " ")" = "check test " ]' "zsh: subcommands"
else
  skip_part "zsh is not installed (Debian package zsh): the zsh completion" || bad "zsh"
fi

echo "test_man_completion: $pass passed, $fail failed"
skip_exit "$fail"
