#include <stdlib.h>

#include "hs_problem.h"
#include "hs_util.h"

hs_status hs_problem_create(const hs_mesh *mesh, const hs_stim_set *stim, const hs_problem_opts *opt,
                            hs_csr **pattern, hs_problem **out)
{
    *out = NULL;
    hs_problem *p = NULL;
    hs_status st = HS_OK;
    HS_CALL(HS_ALLOC(p, 1, "problem"));
    p->opt = *opt;
    p->mesh = mesh;
    p->stim = stim;
    /* D in mm^2 per model time unit: the element works in model time throughout */
    HS_CALL_GOTO(hs_fem_geom_create(mesh, opt->d_iso * opt->time_unit, opt->d_ani * opt->time_unit,
                                    &p->geom), fail);
    if (pattern && *pattern) {
        HS_CHECK_GOTO((*pattern)->n_rows == mesh->n_nodes, fail, HS_ERR_INTERNAL,
                      "pattern of %d rows for a mesh of %d nodes", (*pattern)->n_rows, mesh->n_nodes);
        p->pattern = *pattern;
        *pattern = NULL;
    } else {
        HS_CALL_GOTO(hs_csr_from_tets(mesh->n_nodes, mesh->n_elems, mesh->tets, &p->pattern), fail);
    }
    HS_CALL_GOTO(hs_assembly_map_create(mesh, p->pattern, &p->map), fail);
    if (opt->assembly == HS_ASSEMBLY_SPLIT)
        HS_CALL_GOTO(hs_split_map_create(p->pattern, p->map, p->geom->kd, &p->split), fail);
    *out = p;
    return HS_OK;
fail:
    hs_problem_destroy(&p);
    return st;
}

void hs_problem_destroy(hs_problem **p)
{
    if (!p || !*p) return;
    hs_fem_geom_destroy(&(*p)->geom);
    hs_csr_destroy(&(*p)->pattern);
    hs_assembly_map_destroy(&(*p)->map);
    hs_split_map_destroy(&(*p)->split);
    free(*p);
    *p = NULL;
}
