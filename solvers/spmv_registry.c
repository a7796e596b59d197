/* The SpMV registry: the X-macro list expanded into a table, lookup by name, layout helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_build_config.h"
#include "hs_spmv.h"
#include "hs_util.h"

#define HS_SPMV_FORMAT(id) extern const hs_spmv_ops hs_spmv_ops_##id;
#include "hs_spmv_list.h"
#undef HS_SPMV_FORMAT

static const hs_spmv_ops *const g_formats[] = {
#define HS_SPMV_FORMAT(id) &hs_spmv_ops_##id,
#include "hs_spmv_list.h"
#undef HS_SPMV_FORMAT
};

int hs_spmv_count(void) { return (int)(sizeof g_formats / sizeof g_formats[0]); }

const hs_spmv_ops *hs_spmv_get(int i)
{
    return (i >= 0 && i < hs_spmv_count()) ? g_formats[i] : NULL;
}

const hs_spmv_ops *hs_spmv_find(const char *name)
{
    if (!name) return NULL;
    for (int i = 0; i < hs_spmv_count(); ++i)
        if (strcmp(g_formats[i]->name, name) == 0) return g_formats[i];
    return NULL;
}

const char *hs_spmv_names(void)
{
    static char buf[1024];
    if (buf[0]) return buf;
    size_t len = 0;
    for (int i = 0; i < hs_spmv_count() && len < sizeof buf; ++i)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? ", " : "", g_formats[i]->name);
    return buf;
}

const hs_spmv_ops *hs_spmv_resolve(const char *name, int on_device, int64_t n_rows, char *why,
                                   size_t why_len)
{
    if (why_len) why[0] = '\0';
    if (!name || strcmp(name, "auto") != 0) return hs_spmv_find(name);
    const hs_spmv_ops *o = NULL;
    if (on_device && n_rows >= 500000 && (o = hs_spmv_find("cusparse_csr")) != NULL) {
        snprintf(why, why_len, "auto -> cusparse_csr (%lld rows >= 500K: the vendor CSR is fastest at this size)",
                 (long long)n_rows);
    } else {
        o = hs_spmv_find("csr_scalar");
        snprintf(why, why_len, "auto -> csr_scalar (%s)",
                 on_device ? "fewer than 500K rows: a row per thread beats cuSPARSE here"
                           : "cpu backend: the plain row loop");
    }
    return o;
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
