/*
 * The CUDA backend's entry in the backend registry (backends/hs_backend_list.h): can it run here
 * (device 0 usable), what `solver.spmv = "auto"` means on it, and create.
 */
#include <cstdio>

#include "hs_cuda.h"
#include "hs_util.h"

static int cuda_probe(char *desc, size_t desc_len, char *why, size_t why_len)
{
    return hs_gpu_probe(desc, desc_len, why, why_len) > 0 ? 1 : 0;
}

/*
 * `solver.spmv = "auto"` on the GPU. The persistent CG (Chronopoulos-Gear with solver.persistent on,
 * or auto up to HS_CG_PERSISTENT_AUTO_ROWS rows) runs its own CSR SpMV through the format's slot
 * map: it gets the CSR slots themselves (csr_scalar), which read best; a trial would time kernels it
 * never runs. Otherwise every registered kernel is timed on this matrix (hs_gpu_spmv_trial), with
 * the CG's dot product y.x when the CG is Chronopoulos-Gear, and the fastest is taken.
 */
static hs_status cuda_choose_spmv(const hs_csr *pattern, const hs_problem_opts *opt, const hs_spmv_ops **out,
                                  char *why, size_t why_len)
{
    *out = NULL;
    why[0] = '\0';
    const int with_dot = opt->cg.variant == HS_CG_CHRONOPOULOS;
    const int persistent_cg =
        with_dot && (opt->persistent > 0 || (opt->persistent < 0 && pattern->n_rows <= HS_CG_PERSISTENT_AUTO_ROWS));
    if (persistent_cg) {
        *out = hs_spmv_find("csr_scalar");
        HS_CHECK(*out != NULL, HS_ERR_INTERNAL, "the csr_scalar kernel is not registered");
        snprintf(why, why_len, "auto -> csr_scalar (the persistent CG kernel of this %d-row system reads the "
                 "matrix in CSR order; solver.persistent = \"off\" for a timed trial)", pattern->n_rows);
        return HS_OK;
    }
    char times[3072];
    double t0 = hs_wtime();
    HS_CALL(hs_gpu_spmv_trial(pattern, &opt->spmv_params, 10, with_dot, out, times, sizeof times));
    snprintf(why, why_len, "auto -> %s (timed trial on this matrix in %.1f s, median of 10%s: %s)", (*out)->name,
             hs_wtime() - t0, with_dot ? ", each with the CG's dot product y.x" : "", times);
    return HS_OK;
}

extern "C" const hs_backend_entry hs_backend_cuda = {
    "cuda",
    "the whole time step resident on one NVIDIA GPU (device 0): element, assembly, Jacobi-PCG kernels",
    1,
    cuda_probe,
    cuda_choose_spmv,
    hs_backend_cuda_create,
};
