/* The step modes of fem/hs_step_mode_list.h (solver.step) and the transports of fem/hs_transport_list.h
 * (parallel.transport) as registries, and the execution plan's request helpers (fem/hs_exec_plan.h). */
#include <string.h>

#include "hs_exec_plan.h"
#include "hs_util.h"

static const hs_step_mode_info k_modes[] = {
#define HS_STEP_MODE(enumerator, name, summary) [enumerator] = {name, enumerator, summary},
#include "hs_step_mode_list.h"
#undef HS_STEP_MODE
};

static const hs_registry k_registry = HS_REGISTRY_INIT("step mode", k_modes);

const hs_registry *hs_step_modes(void) { return &k_registry; }

const char *hs_step_mode_name(hs_step_mode m)
{
    return m == HS_STEP_AUTO ? "auto" : (size_t)m < k_registry.count ? k_modes[m].name : "(unknown)";
}

hs_status hs_step_mode_lookup(const char *key, const char *name, hs_step_mode *out)
{
    const void *e = NULL;
    if (name && !strcmp(name, "auto")) {
        *out = HS_STEP_AUTO;
        return HS_OK;
    }
    HS_CALL(hs_registry_lookup(&k_registry, key, name, "auto", &e));
    *out = ((const hs_step_mode_info *)e)->mode;
    return HS_OK;
}

static const hs_transport_info k_transports[] = {
#define HS_TRANSPORT(enumerator, name, summary) [enumerator - 1] = {name, enumerator, summary},
#include "hs_transport_list.h"
#undef HS_TRANSPORT
};

static const hs_registry k_transport_registry = HS_REGISTRY_INIT("transport", k_transports);

const hs_registry *hs_transports(void) { return &k_transport_registry; }

const char *hs_transport_name(hs_transport t)
{
    return t == HS_TRANSPORT_AUTO                           ? "auto"
           : t >= 1 && (size_t)t <= k_transport_registry.count ? k_transports[t - 1].name
                                                             : "(unknown)";
}

hs_status hs_transport_lookup(const char *key, const char *name, hs_transport *out)
{
    const void *e = NULL;
    if (name && !strcmp(name, "auto")) {
        *out = HS_TRANSPORT_AUTO;
        return HS_OK;
    }
    HS_CALL(hs_registry_lookup(&k_transport_registry, key, name, "auto", &e));
    *out = ((const hs_transport_info *)e)->transport;
    return HS_OK;
}

hs_exec_plan hs_exec_plan_request(hs_step_mode step, int persistent, hs_matrix_values values, const hs_spmv_ops *spmv)
{
    hs_exec_plan p;
    memset(&p, 0, sizeof p);
    p.step = step;
    p.persistent_cg = persistent;
    p.values = values;
    p.spmv = spmv;
    return p;
}

int hs_exec_plan_resolved(const hs_exec_plan *p)
{
    return p->step != HS_STEP_AUTO && (size_t)p->step < k_registry.count && p->persistent_cg != HS_PERSISTENT_AUTO &&
           p->values != HS_VALUES_AUTO && p->spmv != NULL;
}
