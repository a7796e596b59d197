#define _DEFAULT_SOURCE /* flock, gethostname */
/* The run lock of an output directory (hs_run_lock.h): flock on DIR/.heartsim.lock. */
#include "hs_run_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hs_util.h"

struct hs_run_lock {
    int fd;
    char path[HS_PATH_MAX + 32];
};

/* The command line of this process (/proc/self/cmdline, words joined by spaces), for the holder's
 * description; "(unknown)" where there is no /proc. */
static void own_command(char *buf, size_t size)
{
    snprintf(buf, size, "(unknown)");
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f) return;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    if (!n) {
        snprintf(buf, size, "(unknown)");
        return;
    }
    while (n && buf[n - 1] == '\0') --n;
    for (size_t i = 0; i < n; ++i)
        if (buf[i] == '\0' || buf[i] == '\n') buf[i] = ' ';
    buf[n] = '\0';
}

/* The holder's line KEY VALUE of the lock file's text, or "?" */
static void holder_field(const char *text, const char *key, char *out, size_t size)
{
    snprintf(out, size, "?");
    const size_t kl = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, key, kl) != 0 || p[kl] != ' ') continue;
        const char *v = p + kl + 1, *e = strchr(v, '\n');
        const size_t n = e ? (size_t)(e - v) : strlen(v);
        snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), v);
        return;
    }
}

static hs_status refuse(const char *dir, const char *path, int fd)
{
    char text[4096];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = '\0';
    if (n <= 0)
        return HS_FAIL(HS_ERR_IO,
                       "output.dir %s is in use by another heartsim run (it holds the lock %s and has not written "
                       "its details yet); a directory holds one run's frames, index and checkpoints: wait for that "
                       "run to end, or give this one another --out", dir, path);
    char pid[32], host[256], started[64], cmd[2048], me[256] = "";
    holder_field(text, "pid", pid, sizeof pid);
    holder_field(text, "host", host, sizeof host);
    holder_field(text, "started", started, sizeof started);
    holder_field(text, "command", cmd, sizeof cmd);
    gethostname(me, sizeof me - 1);
    return HS_FAIL(HS_ERR_IO,
                   "output.dir %s is in use by another heartsim run: pid %s on host %s%s, started %s, command: %s; "
                   "a directory holds one run's frames, index and checkpoints: wait for that run to end (or stop "
                   "it), or give this one another --out (the lock %s ends with that process, also if it is killed)",
                   dir, pid, host, strcmp(host, me) ? " (another host)" : "", started, cmd, path);
}

hs_status hs_run_lock_acquire(const char *dir, hs_run_lock **out)
{
    *out = NULL;
    hs_run_lock *lk = NULL;
    HS_CALL(HS_ALLOC(lk, 1, "run lock"));
    const size_t dl = strlen(dir);
    snprintf(lk->path, sizeof lk->path, "%s%s%s", dir, dl && dir[dl - 1] != '/' ? "/" : "", HS_RUN_LOCK_NAME);
    /* a run that ends unlinks the file after locking it: a file opened just before that is not the
     * one at the path any more, so open again (a few times: each retry means another run ended) */
    for (int attempt = 0; attempt < 16; ++attempt) {
        int fd = open(lk->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            hs_status st = HS_FAIL(HS_ERR_IO, "cannot create the run lock %s: %s", lk->path, strerror(errno));
            free(lk);
            return st;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int err = errno;
            if (err == EWOULDBLOCK) {
                hs_status st = refuse(dir, lk->path, fd);
                close(fd);
                free(lk);
                return st;
            }
            hs_warn("cannot lock %s: %s; a second run into output.dir %s would not be refused", lk->path,
                    strerror(err), dir);
            close(fd);
            free(lk);
            return HS_OK;
        }
        struct stat a, b;
        if (fstat(fd, &a) != 0 || stat(lk->path, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
            close(fd); /* unlinked by the run that just ended */
            continue;
        }
        char host[256] = "", started[64] = "", cmd[2048];
        gethostname(host, sizeof host - 1);
        const time_t now = time(NULL);
        struct tm tm;
        strftime(started, sizeof started, "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&now, &tm));
        own_command(cmd, sizeof cmd);
        char text[4096];
        const int n = snprintf(text, sizeof text, "pid %ld\nhost %s\nstarted %s\ncommand %s\n", (long)getpid(),
                               host, started, cmd);
        /* the details are for the message of a refused run: failing to write them is not an error */
        if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)(n < (int)sizeof text ? n : (int)sizeof text - 1), 0) < 0)
            hs_warn("cannot write the run's details into %s: %s", lk->path, strerror(errno));
        lk->fd = fd;
        *out = lk;
        return HS_OK;
    }
    hs_status st = HS_FAIL(HS_ERR_IO, "cannot take the run lock %s: it was replaced 16 times while this run tried",
                           lk->path);
    free(lk);
    return st;
}

void hs_run_lock_release(hs_run_lock **lock)
{
    if (!lock || !*lock) return;
    hs_run_lock *lk = *lock;
    unlink(lk->path); /* while still locked: a run that opened it meanwhile sees it replaced */
    close(lk->fd);
    free(lk);
    *lock = NULL;
}
