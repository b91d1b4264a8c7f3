#!/usr/bin/env bash
# test_top_prefs.sh - top's preferences ($XDG_CONFIG_HOME/gpuwatch/top.yaml): a session changes the
# sort, the layout and the interval with keys and quits; the file holds them, and a new session
# starts with them; an option on the command line wins for that run without being saved; a broken
# file gives one FILE:LINE:COL warning (stderr and the screen), top runs with the defaults and does
# not write over the file; --once reads the file too.
. "$(dirname "$0")/top_lib.sh"
PREFS="$XDG_CONFIG_HOME/gpuwatch/top.yaml"

start a 100 30 --sim "$SCEN/top_thermal.yaml" top
wait_for a "PROCESSES 2  sort: GPU-MEM desc"
[ -e "$PREFS" ] && fail "a preferences file written before any change"
keys a s                                                # GPU-MEM -> SM%
wait_for a "sort: SM% desc"
keys a r
wait_for a "sort: SM% asc"
keys a l l                                              # auto -> full -> compact
wait_for a "layout: compact"
wait_for a "^GPU NAME "                                 # the compact header line
keys a +
wait_for a "every 2s"
quit a
[ -s "$PREFS" ] || fail "no preferences file after the changes"
grep -qx "sort: sm%" "$PREFS" || fail "sort not saved: $(cat "$PREFS")"
grep -qx "sort_order: asc" "$PREFS" || fail "sort order not saved: $(cat "$PREFS")"
grep -Eq "^layout: compact( |$)" "$PREFS" || fail "layout not saved: $(cat "$PREFS")"
grep -qx "interval: 2s" "$PREFS" || fail "interval not saved: $(cat "$PREFS")"
ok "keys change sort, layout and interval; the file holds them"

start b 100 30 --sim "$SCEN/top_thermal.yaml" top
wait_for b "sort: SM% asc"
wait_for b "^GPU NAME "
wait_for b "every 2s"
quit b
ok "a new session starts with them"

saved=$(cat "$PREFS")
start c 100 30 --sim "$SCEN/top_thermal.yaml" top --layout full -d 1
wait_for c "TEMP 92°C"                                  # a full panel's figures line
wait_for c "every 1s"
wait_for c "sort: SM% asc"
keys c '?'
wait_for c "gpuwatch top - keys"
keys c x
quit c
[ "$(cat "$PREFS")" = "$saved" ] || fail "options of one run were saved: $(cat "$PREFS")"
# A key that changes another preference saves that one only, not the options' layout and interval
# (nor NO_COLOR's colours).
START_ENV="NO_COLOR=1" start c2 100 30 --sim "$SCEN/top_thermal.yaml" top --layout full -d 1
wait_for c2 "TEMP 92°C"
keys c2 s                                               # SM% -> CPU%
wait_for c2 "sort: CPU% asc"
quit c2
grep -qx "sort: cpu%" "$PREFS" || fail "the key's sort not saved: $(cat "$PREFS")"
grep -Eq "^layout: compact( |$)" "$PREFS" || fail "--layout full was saved: $(cat "$PREFS")"
grep -qx "interval: 2s" "$PREFS" || fail "-d 1 was saved: $(cat "$PREFS")"
grep -qx "color: true" "$PREFS" || fail "NO_COLOR was saved: $(cat "$PREFS")"
ok "options win for one run and are not saved, even when a key saves another preference"

printf 'layout: compact\nsort: size\ncharts: off\n' > "$PREFS"
start d 100 30 --sim "$SCEN/top_thermal.yaml" top
wait_for d "top.yaml:2:7: sort: expected gpu, pid, user"
wait_for d "PROCESSES 2  sort: GPU-MEM desc"             # the defaults: sort ...
wait_for d "TEMP 92°C"                                  # ... and the auto layout's full panels
keys d s
wait_for d "preferences not saved: the file has problems"
quit d
grep -q "^gpuwatch top: warning: $PREFS:2:7: sort: expected gpu, pid, user, container, gpu-mem, sm%, cpu%, host-mem, time or command, got 'size'" \
  "$WORK/d.err" || fail "no located warning on stderr: $(cat "$WORK/d.err")"
[ "$(grep -c . "$WORK/d.err")" = 1 ] || fail "more than one warning: $(cat "$WORK/d.err")"
grep -qx "sort: size" "$PREFS" || fail "top wrote over a file with problems"
ok "a broken file: one located warning, the defaults, and the file kept"

err=$("$GPUWATCH" --sim "$SCEN/top_thermal.yaml" top --once 2>&1 >/dev/null)
echo "$err" | grep -q "top.yaml:2:7: sort:" || fail "--once: no warning: $err"
printf 'temp_warn: 95\ntemp_crit: 100\n' > "$PREFS"
"$GPUWATCH" --sim "$SCEN/top_thermal.yaml" top --once | grep -Eq " 92°C +97°C" || fail "--once: the file's thresholds"
"$GPUWATCH" --sim "$SCEN/top_thermal.yaml" top --once --temp-warn 80 --temp-crit 90 | grep -q " 92°C!!" ||
  fail "--once: the options' thresholds"
ok "--once reads the file; options win"

# top.yaml that is not a regular file: a link to a character device ("don't save"; a device node of
# the test's own, not /dev/null), or a FIFO (reading it would block). top starts with the defaults,
# says once that preferences are not saved, and leaves the node a node.
if [ "$(id -u)" = 0 ]; then
  mknod "$WORK/null" c 1 3 || fail "mknod"
  node_test="-c"
else
  mkfifo "$WORK/null" || fail "mkfifo"
  node_test="-p"
fi
rm -f "$PREFS"
ln -s "$WORK/null" "$PREFS"
start e 100 30 --sim "$SCEN/top_thermal.yaml" top
wait_for e "PROCESSES 2  sort: GPU-MEM desc"
keys e s
wait_for e "preferences not saved: .*top.yaml is not a regular file"
keys e s
wait_for e "sort: CPU% desc"
quit e
[ -L "$PREFS" ] || fail "the link top.yaml was replaced"
[ "$node_test" "$WORK/null" ] || fail "the device behind top.yaml was replaced by a file"
rm -f "$PREFS"
mkfifo "$PREFS"
timeout 20 "$GPUWATCH" --sim "$SCEN/top_thermal.yaml" top --once >/dev/null 2>&1 ||
  fail "--once with a FIFO as top.yaml: exit $? (blocked reading it?)"
[ -p "$PREFS" ] || fail "the FIFO top.yaml was replaced"
rm -f "$PREFS"
ok "top.yaml as a link to a device or as a FIFO: defaults, not saved, said once, the node kept"
