#!/usr/bin/env bash
# Install what heartsim needs on Debian/Ubuntu (run as root). With --tests also ParaView, whose
# pvpython the output test uses to open the frames exactly as a user would. libhdf5-dev (serial
# HDF5) is optional for the build (output.format = "xdmf_h5"; without it that format is refused)
# and installed in both sets, so a fresh machine builds and tests every format; libhdf5-openmpi-dev
# (parallel HDF5, beside the serial one) lets a build with MPI write "xdmf_h5" collectively from
# every rank (without it a distributed run gathers each frame to rank 0). Likewise MPI
# (libopenmpi-dev, openmpi-bin: the distributed layer in parallel/) and METIS (libmetis-dev:
# parallel.partition = "metis") are optional for the build and installed so CI tests them.
set -euo pipefail
pkgs="cmake make gcc g++ pkg-config libconfig-dev libtet1.5-dev libhdf5-dev libhdf5-openmpi-dev libexpat1-dev zlib1g-dev libopenmpi-dev openmpi-bin libmetis-dev"
if [ "${1:-}" = "--tests" ]; then pkgs="$pkgs paraview python3-paraview"; fi
export DEBIAN_FRONTEND=noninteractive
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing
fi
echo "setup: all of [$pkgs] installed"
