/* The ionic-model registry: every model of hs_model_list.h, in list order (hs_models.h). */
#define HS_MODEL_DEFINE
#include "hs_models.h"

#include "hs_model_point.h" /* the model headers, with their descriptors (HS_MODEL_DEFINE) */

/* hs_registry wants entries that start with the name: a table of pointers does not, so wrap. */
typedef struct model_entry {
    const char *name;
    const hs_model *model;
} model_entry;

static const model_entry entries[] = {
#define HS_MODEL(id) {#id, &hs_model_##id},
#include "hs_model_list.h"
#undef HS_MODEL
};

hs_registry hs_models_registry(void)
{
    return HS_REGISTRY("ionic model", entries);
}

int hs_models_count(void) { return (int)(sizeof entries / sizeof entries[0]); }

const hs_model *hs_models_at(int i) { return i >= 0 && i < hs_models_count() ? entries[i].model : NULL; }

const hs_model *hs_models_find(const char *name)
{
    hs_registry r = hs_models_registry();
    const model_entry *e = hs_registry_find(&r, name);
    return e ? e->model : NULL;
}

hs_status hs_models_lookup(const char *key, const char *name, const hs_model **out)
{
    *out = NULL;
    hs_registry r = hs_models_registry();
    const void *e = NULL;
    HS_CALL(hs_registry_lookup(&r, key, name, NULL, &e));
    *out = ((const model_entry *)e)->model;
    return HS_OK;
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
