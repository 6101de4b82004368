#!/bin/sh
# Install the Debian packages utrace needs to build, test and benchmark.
# Idempotent: only missing packages are installed. Needs root (or sudo) for apt-get.
set -e
PKGS="build-essential gcc g++ clang llvm pkg-config make
libelf-dev libdw-dev libzstd-dev zlib1g-dev
libfuse3-dev fuse3 libcapstone-dev
libtraceevent-dev libtracefs-dev libtracecmd-dev trace-cmd
systemtap-sdt-dev
uftrace valgrind binutils file strace util-linux python3 dpkg-dev
linux-source iputils-ping"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || true
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
