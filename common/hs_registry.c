/* Lookup by name in a table of entries (hs_registry.h). */
#include "hs_registry.h"

#include <stdio.h>
#include <string.h>

const void *hs_registry_at(const hs_registry *r, size_t i)
{
    return (const char *)r->items + i * r->stride;
}

const char *hs_registry_name(const hs_registry *r, size_t i)
{
    return *(const char *const *)hs_registry_at(r, i);
}

const void *hs_registry_find(const hs_registry *r, const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < r->count; ++i)
        if (strcmp(hs_registry_name(r, i), name) == 0) return hs_registry_at(r, i);
    return NULL;
}

const char *hs_registry_names(const hs_registry *r, char *buf, size_t len)
{
    size_t o = 0;
    if (!len) return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < r->count; ++i) {
        int n = snprintf(buf + o, len - o, "%s%s", i ? ", " : "", hs_registry_name(r, i));
        if (n < 0 || (size_t)n >= len - o) {
            if (len >= 4) memcpy(buf + len - 4, "...", 4);
            break;
        }
        o += (size_t)n;
    }
    return buf;
}

hs_status hs_registry_lookup(const hs_registry *r, const char *key, const char *name, const char *extra,
                             const void **out)
{
    *out = hs_registry_find(r, name);
    if (*out) return HS_OK;
    char names[1024];
    return HS_FAIL(HS_ERR_CONFIG, "%s: unknown %s \"%s\"; available: %s%s%s", key, r->what, name ? name : "(none)",
                   extra ? extra : "", extra && r->count ? ", " : "", hs_registry_names(r, names, sizeof names));
}

const void *hs_registry_find_ref(const hs_registry *r, const char *name)
{
    const hs_registry_ref *e = hs_registry_find(r, name);
    return e ? e->entry : NULL;
}

hs_status hs_registry_lookup_ref(const hs_registry *r, const char *key, const char *name, const char *extra,
                                 const void **out)
{
    const void *e = NULL;
    hs_status st = hs_registry_lookup(r, key, name, extra, &e);
    *out = e ? ((const hs_registry_ref *)e)->entry : NULL;
    return st;
}
