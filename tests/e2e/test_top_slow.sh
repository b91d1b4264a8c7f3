#!/usr/bin/env bash
# test_top_slow.sh - a slow driver never freezes top: while the first refresh hangs (until scenario
# time 10 s: gpusim hang fault), a key is answered, and it is answered while that refresh is still
# going on (no data on the screen yet: a UI that waited for the refresh would show the help only
# with the data); then, with every refresh taking ~5 s (delay fault), late data is marked STALE,
# and q still quits cleanly.
. "$(dirname "$0")/top_lib.sh"
start s 120 30 --sim "$SCEN/top_slow.yaml" top
wait_for s " H100 80GB HBM3 "
keys s '?'
wait_for s "gpuwatch top - keys"
keys s x
wait_gone s "gpuwatch top - keys"
screen s | grep -q "61%" && fail "the help came only after the hung refresh (the screen has its data)"
ok "keys answered during a hung refresh"
wait_for s "61%"
ok "the data once the refresh ends"
wait_for s "STALE"
ok "late data marked STALE"
quit s
