/* Directories (hs_fs.h): created with their parents and checked writable. */
#define _POSIX_C_SOURCE 200809L
#include "hs_fs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_util.h"

/* mkdir -p: create each missing component with mode 0777 (the umask then applies). */
static hs_status mkdir_parents(const char *dir, const char *what)
{
    hs_status st = HS_OK;
    char *buf = NULL;
    size_t len = strlen(dir);
    HS_CALL(HS_ALLOC(buf, len + 1, "directory name"));
    memcpy(buf, dir, len + 1);
    /* i starts at 1 so an absolute path does not try mkdir(""); each '/' ends one component. */
    for (size_t i = 1; i <= len; ++i) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        if (buf[i - 1] == '/') continue; /* "a//b": the empty component is the same directory */
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            int err = errno;
            st = HS_FAIL(HS_ERR_IO, "%s %s cannot be created: mkdir %s: %s", what, dir, buf,
                         strerror(err));
            goto done;
        }
        buf[i] = saved;
    }
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        int err = errno;
        st = HS_FAIL(HS_ERR_IO, "%s %s cannot be created: %s", what, dir, strerror(err));
    } else if (!S_ISDIR(sb.st_mode)) {
        st = HS_FAIL(HS_ERR_IO, "%s %s exists but is not a directory", what, dir);
    }
done:
    free(buf);
    return st;
}

hs_status hs_dir_create(const char *dir, const char *what)
{
    if (!what || !*what) what = "directory";
    HS_CHECK(dir && *dir, HS_ERR_IO, "%s name is empty", what);
    HS_CALL(mkdir_parents(dir, what));

    /* A probe file catches what mkdir cannot: a read-only mount, a directory owned by someone
     * else, no space for even one inode. The pid keeps concurrent runs apart. */
    char name[64];
    snprintf(name, sizeof name, ".heartsim_probe_%ld", (long)getpid());
    char *probe = NULL;
    const size_t plen = strlen(dir) + 1 + strlen(name) + 1;
    HS_CALL(HS_ALLOC(probe, plen, "probe file name"));
    snprintf(probe, plen, "%s/%s", dir, name);
    hs_status st = HS_OK;
    FILE *fp = fopen(probe, "wb");
    int err = errno;
    if (!fp) {
        st = HS_FAIL(HS_ERR_IO, "%s %s is not writable: %s", what, dir, strerror(err));
    } else {
        errno = 0;
        int bad = fputs("heartsim probe\n", fp) < 0;
        bad |= fflush(fp) != 0;
        err = errno;
        bad |= fclose(fp) != 0;
        if (!err) err = errno;
        if (bad)
            st = HS_FAIL(HS_ERR_IO, "%s %s is not writable: %s", what, dir,
                         err ? strerror(err) : "short write");
        if (unlink(probe) != 0 && st == HS_OK) {
            err = errno;
            st = HS_FAIL(HS_ERR_IO, "%s %s: cannot remove probe file %s: %s", what, dir,
                         probe, strerror(err));
        }
    }
    free(probe);
    return st;
}
