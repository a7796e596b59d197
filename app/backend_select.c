#include <string.h>

#include "hs_backend_select.h"
#include "hs_build_config.h"
#include "hs_util.h"
#if HS_HAS_CUDA
#include "hs_gpu.h"
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

hs_status hs_backend_create_kind(int use_cuda, const hs_problem *prob, hs_backend **out)
{
#if HS_HAS_CUDA
    if (use_cuda) return hs_backend_cuda_create(prob, out);
#else
    HS_CHECK(!use_cuda, HS_ERR_INTERNAL, "cuda backend requested in a build without CUDA");
#endif
    return hs_backend_cpu_create(prob, out);
}
