/* The names of the scheme choices (fem/hs_scheme.h). */
#include "hs_scheme.h"

#include <string.h>

#include "hs_model.h"

static const char *const k_schemes[] = {"newton", "splitting"};
static const char *const k_orders[] = {"godunov", "strang"};
static const char *const k_masses[] = {"consistent", "lumped"};

hs_scheme_kind hs_scheme_auto(unsigned model_schemes)
{
    return model_schemes & HS_MODEL_SCHEME_NEWTON ? HS_SCHEME_NEWTON : HS_SCHEME_SPLITTING;
}

const char *hs_scheme_name(hs_scheme_kind k) { return (unsigned)k < 2 ? k_schemes[k] : "(unknown)"; }
const char *hs_split_order_name(hs_split_order o) { return (unsigned)o < 2 ? k_orders[o] : "(unknown)"; }
const char *hs_mass_name(hs_mass_kind m) { return (unsigned)m < 2 ? k_masses[m] : "(unknown)"; }

/* The index of @p name among the two @p names, or HS_ERR_CONFIG naming the key and the choices. */
static hs_status lookup2(const char *key, const char *name, const char *const names[2], const char *what, int *out)
{
    for (int k = 0; k < 2; ++k)
        if (name && !strcmp(name, names[k])) {
            *out = k;
            return HS_OK;
        }
    return HS_FAIL(HS_ERR_CONFIG, "%s: unknown %s \"%s\"; available: %s, %s", key, what, name ? name : "(null)",
                   names[0], names[1]);
}

hs_status hs_scheme_lookup(const char *key, const char *name, hs_scheme_kind *out)
{
    int k = 0;
    HS_CALL(lookup2(key, name, k_schemes, "scheme", &k));
    *out = (hs_scheme_kind)k;
    return HS_OK;
}

hs_status hs_split_order_lookup(const char *key, const char *name, hs_split_order *out)
{
    int k = 0;
    HS_CALL(lookup2(key, name, k_orders, "splitting", &k));
    *out = (hs_split_order)k;
    return HS_OK;
}

hs_status hs_mass_lookup(const char *key, const char *name, hs_mass_kind *out)
{
    int k = 0;
    HS_CALL(lookup2(key, name, k_masses, "mass matrix", &k));
    *out = (hs_mass_kind)k;
    return HS_OK;
}
