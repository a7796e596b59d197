#!/bin/bash
# The XDMF index is well-formed XML describing exactly the files beside it: write a series with
# the C helper (a prefix with characters XML must escape) and check it with Python's own XML
# parser and an independent reading of the binary files (xdmf_xml_check.py). No ParaView needed.
# usage: xdmf_xml_check.sh WRITE_SERIES_EXE CHECK_PY
# Exit 77 (ctest: skipped) when python3 is absent.
set -u
if [ $# -ne 2 ]; then
    echo "usage: $0 WRITE_SERIES_EXE CHECK_PY" >&2
    exit 2
fi
python=$(command -v python3 || true)
if [ -z "$python" ]; then
    echo "python3 not found: cannot check the XDMF index"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hs_xdmf_xml_XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
prefix="heart&co's<1>"
"$1" "$tmp" xdmf "$prefix" || { echo "xdmf_xml_check: $1 $tmp xdmf failed" >&2; exit 1; }
"$python" "$2" "$tmp/$prefix.xdmf" "$tmp/expected.json"
