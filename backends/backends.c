/* The backend registry (hs_backends.h): backends/hs_backend_list.h expanded into one table. */
#include "hs_backends.h"

#include <stdio.h>
#include <string.h>

#include "hs_build_config.h"
#include "hs_util.h"

#define HS_BACKEND(id) extern const hs_backend_entry hs_backend_##id;
#include "hs_backend_list.h"
#undef HS_BACKEND

static const hs_backend_entry *const list[] = {
#define HS_BACKEND(id) &hs_backend_##id,
#include "hs_backend_list.h"
#undef HS_BACKEND
};

/* hs_registry wants entries that start with the name: the entries live in their backends' files,
 * so the table holds (name, entry) pairs filled from them. */
typedef struct named {
    const char *name;
    const hs_backend_entry *entry;
} named;

static const named table[] = {
#define HS_BACKEND(id) {#id, &hs_backend_##id},
#include "hs_backend_list.h"
#undef HS_BACKEND
};

hs_registry hs_backends_registry(void) { return HS_REGISTRY("backend", table); }

const hs_backend_entry *hs_backends_find(const char *name)
{
    hs_registry r = hs_backends_registry();
    const named *e = hs_registry_find(&r, name);
    return e ? e->entry : NULL;
}

hs_status hs_backends_lookup(const char *key, const char *name, const hs_backend_entry **out)
{
    *out = NULL;
    hs_registry r = hs_backends_registry();
    HS_CHECK(strcmp(name, "cuda") != 0 || hs_registry_find(&r, name), HS_ERR_DEVICE,
             "%s = \"cuda\" but this heartsim was built without CUDA (HS_HAS_CUDA = 0); rebuild with the CUDA "
             "toolkit or use %s = \"cpu\"", key, key);
    const void *found = NULL;
    HS_CALL(hs_registry_lookup(&r, key, name, "auto", &found));
    *out = ((const named *)found)->entry;
    return HS_OK;
}

hs_status hs_backends_auto(const hs_backend_entry **out)
{
    *out = NULL;
    char desc[256], why[512];
    /* the first device backend that can run here, else the first host one (cpu) */
    const hs_backend_entry *host = NULL;
    char reasons[1024] = "";
    size_t o = 0;
    for (size_t i = 0; i < sizeof list / sizeof list[0]; ++i) {
        const hs_backend_entry *e = list[i];
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
            o += (size_t)snprintf(reasons + o, sizeof reasons - o, "%sno usable %s device: %s", o ? "; " : "", e->name,
                                  why);
    }
    HS_CHECK(host != NULL, HS_ERR_INTERNAL, "no host backend is registered");
    if (o) hs_log(1, "backend: auto -> %s (%s)\n", host->name, reasons);
    else hs_log(1, "backend: auto -> %s (this build has no CUDA backend)\n", host->name);
    *out = host;
    return HS_OK;
}
