/* The state descriptor and host states (hs_state.h). */
#include "hs_state.h"

#include <stdlib.h>
#include <string.h>

#include "hs_util.h"

void hs_state_desc_init(hs_state_desc *d, const hs_model *model, int32_t n_nodes, int32_t n_elems)
{
    hs_state_desc_init_scheme(d, model, HS_SCHEME_NEWTON, n_nodes, n_elems);
}

void hs_state_desc_init_scheme(hs_state_desc *d, const hs_model *model, hs_scheme_kind scheme, int32_t n_nodes,
                               int32_t n_elems)
{
    memset(d, 0, sizeof *d);
    d->n_nodes = n_nodes;
    d->n_elems = n_elems;
    int k = 0;
    d->f[k++] = (hs_field_desc){model->potential_name, model->potential_unit, HS_AT_NODE, model->potential_rest};
    for (int v = 0; v < model->n_vars; ++v)
        d->f[k++] = (hs_field_desc){model->vars[v].name, model->vars[v].unit, scheme == HS_SCHEME_SPLITTING ? HS_AT_NODE : model->vars[v].where,
                                    model->vars[v].initial};
    d->activation = k;
    d->f[k++] = (hs_field_desc){"activation", "ms", HS_AT_NODE, -1.0};
    d->f[k++] = (hs_field_desc){"repolarisation", "ms", HS_AT_NODE, -1.0};
    d->f[k++] = (hs_field_desc){"apd", "ms", HS_AT_NODE, -1.0};
    d->f[k++] = (hs_field_desc){"beats", "1", HS_AT_NODE, 0.0};
    d->n_fields = k;
}

size_t hs_state_field_len(const hs_state_desc *d, int k)
{
    return (size_t)(d->f[k].where == HS_AT_NODE ? d->n_nodes : d->n_elems);
}

int hs_state_find(const hs_state_desc *d, const char *name)
{
    for (int k = 0; k < d->n_fields; ++k)
        if (strcmp(d->f[k].name, name) == 0) return k;
    return -1;
}

hs_status hs_state_create(const hs_state_desc *desc, hs_state *s)
{
    memset(s, 0, sizeof *s);
    s->desc = desc;
    for (int k = 0; k < desc->n_fields; ++k) {
        size_t n = hs_state_field_len(desc, k);
        hs_status st = HS_ALLOC(s->field[k], n + 1, desc->f[k].name);
        if (st != HS_OK) {
            hs_state_destroy(s);
            return st;
        }
        for (size_t i = 0; i < n; ++i) s->field[k][i] = desc->f[k].initial;
    }
    return HS_OK;
}

hs_status hs_state_ensure(hs_state *s)
{
    for (int k = 0; k < s->desc->n_fields; ++k)
        if (s->field[k]) return HS_OK;
    return hs_state_create(s->desc, s);
}

void hs_state_destroy(hs_state *s)
{
    for (int k = 0; k < HS_STATE_MAX_FIELDS; ++k) HS_FREE(s->field[k]);
}

hs_status hs_state_check(const hs_state_desc *d, const hs_state *s)
{
    HS_CHECK(!s->desc || (s->desc->n_fields == d->n_fields && s->desc->n_nodes == d->n_nodes &&
                          s->desc->n_elems == d->n_elems),
             HS_ERR_INTERNAL, "a state of %d fields on %d nodes and %d elements, for one of %d fields on %d and %d",
             s->desc->n_fields, s->desc->n_nodes, s->desc->n_elems, d->n_fields, d->n_nodes, d->n_elems);
    return HS_OK;
}
