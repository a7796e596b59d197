/* The assembly methods of fem/hs_assembly_list.h as a registry (solver.assembly). */
#include "hs_assembly.h"

static const hs_assembly_info k_kinds[] = {
#define HS_ASSEMBLY(enumerator, name, summary, ref) [enumerator] = {name, enumerator, summary, ref},
#include "hs_assembly_list.h"
#undef HS_ASSEMBLY
};

static const hs_registry k_registry = HS_REGISTRY_INIT("assembly method", k_kinds);

const hs_registry *hs_assemblies(void) { return &k_registry; }

const char *hs_assembly_name(hs_assembly_kind k)
{
    return (size_t)k < k_registry.count ? k_kinds[k].name : "(unknown)";
}

hs_status hs_assembly_lookup(const char *key, const char *name, hs_assembly_kind *out)
{
    const void *e = NULL;
    HS_CALL(hs_registry_lookup(&k_registry, key, name, NULL, &e));
    *out = ((const hs_assembly_info *)e)->kind;
    return HS_OK;
}
