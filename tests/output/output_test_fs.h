/**
 * @file output_test_fs.h
 * @brief File-system helpers for the output tests: paths, existence, whole-file reads, recursive
 * removal of the per-run temporary directory, and checking an error's code and message.
 */
#ifndef OUTPUT_TEST_FS_H
#define OUTPUT_TEST_FS_H

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hs_status.h"

/* A fresh directory $TMPDIR/<name>_XXXXXX (or under /tmp) into @p buf; 0 on success, else says why. */
static inline int make_test_root(char *buf, size_t size, const char *name)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, size, "%s/%s_XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
    if (mkdtemp(buf)) return 0;
    fprintf(stderr, "cannot create a temporary directory %s: %s\n", buf, strerror(errno));
    return -1;
}

static inline void path_in(char *buf, size_t size, const char *a, const char *b)
{
    snprintf(buf, size, "%s/%s", a, b);
}

static inline int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/** Size of @p path in bytes, -1 when it does not exist. */
static inline long long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

/** Whole file, NUL-terminated (malloc'd); NULL when it cannot be read. */
static inline char *slurp(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf) buf[n] = '\0';
    fclose(fp);
    if (size) *size = (size_t)n;
    return buf;
}

static inline int output_test_rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static inline void rm_rf(const char *path)
{
    nftw(path, output_test_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/** Expect @p st to be @p code with a message containing @p needle; clears the recorded error.
 * Needs hs_test.h (included by tests, not by this header, so benchmarks can use the rest). */
#define expect_error(st, code, needle, what)                                                       \
    do {                                                                                           \
        hs_status e_st_ = (st);                                                                    \
        HS_TEST_CHECK(e_st_ == (code), "%s: status %d (%s), expected %s", (what), (int)e_st_,      \
                      hs_status_name(e_st_), hs_status_name(code));                                \
        HS_TEST_CHECK(strstr(hs_error_message(), (needle)) != NULL,                                \
                      "%s: message \"%s\" does not name %s", (what), hs_error_message(), (needle)); \
        hs_error_clear();                                                                          \
    } while (0)

#endif
