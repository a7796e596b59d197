/* A distributed run whose ranks make their own parts of the mesh (hs_mesh_part.h): the "box"
 * partition, each rank generating its block of the structured box. No rank holds the whole mesh or
 * any array over its nodes or elements. */
#include "hs_mesh_part.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_build_config.h"
#include "hs_hash.h"
#include "hs_par.h"
#include "hs_partition.h"
#include "hs_sim.h"
#include "hs_util.h"
#if HS_HAS_MPI
#include "hs_backend_mpi.h"
#endif

int hs_mesh_part_box_fits(const hs_mesh_spec *spec)
{
    return spec->source && !strcmp(spec->source->name, "box") && !spec->box.use_tetgen &&
           (spec->fibers == HS_FIBERS_AUTO || spec->fibers == HS_FIBERS_CONSTANT);
}

const char *hs_mesh_part_box_unfit(const hs_sim_spec *spec)
{
    if (!hs_mesh_part_box_fits(&spec->mesh))
        return "its ranks generate blocks of the structured mesh.source = \"box\" (not TetGen's) with constant fibres";
    for (int k = 0; k < spec->n_stimuli; ++k)
        if (spec->stimuli[k].shape != HS_STIM_BOX && spec->stimuli[k].shape != HS_STIM_SPHERE)
            return "stimulus sites other than shape = \"box\" or \"sphere\" are found on the whole mesh";
    if (spec->n_regions > 0) return "regions are found on the whole mesh";
    if (spec->n_probes > 0 || spec->n_electrodes > 0) return "probes and ECG electrodes are found on the whole mesh";
    int multi = spec->n_stimuli > 1;
    for (int k = 0; k < spec->n_stimuli; ++k) multi |= spec->stimuli[k].count > 1;
    if (multi && spec->output_enabled) return "per-beat maps (several beats with output on) are written on the whole mesh";
    if (spec->spmv && spec->spmv->node_order) return "a solver.spmv format with its own node order renumbers the whole mesh";
    return NULL;
}

const hs_partitioner *hs_mesh_part_auto(const hs_sim_spec *spec)
{
    const hs_partitioner *p = NULL;
    if (!hs_mesh_part_box_unfit(spec) && spec->mesh.reorder == HS_REORDER_NONE &&
        hs_partitioner_lookup("parallel.partition", "box", &p) == HS_OK)
        return p;
    hs_error_clear();
    if (hs_partitioner_lookup("parallel.partition", "metis", &p) == HS_OK) return p;
    hs_error_clear();
    return hs_registry_find(hs_partitioners(), "rows");
}

/* hs_mesh_fingerprint of the whole box (hs_mesh_create_box, constant fibres @p f), generated and
 * hashed a layer at a time: FNV-1a reads bytes in order, so hashing consecutive pieces is hashing
 * the whole array. Coordinates, vertices and fibres as create_structured and
 * hs_mesh_set_fibers_constant make them (bit for bit). */
static uint64_t box_fingerprint(const hs_box_params *p, const int64_t n[3], const double f[3])
{
    static const int perm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    static const int sign[6] = {+1, +1, +1, -1, -1, -1};
    const int64_t sx = n[0] + 1, sxy = (n[0] + 1) * (n[1] + 1);
    int64_t nn = sxy * (n[2] + 1), ne = 6 * n[0] * n[1] * n[2];
    uint64_t h = HS_FNV_OFFSET;
    h = hs_fnv1a64(h, &nn, sizeof nn);
    h = hs_fnv1a64(h, &ne, sizeof ne);
    for (int64_t k = 0; k <= n[2]; ++k)
        for (int64_t j = 0; j <= n[1]; ++j)
            for (int64_t i = 0; i <= n[0]; ++i) {
                const double x[3] = {i == n[0] ? p->lx : p->lx * (double)i / (double)n[0],
                                     j == n[1] ? p->ly : p->ly * (double)j / (double)n[1],
                                     k == n[2] ? p->lz : p->lz * (double)k / (double)n[2]};
                h = hs_fnv1a64(h, x, sizeof x);
            }
    const int64_t step[3] = {1, sx, sxy};
    for (int64_t k = 0; k < n[2]; ++k)
        for (int64_t j = 0; j < n[1]; ++j)
            for (int64_t i = 0; i < n[0]; ++i) {
                const int64_t v0 = i + sx * j + sxy * k;
                int32_t t[24];
                for (int s = 0; s < 6; ++s) {
                    const int64_t v1 = v0 + step[perm[s][0]], v2 = v1 + step[perm[s][1]];
                    t[4 * s] = (int32_t)v0;
                    t[4 * s + 1] = (int32_t)(sign[s] > 0 ? v1 : v2);
                    t[4 * s + 2] = (int32_t)(sign[s] > 0 ? v2 : v1);
                    t[4 * s + 3] = (int32_t)(v0 + 1 + sx + sxy);
                }
                h = hs_fnv1a64(h, t, sizeof t);
            }
    for (int64_t e = 0; e < ne; ++e) h = hs_fnv1a64(h, f, 3 * sizeof(double));
    return h;
}

