#!/usr/bin/env bash
# The CPU test suite once more under AddressSanitizer + UndefinedBehaviorSanitizer (issue 7), in its
# own build directory (build-asan, CPU only). Any report fails the run: UBSan aborts on the first
# finding (-fno-sanitize-recover=all, halt_on_error=1), ASan aborts on memory errors, and LeakSanitizer
# makes a leaking test exit non-zero. .ci/run calls this after scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -DHS_USE_CUDA=OFF -DHS_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHS_WERROR=ON > /dev/null
cmake --build build-asan -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# libconfig 1.5's own leak on some syntax errors (upstream bug; see the file).
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0
# test_wave_speed is left out: it runs ~80 s normally and more than 4 minutes under ASan+UBSan
# (killed at 4 min here), and what it exercises on the CPU (assembly, the Newton step, CG, the SpMV
# kernels, output) runs under the sanitizers in test_assembly, test_newton, test_cg,
# test_kernel_choice and cli_end_to_end. It still runs in the normal pass (scripts/test.sh).
ctest --test-dir build-asan -L cpu -LE mpi -E '^test_wave_speed$' --output-on-failure -j"$(nproc)"
# The MPI tests (label mpi, when the build has MPI) with the memory-error checks but without
# LeakSanitizer: Open MPI's own plugins leak at exit and are unloaded (dlclose) before the leak check,
# so their allocations cannot be attributed or suppressed by library name.
if ctest --test-dir build-asan -L mpi -N | grep -q "Total Tests: [1-9]"; then
  ASAN_OPTIONS="${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0}" \
    ctest --test-dir build-asan -L mpi --output-on-failure -j"$(nproc)"
fi
