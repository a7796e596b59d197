/* The backend registry (hs_backends.h): backends/hs_backend_list.h expanded into one table. */
#include "hs_backends.h"

#include <stdio.h>
#include <string.h>

#include "hs_build_config.h"
#include "hs_util.h"

#define HS_BACKEND(id) extern const hs_backend_entry hs_backend_##id;
#include "hs_backend_list.h"
#undef HS_BACKEND

/* the entries live in their backends' files: the registry names them (hs_registry_ref) */
static const hs_registry_ref table[] = {
#define HS_BACKEND(id) {#id, &hs_backend_##id},
#include "hs_backend_list.h"
#undef HS_BACKEND
};
static const hs_registry registry = HS_REGISTRY_INIT("backend", table);

const hs_registry *hs_backends_registry(void) { return &registry; }

const hs_backend_entry *hs_backends_find(const char *name)
{
    return hs_registry_find_ref(&registry, name);
}

hs_status hs_backends_lookup(const char *key, const char *name, const hs_backend_entry **out)
{
    *out = NULL;
    HS_CHECK(strcmp(name, "cuda") != 0 || hs_registry_find(&registry, name), HS_ERR_DEVICE,
             "%s = \"cuda\" but this heartsim was built without CUDA (HS_HAS_CUDA = 0); rebuild with the CUDA "
             "toolkit or use %s = \"cpu\"", key, key);
    return hs_registry_lookup_ref(&registry, key, name, "auto", (const void **)out);
}

hs_status hs_backends_auto(const hs_backend_entry **out)
{
    *out = NULL;
    char desc[256], why[512];
    /* the first device backend that can run here, else the first host one (cpu) */
    const hs_backend_entry *host = NULL;
    char reasons[1024] = "";
    size_t o = 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
        const hs_backend_entry *e = table[i].entry;
        if (!e->needs_device) {
            if (!host) host = e;
            continue;
        }
        if (e->probe(desc, sizeof desc, why, sizeof why)) {
            hs_log(1, "backend: auto -> %s (%s)\n", e->name, desc);
            *out = e;
            return HS_OK;
        }
        if (o < sizeof reasons)
            o += (size_t)snprintf(reasons + o, sizeof reasons - o, "%s%s", o ? "; " : "", why);
    }
    HS_CHECK(host != NULL, HS_ERR_INTERNAL, "no host backend is registered");
    if (o) hs_log(1, "backend: auto -> %s: %s; the %s backend runs\n", host->name, reasons, host->name);
    else hs_log(1, "backend: auto -> %s (this build has no CUDA backend)\n", host->name);
    *out = host;
    return HS_OK;
}
