/* What the GPU (bench_spmv.c) and CPU (bench_spmv_cpu.c) halves of `heartsim bench spmv` share. */
#ifndef HS_BENCH_SPMV_INTERNAL_H
#define HS_BENCH_SPMV_INTERNAL_H

#include "hs_bench.h"
#include "hs_csr.h"

/* The run's matrix: mesh, RCM and pattern as `heartsim run` builds them (cpu backend, csr_scalar,
 * so no format renumbers the mesh), values from one assembly at the initial state. */
hs_status hs_bench_matrix_from_config(const hs_config *cfg, hs_csr **out);

/* B = P A P^T with new row k = old row new_to_old[k]; columns renumbered and sorted. */
hs_status hs_bench_permute_sym(const hs_csr *a, const int32_t *new_to_old, hs_csr **out);

/* The matrix of @p o: its --matrix file or its config's. */
hs_status hs_bench_spmv_matrix(const hs_bench_spmv_opts *o, hs_csr **out);

/* Without a GPU: every selected kernel's CPU reference on @p a (want [hs_spmv_count()]: 1 =
 * selected), checked against the CSR product with the bound 2 m eps || |A| |x| ||_inf (m: the
 * longest row; any summation order of a row stays within it) and timed; @p why says why there is no
 * GPU and is printed first. */
hs_status hs_bench_spmv_cpu(const hs_bench_spmv_opts *o, const hs_csr *a, const char *want, const char *why);

#endif
