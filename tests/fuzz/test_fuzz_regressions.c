/* Replays every input under tests/fuzz/regressions/<target>/ (inputs the fuzzers found crashing,
 * hanging or tripping a sanitizer, kept after the fix) and the seed corpora under
 * tests/fuzz/corpus/<target>/ through the same entry points as the libFuzzer harnesses
 * (fuzz_targets.c). Each must end in an error with a message or a valid result; a crash, a
 * sanitizer report (in the HS_SANITIZE build) or a broken invariant (abort) fails the test.
 * Usage: test_fuzz_regressions TESTS_FUZZ_DIR */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_targets.h"
#include "hs_util.h"

typedef int (*entry_fn)(const uint8_t *, size_t);

static int replay_dir(const char *dir, entry_fn fn, int *count)
{
    DIR *d = opendir(dir);
    if (!d) return 0; /* a target without regressions yet */
    struct dirent *e;
    int bad = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        int len = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (len < 0 || (size_t)len >= sizeof path) {
            fprintf(stderr, "%s/%s: path too long\n", dir, e->d_name);
            ++bad;
            continue;
        }
        FILE *f = fopen(path, "rb");
        if (!f) {
            fprintf(stderr, "cannot open %s\n", path);
            ++bad;
            continue;
        }
        uint8_t *buf = NULL;
        size_t n = 0, cap = 0;
        for (;;) {
            if (n == cap) {
                cap = cap ? 2 * cap : 4096;
                uint8_t *p = realloc(buf, cap);
                if (!p) abort();
                buf = p;
            }
            size_t got = fread(buf + n, 1, cap - n, f);
            n += got;
            if (got == 0) break;
        }
        fclose(f);
        /* The harness aborts on a broken invariant and prints why; name the input first. */
        fprintf(stderr, "%s\n", path);
        if (fn(buf, n) != 0) {
            fprintf(stderr, "%s: entry point returned non-zero\n", path);
            ++bad;
        }
        free(buf);
        ++*count;
    }
    closedir(d);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s TESTS_FUZZ_DIR\n", argv[0]);
        return 2;
    }
#define HS_FUZZ_ROW(name) {#name, hs_fuzz_##name},
    static const struct { const char *name; entry_fn fn; } targets[] = {HS_FUZZ_TARGETS(HS_FUZZ_ROW)};
#undef HS_FUZZ_ROW
    /* Every log line and warning the readers write is formatted (the fuzzers run quiet), so a
     * bad format argument still meets the sanitizers here. */
    hs_verbosity = 2;
    int bad = 0;
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; ++t) {
        int count = 0;
        for (int kind = 0; kind < 2; ++kind) {
            char dir[4096];
            snprintf(dir, sizeof dir, "%s/%s/%s", argv[1], kind ? "corpus" : "regressions",
                     targets[t].name);
            bad += replay_dir(dir, targets[t].fn, &count);
        }
        if (count == 0) {
            fprintf(stderr, "no inputs found for %s under %s\n", targets[t].name, argv[1]);
            ++bad;
        }
    }
    return bad ? 1 : 0;
}
