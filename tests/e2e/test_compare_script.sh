#!/usr/bin/env bash
# test_compare_script.sh - scripts/compare-nvidia-smi.sh without a GPU: "nvidia-smi" is a stand-in.
# Against gpuwatch itself (on gpusim) every form has the same structure and the exit status is 0; a
# stand-in that prints the real H100 captures for the table and -q shows the table's structure equal
# to the real one and names -q's lines that only nvidia-smi prints; a stand-in whose -q lost a line
# is caught, with the line named.
set -u
SRC=${GW_SOURCE_DIR:-$(pwd)}
GW=${GPUWATCH:-build/gpuwatch}
GW="$(cd "$(dirname "$GW")" && pwd)/$(basename "$GW")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
export GPUSIM_SPEED=0 GPUSIM_SCENARIO="$SRC/tests/scenarios/nvsmi-compat.yaml"
export GPUWATCH_NVML_LIB="$(dirname "$GW")/gpusim/libnvidia-ml.so.1"

cat > "$work/same" <<EOS
#!/bin/sh
exec "$GW" "\$@" 2>/dev/null
EOS
chmod +x "$work/same"
NVIDIA_SMI="$work/same" bash "$SRC/scripts/compare-nvidia-smi.sh" "$GW" > "$work/out1" 2>&1
rc=$?
check '[ $rc -eq 0 ] && grep -q "0 of 32 forms differ" "$work/out1"' "the same program: every form the same ($(tail -1 "$work/out1"))"
check '[ "$(grep -c "same structure" "$work/out1")" -eq 32 ]' "32 forms compared"

# the real captures for the table and -q, gpuwatch for the rest
cat > "$work/captured" <<EOS
#!/bin/sh
case "\$*" in
  "") tail -n +2 "$SRC/tests/data/nvidia-smi/h100-590-table.txt" ;;
  "-q") tail -n +2 "$SRC/tests/data/nvidia-smi/h100-590-q.txt" ;;
  *) exec "$GW" "\$@" 2>/dev/null ;;
esac
EOS
chmod +x "$work/captured"
NVIDIA_SMI="$work/captured" bash "$SRC/scripts/compare-nvidia-smi.sh" "$GW" > "$work/out2" 2>&1
rc=$?
check '[ $rc -ge 1 ]' "the captures differ somewhere: a non-zero status"
check 'sed -n "/^== table$/,/^==/p" "$work/out2" | grep -q "same structure"' "the real table and gpuwatch's: the same structure"
check 'sed -n "/^== -q$/,/^==/p" "$work/out2" | grep -q "only nvidia-smi: line (path, .:. column) (.GPU/GPU PDI., 55)"' \
  "-q: a line only nvidia-smi prints is named (GPU PDI)"

# -q without its Temperature section's first line
cat > "$work/lossy" <<EOS
#!/bin/sh
if [ "\$*" = "-q" ]; then "$GW" -q 2>/dev/null | grep -v "GPU Current Temp"; else exec "$GW" "\$@" 2>/dev/null; fi
EOS
chmod +x "$work/lossy"
NVIDIA_SMI="$work/lossy" bash "$SRC/scripts/compare-nvidia-smi.sh" "$GW" > "$work/out3" 2>&1
rc=$?
check '[ $rc -eq 1 ] && grep -q "only gpuwatch:   line (path, .:. column) (.GPU/Temperature/GPU Current Temp., 55)" "$work/out3"' \
  "a line missing from nvidia-smi's -q is named, one form differs"
echo "test_compare_script: $pass passed, $fail failed"
[ $fail -eq 0 ]
