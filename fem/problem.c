#include <stdlib.h>

#include "hs_problem.h"
#include "hs_util.h"

hs_status hs_problem_create(const hs_mesh *mesh, const hs_stim_set *stim, const hs_problem_opts *opt,
                            hs_csr **pattern, hs_problem **out)
{
    *out = NULL;
    hs_problem *p = NULL;
    hs_status st = HS_OK;
    double *d_elem = NULL;
    unsigned char *marked = NULL;
    HS_CALL(HS_ALLOC(p, 1, "problem"));
    p->opt = *opt;
    /* regions that change every element alike: one row, the uniform path with its values */
    if (opt->regions && !opt->regions->elem_tab) p->opt.model_prm = opt->regions->tab[0].prm;
    p->mesh = mesh;
    p->stim = stim;
    /* D in mm^2 per model time unit: the element works in model time throughout (time_unit ms per unit).
     * The potential's scaling does not enter: the diffusion term is linear in u, so a normalised model
     * and one written in mV take the same D. Conductivities given in S/m (tissue.sigma_*) arrive here
     * already as D = sigma_m / (chi C_m) in mm^2/ms (app/hs_conductivity.h). */
    const hs_region_set *rg = opt->regions;
    if (rg && rg->elem_tab) {
        HS_CHECK_GOTO(rg->n_decoupled == 0 || opt->assembly == HS_ASSEMBLY_SPLIT ||
                          opt->scheme.kind == HS_SCHEME_SPLITTING, fail, HS_ERR_CONFIG,
                      "regions: non-conducting tissue (d_iso = d_ani = 0) needs solver.assembly = \"split\" (its "
                      "%d decoupled nodes are taken out of the system through K_D)", (int)rg->n_decoupled);
        HS_CALL_GOTO(HS_ALLOC(d_elem, 2 * (size_t)mesh->n_elems + 1, "element conductivities"), fail);
        for (int32_t e = 0; e < mesh->n_elems; ++e) {
            const hs_region_row *r = &rg->tab[rg->elem_tab[e]];
            d_elem[2 * (int64_t)e] = r->d_iso * opt->time_unit;
            d_elem[2 * (int64_t)e + 1] = r->d_ani * opt->time_unit;
        }
    }
    /* the split assembly's maps serve the Newton scheme only (the splitting scheme's matrices:
     * hs_split_matrices, frozen nodes there) */
    const int newton = opt->scheme.kind != HS_SCHEME_SPLITTING;
    const int split = opt->assembly == HS_ASSEMBLY_SPLIT && newton;
    const double di = (rg ? rg->tab[0].d_iso : opt->d_iso) * opt->time_unit,
                 da = (rg ? rg->tab[0].d_ani : opt->d_ani) * opt->time_unit;
    /* the split assembly reads the element matrices kd only into K_D: computed there in chunks, never
     * held whole (80 bytes per element; fem/hs_fem.h: kd NULL) */
    HS_CALL_GOTO(hs_fem_geom_create_opt(mesh, di, da, d_elem, !split, &p->geom), fail);
    if (pattern && *pattern) {
        HS_CHECK_GOTO((*pattern)->n_rows == mesh->n_nodes, fail, HS_ERR_INTERNAL,
                      "pattern of %d rows for a mesh of %d nodes", (*pattern)->n_rows, mesh->n_nodes);
        p->pattern = *pattern;
        *pattern = NULL;
    } else {
        HS_CALL_GOTO(hs_csr_from_tets(mesh->n_nodes, mesh->n_elems, mesh->tets, &p->pattern), fail);
    }
    if (split) {
        /* its own K lists from the mesh: no full K lists (16 entries per element, 4 (16 n_elems + nnz)
         * bytes, refused beyond 2^31/16 elements) */
        HS_CALL_GOTO(hs_assembly_map_create_r(mesh, p->pattern, &p->map), fail);
        const hs_kd_source src = {NULL, di, da, d_elem};
        HS_CALL_GOTO(hs_split_map_create_mesh(mesh, p->pattern, p->map, &src, &p->split), fail);
    } else {
        HS_CALL_GOTO(hs_assembly_map_create(mesh, p->pattern, &p->map), fail);
    }
    free(d_elem);
    d_elem = NULL;
    if (rg && rg->decoupled && newton) {
        /* A node no conducting element touches has an all-zero row in K_D and gets no km or rm, so
         * K would be singular there. A unit diagonal in K_D takes it out of the system: its row
         * reads K_ii = 1, R_i = u_i, so Newton sets u_i = 0 (the resting potential of every model,
         * checked below) and keeps it there; no other row couples to it (docs/verification.md). */
        HS_CHECK_GOTO(opt->model->potential_rest == 0.0, fail, HS_ERR_INTERNAL,
                      "model %s rests at %g, not 0: decoupled nodes would be pulled to 0", opt->model->name,
                      opt->model->potential_rest);
        HS_CALL_GOTO(HS_ALLOC(marked, (size_t)p->pattern->nnz + 1, "decoupled diagonals"), fail);
        for (int32_t i = 0; i < mesh->n_nodes; ++i) {
            if (!rg->decoupled[i]) continue;
            int32_t k = p->map->diag[i];
            p->split->kd_csr[k] = 1.0;
            marked[k] = 1;
        }
        for (int32_t q = 0; q < p->split->n_pairs; ++q) /* the pairs (i, i) of those nodes */
            if (p->split->p_pos[2 * (int64_t)q] == p->split->p_pos[2 * (int64_t)q + 1] &&
                marked[p->split->p_pos[2 * (int64_t)q]])
                p->split->kd_pair[q] = 1.0;
        free(marked);
        marked = NULL;
    }
    if (opt->scheme.kind == HS_SCHEME_SPLITTING) HS_CALL_GOTO(hs_nodal_create(p, &p->nodal), fail);
    *out = p;
    return HS_OK;
fail:
    free(d_elem);
    free(marked);
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
    hs_nodal_destroy(&(*p)->nodal);
    free(*p);
    *p = NULL;
}
