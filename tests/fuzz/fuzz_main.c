/* libFuzzer harness: one executable per target (tests/fuzz/CMakeLists.txt compiles this file with
 * HS_FUZZ_ENTRY=hs_fuzz_<target>); the work is in the entry points of fuzz_targets.h, shared with
 * test_fuzz_regressions so a finding replays through the same code. */
#include "fuzz_targets.h"
#include "hs_util.h"

#ifndef HS_FUZZ_ENTRY
#error "compile with -DHS_FUZZ_ENTRY=hs_fuzz_<target>"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* The readers' warnings (skipped polygons, welded points, flipped files) would be printed for
     * most of the millions of inputs; test_fuzz_regressions keeps them on, so their formatting is
     * still run under the sanitizers for every corpus file. */
    hs_verbosity = 0;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return HS_FUZZ_ENTRY(data, size); }
