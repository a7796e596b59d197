/* The ionic-model registry: every model of hs_model_list.h, in list order (hs_models.h). */
#define HS_MODEL_DEFINE
#include "hs_models.h"

#include "hs_model_point.h" /* the model headers, with their descriptors (HS_MODEL_DEFINE) */

static const hs_registry_ref entries[] = {
#define HS_MODEL(id) {#id, &hs_model_##id},
#include "hs_model_list.h"
#undef HS_MODEL
};
static const hs_registry registry = HS_REGISTRY_INIT("ionic model", entries);

int hs_models_count(void) { return (int)(sizeof entries / sizeof entries[0]); }

const hs_model *hs_models_at(int i) { return i >= 0 && i < hs_models_count() ? entries[i].entry : NULL; }

const hs_model *hs_models_find(const char *name)
{
    return hs_registry_find_ref(&registry, name);
}

hs_status hs_models_lookup(const char *key, const char *name, const hs_model **out)
{
    *out = NULL;
    return hs_registry_lookup_ref(&registry, key, name, NULL, (const void **)out);
}

void hs_model_params_defaults(const hs_model *m, hs_model_params *p)
{
    memset(p, 0, sizeof *p);
    p->id = m->id;
    p->n_vars = m->n_vars;
    for (int k = 0; k < m->n_params; ++k) p->v[k] = m->params[k].def;
}

int hs_model_param_index(const hs_model *m, const char *name)
{
    for (int k = 0; k < m->n_params; ++k)
        if (strcmp(m->params[k].name, name) == 0) return k;
    return -1;
}