/* A set of the sites alone (no element): what the time loop reads of sim->stim (their amplitudes). */
static hs_status sites_only(const hs_stimulus_cfg *sites, int n, hs_stim_set **out)
{
    hs_status st = HS_OK;
    hs_stim_set *s = NULL;
    HS_CALL(HS_ALLOC(s, 1, "stimulus sites"));
    s->n_sites = n;
    HS_CALL_GOTO(HS_ALLOC(s->site, (size_t)n + 1, "stimulus sites"), fail);
    HS_CALL_GOTO(HS_ALLOC(s->elem_ptr, (size_t)n + 1, "stimulus sites"), fail);
    HS_CALL_GOTO(HS_ALLOC(s->elem, 1, "stimulus sites"), fail);
    if (n) memcpy(s->site, sites, sizeof *sites * (size_t)n);
    *out = s;
    return HS_OK;
fail:
    hs_stim_set_destroy(&s);
    return st;
}

#if HS_HAS_MPI
/* This rank's part, its view and local mesh (in the view's numbering). */
static hs_status make_part(const hs_mesh_spec *spec, const hs_box_blocks *bb, int rank, int size,
                           hs_backend_mpi_part *out, double f[3])
{
    hs_status st = HS_OK;
    int64_t lo[3], hi[3];
    hs_box_blocks_range(bb, rank, lo, hi);
    hs_mesh *pm = NULL, *lm = NULL;
    int64_t *ngid = NULL, *egid = NULL;
    int32_t *owner = NULL, *nl = NULL, *el = NULL;
    HS_CALL(hs_mesh_create_box_part(&spec->box, lo, hi, &pm, &ngid, &egid));
    HS_CALL_GOTO(hs_mesh_check(pm), done);
    HS_CALL_GOTO(hs_mesh_set_fibers_constant(pm, spec->fiber_dir), done);
    memcpy(f, pm->fiber, 3 * sizeof(double)); /* the normalised direction (every element's) */
    HS_CALL_GOTO(HS_ALLOC(owner, (size_t)pm->n_nodes + 1, "box part"), done);
    HS_CALL_GOTO(HS_ALLOC(nl, (size_t)pm->n_nodes + 1, "box part"), done);
    HS_CALL_GOTO(HS_ALLOC(el, (size_t)pm->n_elems + 1, "box part"), done);
    for (int32_t i = 0; i < pm->n_nodes; ++i) owner[i] = hs_box_blocks_owner(bb, ngid[i]);
    const int64_t n_global = bb->nodes[0] * bb->nodes[1] * bb->nodes[2];
    double t0 = hs_wtime();
    HS_CALL_GOTO(hs_part_local_create_part(n_global, pm->n_nodes, ngid, owner, pm->n_elems, egid, pm->tets, size, rank,
                                           &out->l, nl, el), done);
    out->partition = hs_wtime() - t0;
    /* the local mesh in the view's numbering (the generator keeps only elements of owned nodes: all kept) */
    const hs_part_local *l = out->l;
    HS_CALL_GOTO(hs_mesh_alloc(l->n_owned + l->n_ghost, l->n_elems, &lm), done);
    for (int32_t i = 0; i < pm->n_nodes; ++i) {
        if (nl[i] < 0) continue;
        memcpy(lm->xyz + 3 * (size_t)nl[i], pm->xyz + 3 * (size_t)i, 3 * sizeof(double));
        lm->node_orig[nl[i]] = pm->node_orig[i];
    }
    memcpy(lm->tets, l->tets, 4 * sizeof(int32_t) * (size_t)l->n_elems);
    HS_CALL_GOTO(HS_ALLOC(lm->fiber, 3 * (size_t)l->n_elems + 3, "box part fibres"), done);
    for (int32_t e = 0; e < pm->n_elems; ++e)
        if (el[e] >= 0) memcpy(lm->fiber + 3 * (size_t)el[e], pm->fiber + 3 * (size_t)e, 3 * sizeof(double));
    out->lmesh = lm;
    lm = NULL;
done:
    hs_mesh_destroy(&lm);
    hs_mesh_destroy(&pm);
    free(ngid);
    free(egid);
    free(owner);
    free(nl);
    free(el);
    return st;
}
#endif

