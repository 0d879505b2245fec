#!/usr/bin/env bash
# Installs every Debian package hetrace needs to build, test and benchmark.
# Idempotent: packages already present are not fetched again, and
# `apt-get update` only runs when something is missing.
set -euo pipefail

pkgs=(
	build-essential cmake pkg-config python3
	ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-headers opencl-c-headers pocl-opencl-icd clinfo
	python3-pyopencl
	clpeak hashcat libclblast-dev # third-party OpenCL programs the tests trace
	babeltrace2 python3-bt2
	lttng-tools liblttng-ust-dev
	libotf2-trace-dev otf2-tools
	openmpi-bin libopenmpi-dev util-linux python3-mpi4py python3-numpy
	protobuf-compiler
	libclang-14-dev clang-14
	libdw-dev libelf-dev
	libcapstone-dev
	chromium
	libsqlite3-dev sqlite3
)

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ "${#missing[@]}" -eq 0 ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "hetrace: missing packages: ${missing[*]}; run 'make deps' as root or install them" >&2
	exit 1
fi

echo "hetrace: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
