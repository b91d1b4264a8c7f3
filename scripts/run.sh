#!/usr/bin/env bash
# `make run`: runs gpuwatch on this machine's GPUs, or, where no NVIDIA driver can be loaded,
# on gpusim's simulated 8-GPU demo scenario (said in one line, and shown as SIMULATED GPUs).
# Usage: scripts/run.sh BUILD_DIR [gpuwatch command and options...]   (default command: top)
set -u
build=${1:-build}; shift || true
gw="$build/gpuwatch"
[ $# -gt 0 ] || set -- top
probe=$("$gw" list 2>&1 >/dev/null)
rc=$?
[ "$rc" -eq 0 ] && exec "$gw" "$@"
if [ "$rc" -ne 3 ]; then
  echo "$probe" >&2
  exit "$rc"
fi
echo "gpuwatch: no NVIDIA driver here (${probe#gpuwatch: }); running on the simulated 8-GPU demo scenario (gpusim)." >&2
if [ "$1" = top ] && [ ! -t 1 ]; then
  # Not on a terminal: top prints one snapshot; a short dmon shows the stream as well.
  "$gw" --sim demo-8gpu top --once
  exec "$gw" --sim demo-8gpu dmon -c 5
fi
exec "$gw" --sim demo-8gpu "$@"
