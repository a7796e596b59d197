/*
 * The list of SpMV formats: one line per format, expanded wherever the registry is built.
 * HS_SPMV_FORMAT(ident) refers to `const hs_spmv_ops hs_spmv_ops_<ident>` defined in the format's
 * file (solvers/spmv_<format>.c); ident is also the config name the registry (solvers/spmv_registry.c,
 * over hs_registry) finds it by, so it must equal the ops' .name. Adding a format is one file plus one line here; the registry test
 * (tests/solvers/test_spmv_registry.c) picks it up. Formats whose device kernels need CUDA are
 * listed under HS_HAS_CUDA so a CPU-only build reports them as unknown, never silently falls back.
 * Include "hs_build_config.h" before expanding this list (it defines HS_HAS_CUDA).
 */
#ifndef HS_HAS_CUDA
#error "include hs_build_config.h before expanding hs_spmv_list.h"
#endif
HS_SPMV_FORMAT(csr_scalar)
HS_SPMV_FORMAT(csr_vector)
HS_SPMV_FORMAT(pcsr_dehnavi)
HS_SPMV_FORMAT(ellwarp_k1)
HS_SPMV_FORMAT(ellwarp_k1r)
HS_SPMV_FORMAT(ellwarp_k1rs)
HS_SPMV_FORMAT(ellwarp_k2)
HS_SPMV_FORMAT(ellwarp_k2r)
HS_SPMV_FORMAT(ellwarp_k2rs)
HS_SPMV_FORMAT(pcsr_hegao)
HS_SPMV_FORMAT(aligned_coo)
#if HS_HAS_CUDA
HS_SPMV_FORMAT(cusparse_csr)
HS_SPMV_FORMAT(cusparse_sell)
#endif
