// Device side of the SpMV registry: the X-macro list (solvers/hs_spmv_list.h) expanded into a
// table of device ops, so every listed format must define `hs_gpu_spmv_ops_<id>` in its
// backends/cuda/spmv/<format>.cu or the link fails; plus the bound create/destroy pair.
#include <stdlib.h>
#include <string.h>

#include "hs_build_config.h"
#include "hs_gpu_spmv.cuh"
#include "hs_util.h"

#define HS_SPMV_FORMAT(id) extern const hs_gpu_spmv_ops hs_gpu_spmv_ops_##id;
#include "hs_spmv_list.h"
#undef HS_SPMV_FORMAT

static const hs_gpu_spmv_ops *const g_gpu_formats[] = {
#define HS_SPMV_FORMAT(id) &hs_gpu_spmv_ops_##id,
#include "hs_spmv_list.h"
#undef HS_SPMV_FORMAT
};

/* both tables expand the same list, so the host entry's position is the device entry's (the name
 * agreeing is tests/backends/cuda/test_gpu_spmv.cu's check) */
const hs_gpu_spmv_ops *hs_gpu_spmv_of(const hs_spmv_ops *ops)
{
    const int i = hs_spmv_index(ops);
    return i >= 0 && (size_t)i < sizeof g_gpu_formats / sizeof g_gpu_formats[0] ? g_gpu_formats[i] : NULL;
}

hs_status hs_gpu_spmv_create(const hs_spmv_layout *lay, const hs_csr *pattern, const double *d_vals,
                             hs_gpu_spmv **out)
{
    return hs_gpu_spmv_create_values(lay, pattern, d_vals, HS_VALUES_F64, out);
}

hs_status hs_gpu_spmv_create_values(const hs_spmv_layout *lay, const hs_csr *pattern, const void *d_vals,
                                    hs_matrix_values v, hs_gpu_spmv **out)
{
    *out = NULL;
    HS_CHECK(lay && lay->ops && pattern, HS_ERR_INTERNAL, "device SpMV needs a layout and its pattern");
    const hs_gpu_spmv_ops *ops = hs_gpu_spmv_of(lay->ops);
    HS_CHECK(ops && ops->create && ops->apply && ops->destroy, HS_ERR_INTERNAL,
             "SpMV format \"%s\" has no device kernels in this build", lay->ops->name);
    /* the execution plan gives float32 only to a kernel that serves it (hs_spmv_serves: the host's
     * apply_ref_f32 exists exactly where create_f32 does); this guards the pointer */
    HS_CHECK(v == HS_VALUES_F64 || ops->create_f32, HS_ERR_INTERNAL, "the %s kernel has no float32 variant",
             ops->name);
    HS_CHECK(lay->n_rows == pattern->n_rows, HS_ERR_INTERNAL,
             "SpMV layout has %d rows but the pattern %d", (int)lay->n_rows, (int)pattern->n_rows);
    hs_gpu_spmv *s = NULL;
    HS_CALL(HS_ALLOC(s, 1, "device SpMV"));
    s->ops = ops;
    hs_status st = v == HS_VALUES_F32 ? ops->create_f32(lay, pattern, (const float *)d_vals, &s->impl)
                                      : ops->create(lay, pattern, (const double *)d_vals, &s->impl);
    if (st != HS_OK) {
        free(s); /* create cleans up its own partial impl */
        return st;
    }
    *out = s;
    return HS_OK;
}

void hs_gpu_spmv_destroy(hs_gpu_spmv **p)
{
    if (!p || !*p) return;
    if ((*p)->ops && (*p)->impl) (*p)->ops->destroy((*p)->impl);
    free(*p);
    *p = NULL;
}
