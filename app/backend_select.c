#include <stdio.h>
#include <string.h>

#include "hs_backend_select.h"
#include "hs_build_config.h"
#include "hs_util.h"
#if HS_HAS_CUDA
#include "hs_cuda.h"
#endif

hs_status hs_backend_choose(const char *name, int *use_cuda)
{
    *use_cuda = 0;
    int want_cuda = strcmp(name, "cuda") == 0, is_auto = strcmp(name, "auto") == 0;
    if (!want_cuda && !is_auto) return HS_OK;
#if HS_HAS_CUDA
    char dev[256], why[512];
    if (hs_gpu_probe(dev, sizeof dev, why, sizeof why) > 0) {
        if (is_auto) hs_log(1, "backend: auto -> cuda (%s)\n", dev);
        *use_cuda = 1;
        return HS_OK;
    }
    HS_CHECK(!want_cuda, HS_ERR_DEVICE,
             "solver.backend = \"cuda\" but no usable CUDA device: %s. Use solver.backend = \"cpu\" "
             "(or \"auto\")", why);
    hs_log(1, "backend: auto -> cpu (no usable CUDA device: %s)\n", why);
#else
    HS_CHECK(!want_cuda, HS_ERR_DEVICE,
             "solver.backend = \"cuda\" but this heartsim was built without CUDA (HS_HAS_CUDA = 0); "
             "rebuild with the CUDA toolkit or use solver.backend = \"cpu\"");
    hs_log(1, "backend: auto -> cpu (this build has no CUDA backend)\n");
#endif
    return HS_OK;
}

hs_status hs_spmv_choose(const char *name, int use_cuda, int with_dot, const hs_mesh *mesh,
                         const hs_spmv_params *prm, const hs_spmv_ops **out, char *why, size_t why_len)
{
    *out = NULL;
    why[0] = '\0';
#if HS_HAS_CUDA
    if (use_cuda && strcmp(name, "auto") == 0) {
        hs_csr *pat = NULL;
        HS_CALL(hs_csr_from_tets(mesh->n_nodes, mesh->n_elems, mesh->tets, &pat));
        char times[1024];
        double t0 = hs_wtime();
        hs_status st = hs_gpu_spmv_trial(pat, prm, 10, with_dot, out, times, sizeof times);
        hs_csr_destroy(&pat);
        HS_CALL(st);
        snprintf(why, why_len, "auto -> %s (timed trial on this matrix in %.1f s, median of 10%s: %s)", (*out)->name,
                 hs_wtime() - t0, with_dot ? ", each with the CG's dot product y.x" : "", times);
        return HS_OK;
    }
#else
    (void)use_cuda;
    (void)with_dot;
    (void)mesh;
    (void)prm;
#endif
    *out = hs_spmv_resolve(name, use_cuda, mesh->n_nodes, why, why_len);
    HS_CHECK(*out != NULL, HS_ERR_CONFIG, "solver.spmv: unknown kernel \"%s\"; available: auto, %s", name, hs_spmv_names());
    return HS_OK;
}

hs_status hs_backend_create_kind(int use_cuda, const hs_problem *prob, hs_backend **out)
{
#if HS_HAS_CUDA
    if (use_cuda) return hs_backend_cuda_create(prob, out);
#else
    HS_CHECK(!use_cuda, HS_ERR_INTERNAL, "cuda backend requested in a build without CUDA");
#endif
    return hs_backend_cpu_create(prob, out);
}
