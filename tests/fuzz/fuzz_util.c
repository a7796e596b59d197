/* Scratch files and input splitting for the fuzz entry points (fuzz_util.h). One directory per
 * process: files are rewritten for every input, and the directory with every file ever named in
 * it is removed at exit. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_status.h"

#define MAX_NAMES 32
#define NAME_MAX_LEN 64

static char g_dir[HS_FUZZ_PATH_MAX - NAME_MAX_LEN - 1];
static char g_names[MAX_NAMES][NAME_MAX_LEN];
static int g_n_names;

static void remove_dir(void)
{
    char p[HS_FUZZ_PATH_MAX];
    for (int i = 0; i < g_n_names; ++i) {
        if (snprintf(p, sizeof p, "%s/%s", g_dir, g_names[i]) >= (int)sizeof p) continue;
        unlink(p);
    }
    rmdir(g_dir);
}

const char *hs_fuzz_dir(void)
{
    if (!g_dir[0]) {
        const char *t = getenv("TMPDIR");
        int n = snprintf(g_dir, sizeof g_dir, "%s/hs_fuzz_XXXXXX", t && t[0] ? t : "/tmp");
        if (n < 0 || (size_t)n >= sizeof g_dir || !mkdtemp(g_dir)) {
            perror("hs_fuzz: mkdtemp");
            abort();
        }
        atexit(remove_dir);
    }
    return g_dir;
}

const char *hs_fuzz_path(const char *name, char *buf)
{
    hs_fuzz_dir();
    if (strlen(name) >= NAME_MAX_LEN) hs_fuzz_fail("util", "scratch file name too long");
    int known = 0;
    for (int i = 0; i < g_n_names && !known; ++i) known = strcmp(g_names[i], name) == 0;
    if (!known) {
        if (g_n_names == MAX_NAMES) hs_fuzz_fail("util", "too many scratch file names");
        strcpy(g_names[g_n_names++], name);
    }
    snprintf(buf, HS_FUZZ_PATH_MAX, "%s/%s", g_dir, name);
    return buf;
}

void hs_fuzz_write(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

void hs_fuzz_remove(const char *path)
{
    if (unlink(path) != 0 && errno != ENOENT) {
        perror(path);
        abort();
    }
}

int hs_fuzz_split(const uint8_t *data, size_t size, uint8_t sep, int max_parts,
                  const uint8_t **start, size_t *len)
{
    int n = 0;
    const uint8_t *p = data;
    size_t left = size;
    for (;;) {
        const uint8_t *s = n + 1 < max_parts && left ? memchr(p, sep, left) : NULL;
        start[n] = p;
        len[n] = s ? (size_t)(s - p) : left;
        ++n;
        if (!s) return n;
        left -= len[n - 1] + 1;
        p = s + 1;
    }
}

void hs_fuzz_check_refusal(const char *target, int status)
{
    const char *msg = hs_error_message();
    if (status != HS_ERR_MESH && status != HS_ERR_IO) {
        fprintf(stderr, "status %d: %s\n", status, msg);
        hs_fuzz_fail(target, "refused with a status other than HS_ERR_MESH or HS_ERR_IO");
    }
    if (msg[0] == '\0') hs_fuzz_fail(target, "an error was returned without a message");
    if (!strstr(msg, hs_fuzz_dir())) {
        fprintf(stderr, "message: %s\n", msg);
        hs_fuzz_fail(target, "the error message does not name the file");
    }
}

void hs_fuzz_fail(const char *target, const char *what)
{
    fprintf(stderr, "hs_fuzz %s: invariant broken: %s\n", target, what);
    /* abort() skips atexit; the input itself is what libFuzzer saves, so the files can go. */
    if (g_dir[0]) remove_dir();
    abort();
}
