#!/usr/bin/env bash
# Installs, with apt-get, the Debian packages gpuwatch needs to build, test and benchmark.
# Does nothing when they are all present. Usage: scripts/deps.sh [build|test|bench|fuzz]
# `test` is everything a test needs (CI runs with GW_REQUIRE_ALL=1: a test that skips for a missing
# tool fails); the default build builds the unit tests too, hence cmocka among the build packages.
set -eu
build_pkgs="gcc make cmake pkg-config libyaml-dev libcjson-dev libmicrohttpd-dev zlib1g-dev libsqlite3-dev
            libncurses-dev libcurl4-openssl-dev libcrypt-dev libgnutls28-dev libhwloc-dev libpcre2-dev libjs-chart.js
            clang-format libcmocka-dev libprotobuf-c-dev protobuf-c-compiler libsnappy-dev"
test_pkgs="tmux curl prometheus prometheus-alertmanager python3 openssl strace zsh man-db groff chromium procps
           util-linux victoria-metrics slurmctld slurmd slurm-client munge"
fuzz_pkgs="clang libclang-rt-14-dev"
bench_pkgs="wrk prometheus-node-exporter valgrind hyperfine"
# nvtop (the reference of bench_nvml_calls.sh) is in Debian's contrib, which a machine may not list:
# installed when it can be, left out otherwise (the benchmark then says so)
optional_bench_pkgs="nvtop"
want="$build_pkgs"
case "${1:-build}" in
  test) want="$build_pkgs $test_pkgs" ;;
  bench) want="$build_pkgs $test_pkgs $bench_pkgs" ;;
  fuzz) want="$build_pkgs $fuzz_pkgs" ;;
esac
if [ "${1:-build}" = bench ] && ! dpkg-query -W -f='${Status}' nvtop 2>/dev/null | grep -q "install ok installed"; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  lists=$(mktemp -d)
  # the Debian archive this machine already uses, its contrib component
  uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
  [ -n "$uri" ] || uri=$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
  suite=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
  echo "deb ${uri%% *} ${suite:-stable} contrib" > "$lists/sources.list"
  mkdir -p "$lists/state/partial"
  apt_contrib="-o Dir::Etc::sourcelist=$lists/sources.list -o Dir::Etc::sourceparts=- -o Dir::State::Lists=$lists/state"
  # shellcheck disable=SC2086
  { $SUDO apt-get $apt_contrib update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get $apt_contrib install -y -qq \
      --no-install-recommends $optional_bench_pkgs; } >/dev/null 2>&1 || echo "deps: nvtop not installed (optional)" >&2
  rm -rf "$lists"
fi
missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null || true
# --no-install-recommends keeps the image small; services from packages are not started by us.
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
