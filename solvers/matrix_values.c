/* The value precisions of solvers/hs_matrix_values_list.h as a registry (solver.matrix_values). */
#include <stdio.h>
#include <string.h>

#include "hs_spmv.h"
#include "hs_util.h"

static const hs_matrix_values_info k_kinds[] = {
#define HS_MATRIX_VALUES(enumerator, name, bytes, summary) [enumerator] = {name, enumerator, bytes, summary},
#include "hs_matrix_values_list.h"
#undef HS_MATRIX_VALUES
};

static const hs_registry k_registry = HS_REGISTRY_INIT("matrix value precision", k_kinds);

const hs_registry *hs_matrix_values_kinds(void) { return &k_registry; }

const char *hs_matrix_values_name(hs_matrix_values v)
{
    return v == HS_VALUES_AUTO ? "auto" : (size_t)v < k_registry.count ? k_kinds[v].name : "(unknown)";
}

int hs_matrix_values_bytes(hs_matrix_values v) { return (size_t)v < k_registry.count ? k_kinds[v].bytes : 8; }

hs_status hs_matrix_values_lookup(const char *key, const char *name, hs_matrix_values *out)
{
    const void *e = NULL;
    if (name && !strcmp(name, "auto")) {
        *out = HS_VALUES_AUTO;
        return HS_OK;
    }
    HS_CALL(hs_registry_lookup(&k_registry, key, name, "auto", &e));
    *out = ((const hs_matrix_values_info *)e)->kind;
    return HS_OK;
}

int hs_spmv_serves(const hs_spmv_ops *ops, hs_matrix_values v)
{
    if (!ops) return 0;
    if (v == HS_VALUES_AUTO) return 1; /* resolved to what the kernel serves */
    return v == HS_VALUES_F64 ? ops->apply_ref != NULL : ops->apply_ref_f32 != NULL;
}

hs_status hs_spmv_check_values(const char *key, const hs_spmv_ops *ops, hs_matrix_values v)
{
    if (hs_spmv_serves(ops, v)) return HS_OK;
    char list[512] = "";
    size_t len = 0;
    for (int i = 0; i < hs_spmv_count(); ++i) {
        const hs_spmv_ops *o = hs_spmv_get(i);
        if (!hs_spmv_serves(o, v)) continue;
        int w = snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", o->name);
        if (w < 0 || (size_t)w >= sizeof list - len) break;
        len += (size_t)w;
    }
    HS_CHECK(0, HS_ERR_CONFIG, "%s = \"%s\": the %s kernel stores %s values only; %s is served by: %s", key,
             hs_matrix_values_name(v), ops ? ops->name : "(none)", v == HS_VALUES_F32 ? "float64" : "float32",
             hs_matrix_values_name(v), list);
    return HS_ERR_CONFIG;
}

void hs_spmv_round_values(int64_t n, const double *v, float *out)
{
#pragma omp parallel for schedule(static) if (n > HS_OMP_MIN)
    for (int64_t k = 0; k < n; ++k) out[k] = (float)v[k];
}
