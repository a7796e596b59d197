/* The SpMV registry: the X-macro list expanded into a table looked up with hs_registry, and the
 * layout helpers. */
#include <stdlib.h>
#include <string.h>

#include "hs_build_config.h"
#include "hs_registry.h"
#include "hs_spmv.h"
#include "hs_util.h"

#define HS_SPMV_FORMAT(id) extern const hs_spmv_ops hs_spmv_ops_##id;
#include "hs_spmv_list.h"
#undef HS_SPMV_FORMAT

/* The registry's entries: each format's ops live in its own file (solvers/spmv_<format>.c), so an
 * entry names them (hs_registry_ref). The name is the list's identifier, which is the format's
 * config name (ops->name; the registry test checks that the two agree). Pointers, not copies: code
 * compares layout ops with hs_spmv_find. */
static const hs_registry_ref k_formats[] = {
#define HS_SPMV_FORMAT(id) {#id, &hs_spmv_ops_##id},
#include "hs_spmv_list.h"
#undef HS_SPMV_FORMAT
};

static const hs_registry k_registry = HS_REGISTRY_INIT("kernel", k_formats);

int hs_spmv_count(void) { return (int)k_registry.count; }

const hs_spmv_ops *hs_spmv_get(int i)
{
    return (i >= 0 && i < hs_spmv_count()) ? k_formats[i].entry : NULL;
}

int hs_spmv_index(const hs_spmv_ops *ops)
{
    for (int i = 0; i < hs_spmv_count(); ++i)
        if (k_formats[i].entry == ops) return i;
    return -1;
}

const hs_spmv_ops *hs_spmv_find(const char *name)
{
    return hs_registry_find_ref(&k_registry, name);
}

const char *hs_spmv_names(void)
{
    static char buf[1024];
    if (!buf[0]) hs_registry_names(&k_registry, buf, sizeof buf);
    return buf;
}

hs_status hs_spmv_lookup(const char *key, const char *name, const char *extra, const hs_spmv_ops **out)
{
    return hs_registry_lookup_ref(&k_registry, key, name, extra, (const void **)out);
}

hs_spmv_params hs_spmv_params_default(void)
{
    hs_spmv_params p = {.block_size = 256, .ellwarp_threshold = 32, .pcsr_padding = 4, .pcsr_prefetch = 4};
    return p;
}

hs_status hs_spmv_layout_create(const hs_spmv_ops *ops, const hs_csr *pattern, const hs_spmv_params *prm,
                                hs_spmv_layout **out)
{
    *out = NULL;
    hs_spmv_layout *lay = NULL;
    HS_CALL(HS_ALLOC(lay, 1, "SpMV layout"));
    lay->ops = ops;
    lay->params = prm ? *prm : hs_spmv_params_default();
    lay->n_rows = pattern->n_rows;
    hs_status st = ops->setup(pattern, lay);
    if (st != HS_OK) {
        hs_spmv_layout_destroy(&lay);
        return st;
    }
    *out = lay;
    return HS_OK;
}

void hs_spmv_layout_scatter(const hs_spmv_layout *lay, int32_t nnz, const double *csr_val,
                            double *vals_fmt)
{
    memset(vals_fmt, 0, sizeof(double) * (size_t)lay->n_slots);
    for (int32_t k = 0; k < nnz; ++k) vals_fmt[lay->slot_of_nnz[k]] = csr_val[k];
}

void hs_spmv_layout_destroy(hs_spmv_layout **p)
{
    if (!p || !*p) return;
    if ((*p)->ops && (*p)->ops->destroy) (*p)->ops->destroy(*p);
    free((*p)->slot_of_nnz);
    free(*p);
    *p = NULL;
}
