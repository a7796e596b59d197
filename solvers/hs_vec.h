/**
 * @file hs_vec.h
 * @brief Vector kernels of the CPU backend. Reductions are deterministic: the sum is taken over
 * fixed chunks of HS_DOT_CHUNK entries in parallel, then over the chunk sums in order, so the result
 * does not depend on the number of threads (restarts and reruns reproduce bit for bit).
 */
#ifndef HS_VEC_H
#define HS_VEC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HS_DOT_CHUNK 4096

/** @brief sum_i a_i b_i, deterministic. */
double hs_vec_dot(int32_t n, const double *a, const double *b);
/** @brief max_i |a_i| (exact, order independent); *arg gets the first index attaining it (may be NULL). */
double hs_vec_norm_inf(int32_t n, const double *a, int32_t *arg);
/** @brief max_i |a_i| * w_i; *arg gets the first index attaining it (may be NULL). */
double hs_vec_norm_inf_weighted(int32_t n, const double *a, const double *w, int32_t *arg);
/** @brief 1 when every entry is finite. */
int hs_vec_all_finite(int32_t n, const double *a);

#ifdef __cplusplus
}
#endif
#endif
