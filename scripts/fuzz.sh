#!/usr/bin/env bash
# Runs each libFuzzer harness of BUILD/fuzz for SECONDS on its seeds (fuzz/corpus/NAME/ and the
# regression inputs of fuzz/regress/NAME/, read only:
# what it finds goes to BUILD/fuzz-corpus/NAME/), then prints one line per harness: executions, the
# corpus it ended with, and what it found (a crash, leak, timeout or out-of-memory input is saved
# under BUILD/fuzz-found/). Exit status 1 when any harness found something.
# Usage: scripts/fuzz.sh BUILD SECONDS [NAME...]   (make fuzz FUZZ_SECONDS=60 FUZZ="config rules")
set -u
build=$1; seconds=$2; shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
names="$*"
[ -z "$names" ] && names=$(cd "$build/fuzz" && ls fuzz_* | sed 's/^fuzz_//')
mkdir -p "$build/fuzz-found" "$build/fuzz-logs"
# Scratch files (the damaged history files written for every input) in memory where it can be.
scratch_root=/tmp; [ -d /dev/shm ] && [ -w /dev/shm ] && scratch_root=/dev/shm
TMPDIR=$(mktemp -d "$scratch_root/gw-fuzz.XXXXXX"); export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
found=0
summary=""
for n in $names; do
  bin="$build/fuzz/fuzz_$n"
  [ -x "$bin" ] || { echo "fuzz: no harness $n" >&2; found=1; continue; }
  work="$build/fuzz-corpus/$n"
  mkdir -p "$work" "$src/fuzz/corpus/$n"
  dict=(); [ -f "$src/fuzz/dict/$n.dict" ] && dict=(-dict="$src/fuzz/dict/$n.dict")
  # the inputs that broke it once (fuzz/regress/NAME/) are seeds too
  regress=(); [ -d "$src/fuzz/regress/$n" ] && regress=("$src/fuzz/regress/$n")
  log="$build/fuzz-logs/$n.log"
  echo "fuzz: $n for ${seconds}s" >&2
  # -timeout: an input that runs longer is a finding (a hang); -rss_limit_mb: one that needs more
  # memory is one too. One process: the machines have two cores, shared.
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-found/$n-" "${dict[@]}" "$work" "$src/fuzz/corpus/$n" "${regress[@]}" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  units=$(ls "$work" | wc -l)
  what="nothing"
  if [ $rc -ne 0 ]; then
    found=1
    what=$(grep -m1 -E 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|runtime error|Sanitizer' "$log" | cut -c1-120)
    [ -z "$what" ] && what="exit status $rc (see $log)"
  fi
  summary+=$(printf '%-16s %12s execs  %6s inputs  %s' "$n" "${execs:-?}" "$units" "$what")$'\n'
done
printf '\n%-16s %12s        %6s\n%s' harness executions corpus "$summary"
exit $found
