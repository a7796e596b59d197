/**
 * @file fuzz_targets.h
 * @brief The reader entry points the libFuzzer harnesses (fuzz_<target>.c) and the regression test
 * (test_fuzz_regressions.c) share, so a crashing input is replayed through exactly the code that
 * found it. Each takes arbitrary bytes, writes them to temporary files, calls the reader and, when
 * the reader accepts the input, checks the result's invariants; it returns 0 when the reader either
 * rejected the input with an error or produced a valid result, and abort()s otherwise.
 *
 * Input layouts (the seed corpora in tests/fuzz/corpus/<target>/ follow them):
 *  - config: the config file's text; after the first line "--set" each further line is one
 *    "key=value" override (hs_config_load's --set path).
 *  - tetgen: the .node file, the byte '@', the .ele file (no '@': the whole input is the .node file
 *    and the .ele file is empty).
 *  - mtx: the Matrix Market file.
 */
#ifndef HS_FUZZ_TARGETS_H
#define HS_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

#define HS_FUZZ_TETGEN_SEP '@'
#define HS_FUZZ_SET_MARKER "\n--set\n"

int hs_fuzz_config(const uint8_t *data, size_t size);
int hs_fuzz_tetgen(const uint8_t *data, size_t size);
int hs_fuzz_mtx(const uint8_t *data, size_t size);

#endif
