#!/usr/bin/env bash
# The CPU test suite of a build without MPI (HS_USE_MPI=OFF, CPU only) in its own build directory
# (build-nompi): issue 26 keeps a serial build without MPI building and passing, and the code behind
# `#if HS_HAS_MPI` makes that easy to break unseen. .ci/run calls this after scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-nompi -DHS_USE_MPI=OFF -DHS_USE_CUDA=OFF -DCMAKE_BUILD_TYPE=Release -DHS_WERROR=ON > /dev/null
cmake --build build-nompi -j"$(nproc)"
grep -q "define HS_HAS_MPI 0" build-nompi/generated/hs_build_config.h ||
  { echo "build-nompi: not a build without MPI (build-nompi/generated/hs_build_config.h)"; exit 1; }
ctest --test-dir build-nompi -L cpu --output-on-failure -j"$(nproc)"
