/**
 * @file hs_status.h
 * @brief Status codes, error recording and the HS_CALL / HS_CHECK macros used everywhere.
 *
 * Functions that can fail return hs_status (HS_OK == 0). The first failure records a message a
 * user can act on plus the source location (file, line, function) where it was detected; callers
 * propagate the code with HS_CALL. Only app/ turns a status into a process exit code, and the
 * numeric values below ARE the documented exit codes (docs/cli.md).
 */
#ifndef HS_STATUS_H
#define HS_STATUS_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hs_status {
    HS_OK = 0,
    HS_ERR_USAGE = 1,     /**< bad command line */
    HS_ERR_CONFIG = 2,    /**< config file: syntax, unknown key, wrong type, out of range */
    HS_ERR_MESH = 3,      /**< mesh input or geometry: missing file, bad format, inverted element */
    HS_ERR_IO = 4,        /**< reading or writing files: unwritable directory, disk full */
    HS_ERR_NUMERIC = 5,   /**< Newton or CG failure, NaN/Inf */
    HS_ERR_DEVICE = 6,    /**< GPU requested but absent, CUDA/cuSPARSE failure */
    HS_ERR_MEMORY = 7,    /**< allocation failed */
    HS_ERR_INTERRUPTED = 8, /**< stopped by a signal */
    HS_ERR_INTERNAL = 9   /**< a bug: an invariant did not hold */
} hs_status;

/** @brief Short name of a status ("config error", ...). */
const char *hs_status_name(hs_status s);

/**
 * @brief Record an error (keeps the first one until hs_error_clear) and return @p code.
 * A message with control characters other than newline and tab, or bytes that are not valid UTF-8,
 * is stored with every byte outside printable ASCII (but the newline) as "\xNN" (a message may quote
 * a corrupt file), here and in hs_error_prefix.
 * @param[in] code status to record; @param[in] file,line,func source location; @param[in] fmt message.
 */
hs_status hs_error_set(hs_status code, const char *file, int line, const char *func,
                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/** @brief Prepend context ("while reading mesh: ") to the recorded message. */
void hs_error_prefix(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/** @brief Message of the recorded error ("" when none). */
const char *hs_error_message(void);
/** @brief "file:line (function)" of the recorded error ("" when none). */
const char *hs_error_location(void);
/** @brief Code of the recorded error (HS_OK when none). */
hs_status hs_error_code(void);
/** @brief Forget the recorded error (and its agreed mark). */
void hs_error_clear(void);
/**
 * @brief Mark the recorded error as agreed: in a distributed run every rank returns it alike (its
 * code and message were shared by an agreement: hs_mpi_agree, hs_par_agree), so app/ says it once
 * instead of ending the ranks through MPI_Abort. The mark belongs to the record: hs_error_prefix
 * keeps it, hs_error_clear drops it, so an agreed error that was cleared (recovered from, or said
 * as a warning) cannot make a later error of one rank pass for agreed. Nothing when none recorded.
 */
void hs_error_mark_agreed(void);
/** @brief 1 when an error is recorded and marked agreed (hs_error_mark_agreed). */
int hs_error_agreed(void);

/** Propagate a failing status. */
#define HS_CALL(expr)                                                                              \
    do {                                                                                           \
        hs_status hs_call_s_ = (expr);                                                             \
        if (hs_call_s_ != HS_OK) return hs_call_s_;                                                \
    } while (0)

/** Propagate a failing status after jumping to a cleanup label; needs `hs_status st` in scope. */
#define HS_CALL_GOTO(expr, label)                                                                  \
    do {                                                                                           \
        st = (expr);                                                                               \
        if (st != HS_OK) goto label;                                                               \
    } while (0)

/** Check a condition; on failure record the message and return the code. */
#define HS_CHECK(cond, code, ...)                                                                  \
    do {                                                                                           \
        if (!(cond)) return hs_error_set((code), __FILE__, __LINE__, __func__, __VA_ARGS__);       \
    } while (0)

/** Check a condition; on failure record the message, set st and jump to label. */
#define HS_CHECK_GOTO(cond, label, code, ...)                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            st = hs_error_set((code), __FILE__, __LINE__, __func__, __VA_ARGS__);                  \
            goto label;                                                                            \
        }                                                                                          \
    } while (0)

/** Record an error unconditionally and return its code. */
#define HS_FAIL(code, ...) hs_error_set((code), __FILE__, __LINE__, __func__, __VA_ARGS__)

#ifdef __cplusplus
}
#endif
#endif
