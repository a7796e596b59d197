#!/usr/bin/env bash
# The README's test command: set up (Debian, as root), build (CUDA backend too when nvcc is present)
# and run every CPU test. GPU tests show as skipped on a machine without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh --tests
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DHS_WERROR=ON
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
