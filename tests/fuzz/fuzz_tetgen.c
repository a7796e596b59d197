/* libFuzzer harness for the tetgen reader; the work is in fuzz_targets.c (shared with the regression test). */
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return hs_fuzz_tetgen(data, size); }
