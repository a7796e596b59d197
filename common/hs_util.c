#define _POSIX_C_SOURCE 200809L
#include "hs_util.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int hs_verbosity = 1;

/* Test hook (docs/reliability.md): HS_INJECT_ALLOC_FAIL=WHAT makes every hs_alloc labelled WHAT
 * fail as if memory ran out: one allocation site's failure path, on one rank of a distributed run
 * when only that rank's environment sets it. Read once (the pointer into the environment). */
static const char inject_unread[1] = "";
static _Atomic(const char *) inject_what = inject_unread;

static int injected_alloc_fail(const char *what)
{
    const char *w = atomic_load(&inject_what);
    if (w == inject_unread) {
        w = getenv("HS_INJECT_ALLOC_FAIL");
        if (w && !*w) w = NULL;
        atomic_store(&inject_what, w);
    }
    return w && what && !strcmp(w, what);
}

hs_status hs_alloc(void **out, size_t count, size_t size, const char *what)
{
    *out = NULL;
    if (count == 0) count = 1; /* a valid, freeable pointer for empty arrays */
    if (size != 0 && count > SIZE_MAX / size)
        return HS_FAIL(HS_ERR_MEMORY, "allocation size overflow for %s (%zu x %zu bytes)", what,
                       count, size);
    void *p = injected_alloc_fail(what) ? NULL : calloc(count, size);
    if (!p)
        return HS_FAIL(HS_ERR_MEMORY, "out of memory allocating %s (%.1f MiB)", what,
                       (double)count * (double)size / (1024.0 * 1024.0));
    *out = p;
    return HS_OK;
}

double hs_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double hs_peak_rss_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0.0;
    char line[256];
    double kb = 0.0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) {
            kb = strtod(line + 6, NULL); /* "VmHWM:   123456 kB" */
            break;
        }
    fclose(f);
    return 1024.0 * kb;
}

void hs_log(int level, const char *fmt, ...)
{
    if (hs_verbosity < level) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

void hs_warn(const char *fmt, ...)
{
    if (hs_verbosity < 1) return;
    va_list ap;
    fputs("heartsim: warning: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double hs_median(double *v, int n)
{
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_dbl);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
