#!/bin/bash
# ParaView reads our series: write one with the C helper into a temporary directory, then check it
# with pvpython (no display needed: nothing is rendered, and Qt is told to run offscreen).
# usage: pvpython_check.sh WRITE_SERIES_EXE CHECK_PY [FORMAT [PREFIX]]   (defaults: vtk, heart)
# Exit 77 (ctest: skipped) when pvpython is absent, or the build lacks FORMAT (xdmf_h5 without HDF5). PVPYTHON overrides the interpreter.
set -u
if [ $# -lt 2 ] || [ $# -gt 4 ]; then
    echo "usage: $0 WRITE_SERIES_EXE CHECK_PY [FORMAT [PREFIX]]" >&2
    exit 2
fi
write_series=$1
check_py=$2
format=${3:-vtk}
prefix=${4:-heart}
case $format in
    vtk) index=$prefix.vtk.series ;;
    xdmf|xdmf_h5) index=$prefix.xdmf ;;
    *) echo "pvpython_check: unknown format $format" >&2; exit 2 ;;
esac

pvpython=${PVPYTHON:-$(command -v pvpython || true)}
if [ -z "$pvpython" ]; then
    # Debian's paraview package only recommends python3-paraview, which holds pvpython.
    echo "pvpython not found: install Debian's paraview package (with python3-paraview) to run this test"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hs_pvpython_XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

"$write_series" "$tmp" "$format" "$prefix"
rc=$?
[ $rc -eq 77 ] && exit 77 # a format this build does not have (xdmf_h5 without HDF5): skipped
[ $rc -eq 0 ] || { echo "pvpython_check: $write_series $tmp $format failed" >&2; exit 1; }

# QT_QPA_PLATFORM=offscreen: harmless when a display exists, and keeps Qt from looking for one.
QT_QPA_PLATFORM=offscreen "$pvpython" "$check_py" "$tmp/$index" "$tmp/expected.json"
