#!/usr/bin/env bash
# test_top_slow.sh - a slow driver never freezes top: while a refresh takes ~5 s (gpusim delay
# fault), keys are answered at once, late data is marked STALE, and q still quits cleanly.
. "$(dirname "$0")/top_lib.sh"
start s 120 30 --sim "$SCEN/top_slow.yaml" top
wait_for s " H100 80GB HBM3 "
t0=$(date +%s%N)
keys s '?'
wait_for s "gpuwatch top - keys" 3
t1=$(date +%s%N)
[ $(( (t1 - t0) / 1000000 )) -lt 1500 ] || fail "help took $(( (t1 - t0) / 1000000 )) ms while the driver was slow"
keys s x
wait_for s "61%" 15
ok "keys answered during a 5 s refresh"
wait_for s "STALE" 15
ok "late data marked STALE"
quit s
