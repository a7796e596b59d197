/* Temporary file + fsync + rename: see hs_atomic_file.h for the guarantees. */
#define _POSIX_C_SOURCE 200809L
#include "hs_atomic_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_util.h"

struct hs_atomic_file {
    FILE *fp;
    char *path;       /* final name */
    char *tmp_path;   /* DIR/.NAME.tmp: hidden, and in the same directory so rename is atomic */
    const char *what; /* borrowed description for messages */
};

/* strerror(errno) for a failed call; a stdio failure that left errno 0 still gets a reason. */
static const char *reason(int err)
{
    return err ? strerror(err) : "short write";
}

/* Record HS_ERR_IO for @p f at the caller's line, naming the target, the step on the temporary
 * file ("writing ...") and @p err, the errno captured at the failure. */
#define IO_ERROR(f, step, err)                                                                     \
    hs_error_set(HS_ERR_IO, __FILE__, __LINE__, __func__, "cannot write %s %s: %s %s: %s",         \
                 (f)->what, (f)->path, (step), (f)->tmp_path, reason(err))

static hs_status make_tmp_path(const char *path, char **out)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0; /* keeps the '/' */
    const char *base = path + dir_len;
    size_t len = dir_len + 1 + strlen(base) + 4 + 1;          /* "." + base + ".tmp" + NUL */
    char *tmp = NULL;
    HS_CALL(HS_ALLOC(tmp, len, "temporary file name"));
    memcpy(tmp, path, dir_len);
    snprintf(tmp + dir_len, len - dir_len, ".%s.tmp", base);
    *out = tmp;
    return HS_OK;
}

hs_status hs_atomic_file_create(const char *path, const char *what, hs_atomic_file **out)
{
    hs_status st = HS_OK;
    hs_atomic_file *f = NULL;
    *out = NULL;
    HS_CHECK(path && *path, HS_ERR_INTERNAL, "empty file name for %s", what ? what : "file");
    HS_CALL(HS_ALLOC(f, 1, "atomic file"));
    f->what = what ? what : "file";
    HS_CALL_GOTO(HS_ALLOC(f->path, strlen(path) + 1, "file name"), fail);
    memcpy(f->path, path, strlen(path) + 1);
    HS_CALL_GOTO(make_tmp_path(path, &f->tmp_path), fail);
    f->fp = fopen(f->tmp_path, "wb");
    if (!f->fp) {
        st = IO_ERROR(f, "creating", errno);
        goto fail;
    }
    *out = f;
    return HS_OK;
fail:
    hs_atomic_file_destroy(&f);
    return st;
}

/* Test hook (docs/reliability.md): HS_INJECT_DISK_FULL_AFTER=BYTES makes every write fail with
 * ENOSPC once this process has written BYTES bytes through atomic files, in any file: a disk that
 * fills up, without needing a small file system. Read once; the count is shared by all threads. */
static _Atomic long long inject_limit = -2; /* -2: not read yet, -1: off */
static _Atomic long long inject_written = 0;

static int injected_disk_full(size_t n)
{
    long long lim = atomic_load(&inject_limit);
    if (lim == -2) {
        const char *e = getenv("HS_INJECT_DISK_FULL_AFTER");
        lim = e && *e ? atoll(e) : -1;
        atomic_store(&inject_limit, lim);
    }
    if (lim < 0) return 0;
    return atomic_fetch_add(&inject_written, (long long)n) + (long long)n > lim;
}

hs_status hs_atomic_file_write(hs_atomic_file *f, const void *data, size_t n)
{
    if (n == 0) return HS_OK;
    if (injected_disk_full(n)) return IO_ERROR(f, "writing", ENOSPC);
    errno = 0;
    if (fwrite(data, 1, n, f->fp) != n) return IO_ERROR(f, "writing", errno);
    return HS_OK;
}

hs_status hs_atomic_file_printf(hs_atomic_file *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    errno = 0;
    int rc = vfprintf(f->fp, fmt, ap);
    va_end(ap);
    if (rc < 0) return IO_ERROR(f, "writing", errno);
    if (injected_disk_full((size_t)rc)) return IO_ERROR(f, "writing", ENOSPC);
    return HS_OK;
}

hs_status hs_atomic_file_commit(hs_atomic_file **fp)
{
    hs_atomic_file *f = *fp;
    hs_status st = HS_OK;
    *fp = NULL;
    if (!f) return HS_FAIL(HS_ERR_INTERNAL, "commit of a NULL atomic file");

    /* Each step can be where a full disk first shows: stdio keeps a buffer, the kernel another. */
    /* A failed fwrite whose caller went on must not be committed: check the sticky flag too. */
    if (ferror(f->fp)) {
        st = IO_ERROR(f, "writing", EIO);
        goto fail;
    }
    errno = 0;
    if (fflush(f->fp) != 0) {
        st = IO_ERROR(f, "flushing", errno);
        goto fail;
    }
    if (fsync(fileno(f->fp)) != 0) {
        st = IO_ERROR(f, "syncing", errno);
        goto fail;
    }
    FILE *fp_close = f->fp;
    f->fp = NULL; /* fclose frees the stream even when it fails: never close it twice */
    errno = 0;
    if (fclose(fp_close) != 0) {
        st = IO_ERROR(f, "closing", errno);
        goto fail;
    }
    if (rename(f->tmp_path, f->path) != 0) {
        st = IO_ERROR(f, "renaming", errno);
        goto fail;
    }
    free(f->tmp_path);
    free(f->path);
    free(f);
    return HS_OK;
fail:
    hs_atomic_file_destroy(&f);
    return st;
}

void hs_atomic_file_destroy(hs_atomic_file **fp)
{
    if (!fp || !*fp) return;
    hs_atomic_file *f = *fp;
    if (f->fp) fclose(f->fp); /* the data is being thrown away: a close error does not matter */
    if (f->tmp_path) unlink(f->tmp_path);
    free(f->tmp_path);
    free(f->path);
    free(f);
    *fp = NULL;
}

hs_status hs_path_join(const char *dir, const char *name, char **out)
{
    size_t dl = strlen(dir), nl = strlen(name);
    int sep = dl > 0 && dir[dl - 1] != '/';
    char *p = NULL;
    HS_CALL(HS_ALLOC(p, dl + (size_t)sep + nl + 1, "path"));
    memcpy(p, dir, dl);
    if (sep) p[dl] = '/';
    memcpy(p + dl + (size_t)sep, name, nl + 1);
    *out = p;
    return HS_OK;
}
