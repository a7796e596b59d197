/**
 * @file hs_util.h
 * @brief Small shared helpers: checked allocation, wall clock, logging.
 */
#ifndef HS_UTIL_H
#define HS_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief calloc that records "out of memory allocating <what> (<bytes>)" on failure. */
hs_status hs_alloc(void **out, size_t count, size_t size, const char *what);
#define HS_ALLOC(ptr, count, what) hs_alloc((void **)&(ptr), (size_t)(count), sizeof(*(ptr)), (what))

/** @brief Free and set to NULL. */
#define HS_FREE(ptr)                                                                               \
    do {                                                                                           \
        free(ptr);                                                                                 \
        (ptr) = NULL;                                                                              \
    } while (0)

/** Loops shorter than this run on one thread: below it OpenMP's fork/join costs more than the loop. */
#define HS_OMP_MIN 16384

/** Longest path heartsim keeps (config paths, output directory, mesh and fibre files), bytes. */
#define HS_PATH_MAX 4096

/** @brief Monotonic wall clock in seconds. */
double hs_wtime(void);

/** @brief The process's peak resident memory in bytes (VmHWM of /proc/self/status); 0 where the
 * system does not say (not Linux). */
double hs_peak_rss_bytes(void);

/** @brief Median of v[0..n-1] (sorts v in place); 0 for n = 0. */
double hs_median(double *v, int n);

/** Verbosity: 0 quiet (errors only), 1 normal, 2 verbose. */
extern int hs_verbosity;
/** @brief Informational message on stderr (shown when hs_verbosity >= level). */
void hs_log(int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/** @brief Warning on stderr (always shown unless quiet). */
void hs_warn(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
