/**
 * @file hs_test.h
 * @brief Minimal test helpers: silent on success, one line per failed check, exit status = failures.
 * GPU tests return HS_TEST_SKIP (77) when no device is present; ctest shows them as skipped.
 */
#ifndef HS_TEST_H
#define HS_TEST_H

#include <math.h>
#include <stdio.h>

#define HS_TEST_SKIP 77

static int hs_test_failures = 0;

#define HS_TEST_CHECK(cond, ...)                                                                   \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            ++hs_test_failures;                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/** Check |a - b| <= tol and print both values when not. */
#define HS_TEST_NEAR(a, b, tol, what)                                                              \
    do {                                                                                           \
        double hs_a_ = (a), hs_b_ = (b), hs_t_ = (tol);                                            \
        HS_TEST_CHECK(fabs(hs_a_ - hs_b_) <= hs_t_, "%s: %.17g vs %.17g (|diff| %.3g > tol %.3g)", \
                      (what), hs_a_, hs_b_, fabs(hs_a_ - hs_b_), hs_t_);                           \
    } while (0)

/** Check a hs_status call succeeded; print the recorded error when not. */
#define HS_TEST_OK(expr)                                                                           \
    do {                                                                                           \
        hs_status hs_s_ = (expr);                                                                  \
        if (hs_s_ != HS_OK) {                                                                      \
            ++hs_test_failures;                                                                    \
            fprintf(stderr, "%s:%d: %s failed: %s [%s]\n", __FILE__, __LINE__, #expr,              \
                    hs_error_message(), hs_error_location());                                      \
            hs_error_clear();                                                                      \
        }                                                                                          \
    } while (0)

#define HS_TEST_RETURN() return hs_test_failures ? 1 : 0

#endif
