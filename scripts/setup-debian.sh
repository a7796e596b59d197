#!/usr/bin/env bash
# Install what heartsim needs on Debian/Ubuntu (run as root). With --tests also ParaView, whose
# pvpython the output test uses to open the frames exactly as a user would. libhdf5-dev (serial
# HDF5) is optional for the build (output.format = "xdmf_h5"; without it that format is refused)
# and installed in both sets, so a fresh machine builds and tests every format; libhdf5-openmpi-dev
# (parallel HDF5, beside the serial one) lets a build with MPI write "xdmf_h5" collectively from
# every rank (without it a distributed run gathers each frame to rank 0). Likewise MPI
# (libopenmpi-dev, openmpi-bin: the distributed layer in parallel/), METIS (libmetis-dev:
# parallel.partition = "metis") and PT-Scotch (libptscotch-dev, which brings libscotch-dev:
# parallel.partition = "ptscotch") are optional for the build and installed so CI tests them.
set -euo pipefail
pkgs="cmake make gcc g++ pkg-config libconfig-dev libtet1.5-dev libhdf5-dev libhdf5-openmpi-dev libexpat1-dev zlib1g-dev libopenmpi-dev openmpi-bin libmetis-dev libptscotch-dev"
if [ "${1:-}" = "--tests" ]; then pkgs="$pkgs paraview python3-paraview"; fi
export DEBIAN_FRONTEND=noninteractive
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing
fi
echo "setup: all of [$pkgs] installed"
# With --tests or --cellml: the CellML generator's dependencies (scripts/cellml/, docs/models.md).
# myokit from PyPI at a pinned version (it is named in every generated header, so the regeneration
# test, tests/fem/models/test_cellml_regen.sh, compares like with like); python3-dev and
# libsundials-dev let myokit's Simulation (CVODES) compile, which the 0D verification uses
# (test_cellml_0d, scripts/cellml/verify_0d.py). Debian's python is externally managed (PEP 668).
case " $* " in
*" --tests "* | *" --cellml "*)
  py="python3 python3-pip python3-dev libsundials-dev"
  missing=""
  for p in $py; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
  if [ -n "$missing" ]; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $missing
  fi
  if ! python3 -c 'import myokit, sys; sys.exit(myokit.__version__ != "1.39.2")' 2>/dev/null; then
    python3 -m pip install -q myokit==1.39.2 2>/dev/null ||
      python3 -m pip install -q --break-system-packages myokit==1.39.2 ||
      echo "setup: warning: myokit 1.39.2 could not be installed from PyPI (no network?): the CellML" \
           "generator's tests (test_cellml_regen, test_cellml_0d, test_cellml_refusals) will skip"
  fi
  if python3 -c 'import myokit' 2>/dev/null; then
    echo "setup: myokit $(python3 -c 'import myokit; print(myokit.__version__)') and CVODES (libsundials-dev) installed"
  fi
  ;;
esac