hs_status hs_mesh_part_box(const hs_mesh_spec *spec, const hs_stimulus_cfg *sites, int n_sites, int fingerprint,
                           hs_backend_mpi_part *part, hs_mesh **counts, hs_stim_set **site_set,
                           hs_mesh_build_info *info)
{
    *counts = NULL;
    *site_set = NULL;
    memset(info, 0, sizeof *info);
#if HS_HAS_MPI
    memset(part, 0, sizeof *part);
    HS_CHECK(hs_mesh_part_box_fits(spec), HS_ERR_CONFIG,
             "parallel.partition = \"box\": each rank generates its block of the structured mesh.source = \"box\" "
             "(mesh.generator = \"structured\") with constant fibres; this run's mesh is %s%s: use "
             "parallel.partition = \"metis\", \"rows\" or \"auto\"",
             spec->source ? spec->source->name : "?", spec->box.use_tetgen ? " meshed by TetGen" : "");
    const int rank = hs_par_rank(), size = hs_par_size();
    double t0 = hs_wtime();
    int64_t n[3];
    HS_CALL(hs_mesh_box_cells(&spec->box, n));
    hs_box_blocks bb;
    HS_CALL(hs_box_blocks_make(n, size, &bb));
    const double nodes_d = (double)bb.nodes[0] * (double)bb.nodes[1] * (double)bb.nodes[2];
    const double elems_d = 6.0 * (double)n[0] * (double)n[1] * (double)n[2];
    /* the counts the rest of the run keeps (hs_mesh, the state, the writers) are 32-bit */
    HS_CHECK(nodes_d <= (double)INT32_MAX && elems_d <= (double)INT32_MAX, HS_ERR_MESH,
             "box mesh of %.4g nodes and %.4g tetrahedra: more than the %ld a 32-bit index allows; increase h",
             nodes_d, elems_d, (long)INT32_MAX);
    double f[3] = {0.0, 0.0, 0.0};
    hs_status st = make_part(spec, &bb, rank, size, part, f);
    st = hs_par_agree(st); /* one rank's failure (memory) is every rank's, said once */
    if (st != HS_OK) {
        hs_backend_mpi_part_free(part);
        return st;
    }
    part->n_elems_global = (int64_t)elems_d;
    double t1 = hs_wtime();
    info->seconds_mesh = t1 - t0 - part->partition;
    /* stimulus sites over the part's elements; a site must cover an element somewhere */
    int64_t cnt[HS_SPEC_MAX_STIMULI + 1] = {0};
    double tot[HS_SPEC_MAX_STIMULI + 1] = {0.0};
    st = n_sites <= HS_SPEC_MAX_STIMULI ? HS_OK : HS_FAIL(HS_ERR_INTERNAL, "%d stimulus sites", n_sites);
    if (st == HS_OK) st = hs_stim_set_create_part(part->lmesh, sites, n_sites, cnt, &part->lstim);
    if (st == HS_OK) st = sites_only(sites, n_sites, site_set);
    st = hs_par_agree(st);
    for (int k = 0; k < n_sites && st == HS_OK; ++k) tot[k] = (double)cnt[k];
    if (st == HS_OK) hs_par_sum_doubles(tot, n_sites > 0 ? n_sites : 1);
    for (int k = 0; k < n_sites && st == HS_OK; ++k)
        if (tot[k] == 0.0)
            st = HS_FAIL(HS_ERR_CONFIG, "stimulus [%d]: its %s contains no element centroid; enlarge it (elements are "
                         "tested by centroid)", k, sites[k].shape == HS_STIM_BOX ? "box" : "sphere");
    if (st == HS_OK) {
        hs_mesh *c = NULL;
        st = HS_ALLOC(c, 1, "mesh counts");
        if (st == HS_OK) {
            c->n_nodes = (int32_t)nodes_d;
            c->n_elems = (int32_t)elems_d;
            /* checkpoints name the whole mesh by its fingerprint: one pass over the box, a layer at a time */
            double tf = hs_wtime();
            if (fingerprint) c->fingerprint = box_fingerprint(&spec->box, n, f);
            if (fingerprint) hs_log(2, "mesh: the whole box's fingerprint in %.3f s\n", hs_wtime() - tf);
            *counts = c;
        }
    }
    st = hs_par_agree(st);
    if (st != HS_OK) {
        hs_backend_mpi_part_free(part);
        hs_stim_set_destroy(site_set);
        hs_mesh_destroy(counts);
        return st;
    }
    part->scatter = hs_wtime() - t1;
    info->expected_volume = spec->box.lx * spec->box.ly * spec->box.lz;
    info->expected_what = "of the box";
    snprintf(info->fibers, sizeof info->fibers, "constant [%g, %g, %g]", f[0], f[1], f[2]);
    info->reorder.bandwidth_before = info->reorder.bandwidth_after = 0;
    hs_log(1, "mesh: box of %.0f nodes, %.0f tetrahedra, generated by %d ranks in blocks of %d x %d x %d "
              "(no rank holds the whole mesh); rank 0's block: %d nodes, %d tetrahedra\n",
           nodes_d, elems_d, size, bb.parts[0], bb.parts[1], bb.parts[2], (int)part->lmesh->n_nodes,
           (int)part->lmesh->n_elems);
    hs_log(1, "fibres: %s\n", info->fibers);
    if (spec->reorder != HS_REORDER_NONE)
        hs_log(1, "reorder: the generator's numbering (parallel.partition = \"box\": frames list the nodes as a "
                  "serial run with mesh.reorder = \"none\" does; each rank's rows in its block's lattice order)\n");
    return HS_OK;
#else
    (void)spec, (void)sites, (void)n_sites, (void)fingerprint, (void)part;
    return HS_FAIL(HS_ERR_USAGE, "a distributed run needs a build with MPI (HS_USE_MPI)");
#endif
}
