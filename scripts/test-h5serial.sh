#!/usr/bin/env bash
# A build with MPI and a serial HDF5 (HS_HDF5_PARALLEL=OFF takes libhdf5-dev's library although
# scripts/setup-debian.sh installs the parallel one too), in its own build directory (build-h5serial),
# CPU only: there a distributed run's output.format = "xdmf_h5" is written by rank 0 as every rank's
# rows stream to it (output/format_xdmf_h5.c, create_stream), the common set-up without
# libhdf5-openmpi-dev that the main build (parallel HDF5, written collectively) never takes. Builds
# heartsim and the tests of that path only, and runs them (about a minute): the series on 1, 2, 3 ranks
# (memory, file, faults), heartsim under mpirun (mpi_h5_stream, mpi_h5, mpi_box's box ranks, a restart
# across rank counts that ParaView opens where pvpython is: output_run_h5_maps_mpi), the part series of
# every format. .ci/run calls this after scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-h5serial -DHS_HDF5_PARALLEL=OFF -DHS_USE_HDF5=ON -DHS_USE_MPI=ON -DHS_USE_CUDA=OFF \
  -DCMAKE_BUILD_TYPE=Release -DHS_WERROR=ON > /dev/null
grep -q "define HS_HAS_HDF5_PARALLEL 0" build-h5serial/generated/hs_build_config.h &&
  grep -q "define HS_HAS_MPI 1" build-h5serial/generated/hs_build_config.h ||
  { echo "build-h5serial: not a build with MPI and a serial HDF5 (build-h5serial/generated/hs_build_config.h)"; exit 1; }
cmake --build build-h5serial -j"$(nproc)" --target heartsim h5_frames_close test_xdmf_h5_stream test_series_part
ctest --test-dir build-h5serial \
  -R '^(test_xdmf_h5_stream_np[123]|test_series_part_np[123]|mpi_h5_stream|mpi_h5|mpi_box|output_run_h5_maps_mpi)$' \
  --no-tests=error --output-on-failure
