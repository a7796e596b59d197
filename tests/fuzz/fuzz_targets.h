/**
 * @file fuzz_targets.h
 * @brief The reader entry points the libFuzzer harnesses (fuzz_main.c, one executable per target)
 * and the regression test (test_fuzz_regressions.c) share, so a crashing input is replayed
 * through exactly the code that found it. Each takes arbitrary bytes, writes them to temporary
 * files, calls the reader and, when the reader accepts the input, checks the result's invariants
 * and hands it to the next step a run takes; it returns 0 when the reader either rejected the
 * input with an error or produced a valid result, and abort()s otherwise.
 *
 * Input layouts (the seed corpora in tests/fuzz/corpus/<target>/ follow them). Where one input
 * becomes several files they are separated by the byte '@' (HS_FUZZ_SEP), which none of these
 * text formats uses; a missing part is an empty file, or no file where the format says optional.
 *  - config: the config file's text; after the first line "--set" each further line is one
 *    "key=value" override (hs_config_load's --set path).
 *  - tetgen: the .node file '@' the .ele file (no '@': the .ele file is empty).
 *  - mtx: the Matrix Market file.
 *  - stl, off, ply, vtp: the file (fuzz.stl / .off / .ply / .vtp), read by hs_surface_read, then
 *    hs_surface_check twice (the second must find nothing to fix).
 *  - poly: the .poly file '@' the PREFIX.node file beside it (no '@': no .node file). When the
 *    input starts with "#smesh" (HS_FUZZ_SMESH_MARKER, a TetGen comment) the first part is written
 *    as a .smesh file instead.
 *  - vtk, gmsh, vtu: the file (fuzz.vtk / fuzz.msh / fuzz.vtu), read without linearisation and, when the reader's
 *    message asks for mesh.quadratic = "linearize", again with it; then hs_mesh_check and RCM.
 *  - opencarp: PREFIX.pts '@' PREFIX.elem '@' PREFIX.lon; with fewer than two '@' there is no .lon
 *    (no fibres), with none the .elem is empty. Then hs_mesh_check and RCM.
 */
#ifndef HS_FUZZ_TARGETS_H
#define HS_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

#define HS_FUZZ_SEP '@'
#define HS_FUZZ_SET_MARKER "\n--set\n"
#define HS_FUZZ_SMESH_MARKER "#smesh"

/* Every target once: X(name), the entry point being hs_fuzz_<name>, the one list of targets:
 * test_fuzz_regressions replays each, tests/fuzz/CMakeLists.txt builds a harness fuzz_<name> for
 * each and scripts/fuzz.sh runs them (both read the X(...) entries of this macro from this file,
 * so keep it one X(name) per entry, continued with backslashes). */
#define HS_FUZZ_TARGETS(X)                                                                         \
    X(config) X(tetgen) X(mtx) X(stl) X(off) X(ply) X(poly) X(vtk) X(gmsh) X(opencarp) X(vtu) X(vtp)

#define HS_FUZZ_DECLARE(name) int hs_fuzz_##name(const uint8_t *data, size_t size);
HS_FUZZ_TARGETS(HS_FUZZ_DECLARE)
#undef HS_FUZZ_DECLARE

#endif
