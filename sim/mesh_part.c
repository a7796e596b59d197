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
#include <mpi.h>

#include "hs_backend_mpi.h"
#include "hs_dist.h"
#include "mesh_part_internal.h"
#endif

int hs_mesh_part_box_fits(const hs_mesh_spec *spec)
{
    return spec->source && !strcmp(spec->source->name, "box") && !spec->box.use_tetgen &&
           (spec->fibers == HS_FIBERS_AUTO || spec->fibers == HS_FIBERS_CONSTANT);
}

/* What a run whose ranks hold only their parts cannot take, whichever way the parts are made (NULL: none). */
static const char *parts_unfit(const hs_sim_spec *spec)
{
    for (int k = 0; k < spec->n_stimuli; ++k)
        if (spec->stimuli[k].shape != HS_STIM_BOX && spec->stimuli[k].shape != HS_STIM_SPHERE)
            return "stimulus sites other than shape = \"box\" or \"sphere\" are found on the whole mesh";
    for (int k = 0; k < spec->n_regions; ++k)
        if (spec->regions[k].select == HS_REGION_SURFACE || spec->regions[k].select == HS_REGION_ELEMENTS)
            return "regions selected by a labelled surface or an element list are found on the whole mesh";
    if (spec->spmv && spec->spmv->node_order) return "a solver.spmv format with its own node order renumbers the whole mesh";
    return NULL;
}

const char *hs_mesh_part_box_unfit(const hs_sim_spec *spec)
{
    if (!hs_mesh_part_box_fits(&spec->mesh))
        return "its ranks generate blocks of the structured mesh.source = \"box\" (not TetGen's) with constant fibres";
    return parts_unfit(spec);
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

#if HS_HAS_MPI
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
#endif

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

const char *hs_mesh_part_read_unfit(const hs_sim_spec *spec)
{
    char path[HS_PATH_MAX + 8];
    hs_mesh_part_read_path(&spec->mesh, path, sizeof path);
    const char *src = spec->mesh.source ? spec->mesh.source->name : "";
    if ((strcmp(src, "file") && strcmp(src, "tetgen")) || !hs_mesh_block_supports(path))
        return "every rank reads its byte range of a line-based mesh file: mesh.source = \"file\" or \"tetgen\" with "
               "an openCARP (.pts/.elem/.lon) or TetGen (.node/.ele) mesh.file";
    if (spec->mesh.fibers == HS_FIBERS_FILE) return "fibers.type = \"file\" reads the fibre file whole";
    return parts_unfit(spec);
}

void hs_mesh_part_read_path(const hs_mesh_spec *spec, char *buf, size_t size)
{
    /* mesh.source = "tetgen" names the .node/.ele pair by its prefix */
    const int prefix = spec->source && !strcmp(spec->source->name, "tetgen");
    snprintf(buf, size, "%s%s", spec->file, prefix ? ".node" : "");
}

const hs_partitioner *hs_mesh_part_read_partitioner(void)
{
    const hs_partitioner *p = NULL;
    if (hs_partitioner_lookup("parallel.partition", "ptscotch", &p) == HS_OK) return p;
    hs_error_clear();
    return hs_registry_find(hs_partitioners(), "rows");
}

#if HS_HAS_MPI
hs_status hs_mesh_part_find_sites(const hs_mesh *lm, const hs_stimulus_cfg *sites, int n_sites, hs_stim_set **lstim,
                                  hs_stim_set **site_set)
{
    int64_t cnt[HS_SPEC_MAX_STIMULI + 1] = {0};
    hs_status st = n_sites <= HS_SPEC_MAX_STIMULI ? HS_OK : HS_FAIL(HS_ERR_INTERNAL, "%d stimulus sites", n_sites);
    if (st == HS_OK) st = hs_stim_set_create_part(lm, sites, n_sites, cnt, lstim);
    if (st == HS_OK) st = sites_only(sites, n_sites, site_set);
    st = hs_par_agree(st);
    if (st == HS_OK) st = hs_mesh_part_sites_found(sites, n_sites, cnt);
    return hs_par_agree(st);
}

hs_status hs_mesh_part_sites_found(const hs_stimulus_cfg *sites, int n_sites, const int64_t *cnt)
{
    double tot[HS_SPEC_MAX_STIMULI + 1] = {0.0};
    HS_CHECK(n_sites <= HS_SPEC_MAX_STIMULI, HS_ERR_INTERNAL, "%d stimulus sites", n_sites);
    for (int k = 0; k < n_sites; ++k) tot[k] = (double)cnt[k];
    hs_par_sum_doubles(tot, n_sites > 0 ? n_sites : 1);
    for (int k = 0; k < n_sites; ++k)
        if (tot[k] == 0.0)
            return HS_FAIL(HS_ERR_CONFIG, "stimulus [%d]: its %s contains no element centroid; enlarge it (elements "
                           "are tested by centroid)", k, sites[k].shape == HS_STIM_BOX ? "box" : "sphere");
    return HS_OK;
}
#endif

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
    /* constant fibres, on the local mesh only (the part's elements all kept: no copy through the part) */
    HS_CALL_GOTO(hs_mesh_set_fibers_constant(lm, spec->fiber_dir), done);
    memcpy(f, lm->fiber, 3 * sizeof(double)); /* the normalised direction (every element's) */
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
                           struct hs_backend_mpi_part *part, hs_mesh **counts, hs_stim_set **site_set,
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
    int rank = 0, size = 1; /* of the current communicator (bench scale's subsets) */
    MPI_Comm_rank(hs_par_comm(), &rank);
    MPI_Comm_size(hs_par_comm(), &size);
    double t0 = hs_wtime();
    int64_t n[3];
    hs_box_blocks bb;
    /* the box's size and blocks: alike on every rank, so a refusal is said once, by rank 0 */
    hs_status st = hs_mesh_box_cells(&spec->box, n);
    if (st == HS_OK) st = hs_box_blocks_make(n, size, &bb);
    const double nodes_d = st == HS_OK ? (double)bb.nodes[0] * (double)bb.nodes[1] * (double)bb.nodes[2] : 0.0;
    const double elems_d = st == HS_OK ? 6.0 * (double)n[0] * (double)n[1] * (double)n[2] : 0.0;
    /* the counts the rest of the run keeps (hs_mesh, the state, the writers) are 32-bit */
    if (st == HS_OK && !(nodes_d <= (double)INT32_MAX && elems_d <= (double)INT32_MAX))
        st = HS_FAIL(HS_ERR_MESH, "box mesh of %.4g nodes and %.4g tetrahedra: more than the %ld a 32-bit index "
                     "allows; increase h", nodes_d, elems_d, (long)INT32_MAX);
    HS_CALL(hs_par_agree(st));
    double f[3] = {0.0, 0.0, 0.0};
    st = make_part(spec, &bb, rank, size, part, f);
    st = hs_par_agree(st); /* one rank's failure (memory) is every rank's, said once */
    if (st != HS_OK) {
        hs_backend_mpi_part_free(part);
        return st;
    }
    part->n_elems_global = (int64_t)elems_d;
    double t1 = hs_wtime();
    info->seconds_mesh = t1 - t0 - part->partition;
    /* stimulus sites over the part's elements; a site must cover an element somewhere */
    st = hs_mesh_part_find_sites(part->lmesh, sites, n_sites, &part->lstim, site_set);
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

#if HS_HAS_MPI
/* Two table rows alike (as fem/region.c compares them: the values the kernels read). */
static int region_rows_equal(const hs_region_row *a, const hs_region_row *b)
{
    return memcmp(a->prm.v, b->prm.v, sizeof a->prm.v) == 0 && a->d_iso == b->d_iso && a->d_ani == b->d_ani;
}

/* A row of a rank's table with the smallest global element using it. */
typedef struct region_row_at {
    int64_t gid;
    hs_region_row row;
} region_row_at;

static int cmp_row_at(const void *a, const void *b)
{
    const int64_t x = ((const region_row_at *)a)->gid, y = ((const region_row_at *)b)->gid;
    return (x > y) - (x < y);
}

/* The whole mesh's table from the parts' (collective): every rank's rows with the smallest global
 * element of each, gathered; in order of that element, duplicates dropped, they are the rows a
 * serial run's table lists in its order (of first appearance over the elements), so every element
 * reads the same row values, and the tissue is uniform (elem_tab NULL) exactly when it is serially. */
static hs_status region_table_global(MPI_Comm comm, const hs_part_local *l, hs_region_set *r)
{
    hs_status st = HS_OK;
    int size = 1;
    MPI_Comm_size(comm, &size);
    const int32_t ne = l->n_elems;
    region_row_at *mine = NULL, *all = NULL;
    int *cnt = NULL, *dsp = NULL, *remap = NULL;
    st = HS_ALLOC(mine, (size_t)r->n_rows + 1, "region rows");
    if (st == HS_OK) st = HS_ALLOC(cnt, (size_t)size, "region rows");
    if (st == HS_OK) st = HS_ALLOC(dsp, (size_t)size, "region rows");
    HS_CALL_GOTO(hs_par_agree(st), done); /* every rank reaches the gathers, or none */
    for (int k = 0; k < r->n_rows; ++k) mine[k] = (region_row_at){INT64_MAX, r->tab[k]};
    for (int32_t e = 0; e < ne; ++e) { /* the smallest, whatever the view's element order (a keyed view's is local) */
        region_row_at *a = &mine[r->elem_tab ? r->elem_tab[e] : 0];
        if (l->elems[e] < a->gid) a->gid = l->elems[e];
    }
    const int bytes = (int)(sizeof(region_row_at) * (size_t)r->n_rows);
    MPI_Allgather(&bytes, 1, MPI_INT, cnt, 1, MPI_INT, comm);
    int64_t total = 0;
    for (int q = 0; q < size; ++q) {
        dsp[q] = (int)total;
        total += cnt[q];
    }
    HS_CHECK_GOTO(total < INT32_MAX, done, HS_ERR_CONFIG, "regions: more than %d distinct parameter combinations",
                  HS_REGION_MAX_ROWS);
    const size_t n_all = (size_t)total / sizeof(region_row_at);
    HS_CALL_GOTO(hs_par_agree(HS_ALLOC(all, n_all + 1, "region rows")), done);
    MPI_Allgatherv(mine, bytes, MPI_BYTE, all, cnt, dsp, MPI_BYTE, comm);
    qsort(all, n_all, sizeof *all, cmp_row_at);
    size_t n_glob = 0; /* the distinct rows, in place */
    for (size_t i = 0; i < n_all; ++i) {
        if (all[i].gid == INT64_MAX) continue; /* a row no element here uses */
        size_t k = 0;
        while (k < n_glob && !region_rows_equal(&all[k].row, &all[i].row)) ++k;
        if (k == n_glob) all[n_glob++] = all[i];
    }
    HS_CHECK_GOTO(n_glob >= 1 && n_glob <= HS_REGION_MAX_ROWS, done, HS_ERR_CONFIG,
                  "regions: more than %d distinct parameter combinations", HS_REGION_MAX_ROWS);
    HS_CALL_GOTO(HS_ALLOC(remap, (size_t)r->n_rows + 1, "region rows"), done);
    for (int k = 0; k < r->n_rows; ++k) {
        remap[k] = 0;
        for (size_t g = 0; g < n_glob; ++g)
            if (region_rows_equal(&all[g].row, &r->tab[k])) remap[k] = (int)g;
    }
    hs_region_row *tab = NULL;
    HS_CALL_GOTO(HS_ALLOC(tab, n_glob, "region table"), done);
    for (size_t g = 0; g < n_glob; ++g) {
        tab[g] = all[g].row;
        tab[g].conducting = !(tab[g].d_iso == 0.0 && tab[g].d_ani == 0.0);
    }
    if (n_glob == 1 && tab[0].conducting) { /* uniform, as serially: the kernels take tab[0] */
        free(r->elem_tab);
        r->elem_tab = NULL;
    } else {
        if (!r->elem_tab) HS_CALL_GOTO(HS_ALLOC(r->elem_tab, (size_t)ne + 1, "element rows"), fail_tab);
        for (int32_t e = 0; e < ne; ++e) r->elem_tab[e] = (uint16_t)remap[r->elem_tab[e]];
    }
    free(r->tab);
    r->tab = tab;
    r->n_rows = (int)n_glob;
    goto done;
fail_tab:
    free(tab);
done:
    free(mine);
    free(all);
    free(cnt);
    free(dsp);
    free(remap);
    return st;
}
#endif

hs_status hs_mesh_part_box_regions(const hs_sim_spec *spec, struct hs_backend_mpi_part *part)
{
#if HS_HAS_MPI
    const MPI_Comm comm = hs_par_comm();
    hs_mesh *lm = part->lmesh;
    const hs_part_local *l = part->l;
    hs_region_set *r = NULL;
    hs_comm *hc = NULL;
    double *flag = NULL;
    /* each element by its own centroid or marker, as serially */
    hs_status st = hs_region_set_create_part(lm, spec->regions, spec->n_regions, &spec->model_prm, spec->d_iso,
                                             spec->d_ani, &r);
    st = hs_par_agree(st); /* one rank's failure is every rank's, before the collectives below */
    if (st == HS_OK) st = hs_par_agree(region_table_global(comm, l, r));
    if (st != HS_OK) goto fail;
    /* the counts over the whole mesh: each element by the rank owning its first node (as the frames
     * report it), each node by its owner; the volumes summed over the ranks (the log's round-off) */
    const int ne = spec->n_regions;
    double sums[2 * HS_MAX_REGIONS + 2] = {0.0};
    r->n_passive = 0;
    for (int32_t e = 0; e < l->n_elems; ++e) {
        if (lm->tets[4 * (size_t)e] >= l->n_owned) continue;
        const int k = r->elem_entry[e];
        if (k > 0) sums[k - 1] += 1.0, sums[ne + k - 1] += hs_mesh_elem_volume(lm, e);
        sums[2 * ne] += !r->tab[r->elem_tab ? r->elem_tab[e] : 0].conducting;
    }
    for (int32_t e = 0; e < l->n_elems; ++e) r->n_passive += !r->tab[r->elem_tab ? r->elem_tab[e] : 0].conducting;
    hs_par_sum_doubles(sums, 2 * ne + 1);
    const double passive = sums[2 * ne];
    st = passive < (double)part->n_elems_global
             ? HS_OK
             : HS_FAIL(HS_ERR_CONFIG, "regions: every element is non-conducting (d_iso = d_ani = 0): nothing left to "
                       "simulate");
    HS_CALL_GOTO(hs_par_agree(st), fail);
    /* a node is decoupled when none of its elements conducts: exact on the owned nodes (all their
     * elements are here); a ghost takes its owner's flag */
    free(r->decoupled);
    r->decoupled = NULL;
    r->n_decoupled = 0;
    double n_dec = 0.0;
    if (passive > 0) {
        const int32_t nl = l->n_owned + l->n_ghost;
        st = HS_ALLOC(flag, (size_t)nl + 1, "decoupled nodes");
        if (st == HS_OK) st = hs_comm_mpi_create(l, comm, &hc);
        HS_CALL_GOTO(hs_par_agree(st), fail);
        for (int32_t i = 0; i < nl; ++i) flag[i] = 1.0;
        for (int32_t e = 0; e < l->n_elems; ++e)
            if (r->tab[r->elem_tab ? r->elem_tab[e] : 0].conducting)
                for (int a = 0; a < 4; ++a) flag[lm->tets[4 * (size_t)e + a]] = 0.0;
        HS_CALL_GOTO(hs_comm_halo(hc, flag), fail);
        for (int32_t i = 0; i < l->n_owned; ++i) n_dec += flag[i];
        int any = 0;
        for (int32_t i = 0; i < nl; ++i) any |= flag[i] != 0.0;
        /* only ranks with such a node allocate: one's failure is every rank's before the sum below */
        HS_CALL_GOTO(hs_par_agree(any ? HS_ALLOC(r->decoupled, (size_t)nl + 1, "decoupled nodes of the part") : HS_OK),
                     fail);
        if (any)
            for (int32_t i = 0; i < nl; ++i) r->n_decoupled += r->decoupled[i] = flag[i] != 0.0;
        hs_par_sum_doubles(&n_dec, 1);
    }
    for (int i = 0; i < ne; ++i) {
        char who[96];
        hs_region_entry_name(&spec->regions[i], i, who, sizeof who);
        r->entry_count[i] = (int32_t)sums[i];
        r->entry_volume[i] = sums[ne + i];
        hs_log(1, "%s: %d elements, %.6g mm^3\n", who, (int)sums[i], sums[ne + i]);
        if (sums[i] == 0.0) hs_warn("%s selects no element; it has no effect", who);
    }
    if (passive > 0)
        hs_log(1, "regions: %d non-conducting elements; %d nodes touch only those and are held at rest\n",
               (int)passive, (int)n_dec);
    /* the "region" cell field of frames and maps: the entry deciding each element */
    memcpy(lm->region, r->elem_entry, sizeof(int32_t) * (size_t)l->n_elems);
    part->lreg = r;
    hs_comm_mpi_destroy(&hc);
    free(flag);
    return HS_OK;
fail:
    hs_comm_mpi_destroy(&hc);
    free(flag);
    hs_region_set_destroy(&r);
    return st;
#else
    (void)spec, (void)part;
    return HS_FAIL(HS_ERR_USAGE, "a distributed run needs a build with MPI (HS_USE_MPI)");
#endif
}

/* ---- a file mesh: rank 0 reads it and sends each rank its part ----------------------------- */

#if HS_HAS_MPI
/* the arrays of @p p and their lengths (from the header): one table for allocating, sending, receiving */
typedef struct arr {
    void **ptr;
    size_t size, count;
} arr;

#define PACKED_ARRAYS 14

static int packed_arrays(hs_part_packed *p, int n_sites, arr a[PACKED_ARRAYS])
{
    const size_t nn = (size_t)p->h[H_NN], ne = (size_t)p->h[H_NE];
    int k = 0;
    a[k++] = (arr){(void **)&p->ngid, sizeof(int64_t), nn};
    a[k++] = (arr){(void **)&p->nown, sizeof(int32_t), nn};
    a[k++] = (arr){(void **)&p->norig, sizeof(int32_t), nn};
    a[k++] = (arr){(void **)&p->xyz, sizeof(double), 3 * nn};
    a[k++] = (arr){(void **)&p->egid, sizeof(int64_t), ne};
    a[k++] = (arr){(void **)&p->tets, sizeof(int32_t), 4 * ne};
    a[k++] = (arr){(void **)&p->region, sizeof(int32_t), ne};
    a[k++] = (arr){(void **)&p->fiber, sizeof(double), p->h[H_FIBER] ? 3 * ne : 0};
    a[k++] = (arr){(void **)&p->sptr, sizeof(int32_t), (size_t)n_sites + 1};
    a[k++] = (arr){(void **)&p->selem, sizeof(int32_t), (size_t)p->h[H_SITE_ELEMS]};
    a[k++] = (arr){(void **)&p->eentry, sizeof(int32_t), p->h[H_ENTRY] ? ne : 0};
    a[k++] = (arr){(void **)&p->etab, sizeof(uint16_t), p->h[H_TAB] ? ne : 0};
    a[k++] = (arr){(void **)&p->dec, sizeof(uint8_t), p->h[H_DECOUPLED] ? nn : 0};
    a[k++] = (arr){(void **)&p->tab, sizeof(hs_region_row), (size_t)p->h[H_ROWS]};
    return k;
}

void hs_part_packed_free(hs_part_packed *p, int n_sites)
{
    arr a[PACKED_ARRAYS];
    const int na = packed_arrays(p, n_sites, a);
    for (int k = 0; k < na; ++k) {
        free(*a[k].ptr);
        *a[k].ptr = NULL;
    }
}

/* MPI counts are int: pieces of at most 1 GiB */
static hs_status xfer_bytes(void *buf, size_t bytes, int peer, int send, MPI_Comm comm)
{
    const size_t chunk = (size_t)1 << 30;
    for (size_t o = 0; o < bytes; o += chunk) {
        const int n = (int)(bytes - o < chunk ? bytes - o : chunk);
        if (send) HS_MPI_CALL(MPI_Send((char *)buf + o, n, MPI_BYTE, peer, 26, comm));
        else HS_MPI_CALL(MPI_Recv((char *)buf + o, n, MPI_BYTE, peer, 26, comm, MPI_STATUS_IGNORE));
    }
    return HS_OK;
}

/* Rank 0: rank q's part of the whole mesh @p m. @p mark [n_nodes] is -1 on entry and on return. */
static hs_status pack(const hs_mesh *m, const hs_stim_set *stim, const hs_region_set *reg, const int32_t *owner,
                      int q, int n_sites, int32_t *mark, hs_part_packed *p)
{
    memset(p, 0, sizeof *p);
    int64_t ne = 0, nn = 0;
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const int32_t *t = m->tets + 4 * (size_t)e;
        if (owner[t[0]] != q && owner[t[1]] != q && owner[t[2]] != q && owner[t[3]] != q) continue;
        ++ne;
        for (int c = 0; c < 4; ++c) mark[t[c]] = 0;
    }
    for (int32_t v = 0; v < m->n_nodes; ++v)
        if (mark[v] == 0) mark[v] = (int32_t)nn++;
    HS_CHECK(nn < INT32_MAX && ne < INT32_MAX, HS_ERR_MESH, "rank %d's part has %lld nodes and %lld elements: more "
             "than 32 bits number; use more ranks", q, (long long)nn, (long long)ne);
    p->h[H_NN] = nn;
    p->h[H_NE] = ne;
    p->h[H_FIBER] = m->fiber != NULL;
    p->h[H_REG] = reg != NULL;
    p->h[H_ENTRY] = reg && reg->elem_entry;
    p->h[H_TAB] = reg && reg->elem_tab;
    p->h[H_DECOUPLED] = reg && reg->decoupled;
    p->h[H_ROWS] = reg ? reg->n_rows : 0;
    p->h[H_ENTRIES] = reg ? reg->n_entries : 0;
    /* the sites' elements among the part's: both lists increase, one merge per site */
    int64_t ns = 0;
    int32_t *e2p = NULL; /* the part's elements, for the merge */
    hs_status st = HS_ALLOC(e2p, (size_t)ne + 1, "part elements");
    if (st != HS_OK) goto undo;
    for (int32_t e = 0, k = 0; e < m->n_elems; ++e) {
        const int32_t *t = m->tets + 4 * (size_t)e;
        if (owner[t[0]] == q || owner[t[1]] == q || owner[t[2]] == q || owner[t[3]] == q) e2p[k++] = e;
    }
    for (int s = 0; s < n_sites; ++s) {
        int64_t k = 0;
        for (int32_t j = stim->elem_ptr[s]; j < stim->elem_ptr[s + 1]; ++j) {
            while (k < ne && e2p[k] < stim->elem[j]) ++k;
            ns += k < ne && e2p[k] == stim->elem[j];
        }
    }
    p->h[H_SITE_ELEMS] = ns;
    arr a[PACKED_ARRAYS];
    const int na = packed_arrays(p, n_sites, a);
    for (int k = 0; k < na && st == HS_OK; ++k) /* absent arrays stay NULL */
        if (a[k].count) st = hs_alloc(a[k].ptr, a[k].count, a[k].size, "rank part");
    if (st != HS_OK) goto undo;
    for (int32_t v = 0; v < m->n_nodes; ++v) {
        if (mark[v] < 0) continue;
        const int32_t i = mark[v];
        p->ngid[i] = v;
        p->nown[i] = owner[v];
        p->norig[i] = m->node_orig ? m->node_orig[v] : v;
        memcpy(p->xyz + 3 * (size_t)i, m->xyz + 3 * (size_t)v, 3 * sizeof(double));
        if (p->dec) p->dec[i] = reg->decoupled[v];
    }
    for (int64_t k = 0; k < ne; ++k) {
        const int32_t e = e2p[k];
        p->egid[k] = e;
        for (int c = 0; c < 4; ++c) p->tets[4 * k + c] = mark[m->tets[4 * (size_t)e + c]];
        p->region[k] = m->region ? m->region[e] : 0;
        if (p->fiber) memcpy(p->fiber + 3 * k, m->fiber + 3 * (size_t)e, 3 * sizeof(double));
        if (p->eentry) p->eentry[k] = reg->elem_entry[e];
        if (p->etab) p->etab[k] = reg->elem_tab[e];
    }
    ns = 0;
    for (int s = 0; s < n_sites; ++s) {
        p->sptr[s] = (int32_t)ns;
        int64_t k = 0;
        for (int32_t j = stim->elem_ptr[s]; j < stim->elem_ptr[s + 1]; ++j) {
            while (k < ne && e2p[k] < stim->elem[j]) ++k;
            if (k < ne && e2p[k] == stim->elem[j]) p->selem[ns++] = (int32_t)k;
        }
    }
    p->sptr[n_sites] = (int32_t)ns;
    if (p->tab) memcpy(p->tab, reg->tab, sizeof *p->tab * (size_t)reg->n_rows);
undo:
    free(e2p);
    for (int32_t v = 0; v < m->n_nodes; ++v) mark[v] = -1;
    if (st != HS_OK) hs_part_packed_free(p, n_sites);
    return st;
}

/* mesh_part_internal.h */
static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

hs_status hs_part_packed_unpack(const hs_part_packed *p, int64_t n_global, const hs_stimulus_cfg *sites, int n_sites,
                                int rank, int size, const int32_t *node_local, hs_backend_mpi_part *out)
{
    hs_status st = HS_OK;
    const int32_t nn = (int32_t)p->h[H_NN], ne = (int32_t)p->h[H_NE];
    int32_t *nl = NULL, *el = NULL, *place = NULL;
    hs_mesh *lm = NULL;
    hs_stim_set *s = NULL;
    hs_region_set *r = NULL;
    if (!out->l) { /* the plain view; else the caller's, with its node_local */
        HS_CALL(HS_ALLOC(nl, (size_t)nn + 1, "rank part"));
        HS_CALL_GOTO(HS_ALLOC(el, (size_t)ne + 1, "rank part"), done);
        HS_CALL_GOTO(hs_part_local_create_part(n_global, nn, p->ngid, p->nown, ne, p->egid, p->tets, size, rank,
                                               &out->l, nl, el), done);
        node_local = nl;
    }
    const hs_part_local *l = out->l;
    HS_CHECK_GOTO(l->n_elems == ne, done, HS_ERR_INTERNAL, "rank %d: received elements without an owned node", rank);
    /* the elements keep the received order (increasing global number), or a keyed view's (by smallest
     * local node): place[e], the view's place of received element e (NULL: e) */
    int same_order = 1;
    for (int32_t e = 0; e < ne && same_order; ++e) same_order = l->elems[e] == p->egid[e];
    if (!same_order) {
        int32_t bad = 0;
        HS_CALL_GOTO(HS_ALLOC(place, (size_t)ne + 1, "rank part"), done);
        HS_CALL_GOTO(hs_part_local_elem_order(l->n_owned, ne, p->tets, node_local, place), done);
        for (int32_t e = 0; e < ne; ++e) bad += l->elems[place[e]] != p->egid[e];
        HS_CHECK_GOTO(bad == 0, done, HS_ERR_INTERNAL, "rank %d: %d elements of the view are not in the keyed order",
                      rank, (int)bad);
    }
#define EL(e) (place ? place[e] : (e))
    HS_CALL_GOTO(hs_mesh_alloc(l->n_owned + l->n_ghost, l->n_elems, &lm), done);
    for (int32_t i = 0; i < nn; ++i) {
        if (node_local[i] < 0) continue;
        memcpy(lm->xyz + 3 * (size_t)node_local[i], p->xyz + 3 * (size_t)i, 3 * sizeof(double));
        lm->node_orig[node_local[i]] = p->norig[i];
    }
    memcpy(lm->tets, l->tets, 4 * sizeof(int32_t) * (size_t)ne);
    for (int32_t e = 0; e < ne; ++e) lm->region[EL(e)] = p->region[e];
    if (p->fiber) {
        HS_CALL_GOTO(HS_ALLOC(lm->fiber, 3 * (size_t)ne + 3, "rank part fibres"), done);
        for (int32_t e = 0; e < ne; ++e) memcpy(lm->fiber + 3 * (size_t)EL(e), p->fiber + 3 * (size_t)e, 3 * sizeof(double));
    }
    HS_CALL_GOTO(sites_only(sites, n_sites, &s), done);
    free(s->elem);
    s->elem = NULL;
    HS_CALL_GOTO(HS_ALLOC(s->elem, (size_t)p->h[H_SITE_ELEMS] + 1, "rank part sites"), done);
    memcpy(s->elem_ptr, p->sptr, sizeof(int32_t) * ((size_t)n_sites + 1));
    for (int64_t k = 0; k < p->h[H_SITE_ELEMS]; ++k) s->elem[k] = EL(p->selem[k]);
    if (place) /* ascending within each site, as the sites of a mesh in this order */
        for (int q = 0; q < n_sites; ++q)
            qsort(s->elem + s->elem_ptr[q], (size_t)(s->elem_ptr[q + 1] - s->elem_ptr[q]), sizeof(int32_t), cmp_i32);
    if (p->h[H_REG]) { /* as backends/mpi's cut of the whole set: the table, the rows of the local elements and nodes */
        HS_CALL_GOTO(HS_ALLOC(r, 1, "rank regions"), done);
        r->n_entries = (int)p->h[H_ENTRIES];
        r->n_rows = (int)p->h[H_ROWS];
        HS_CALL_GOTO(HS_ALLOC(r->tab, (size_t)r->n_rows + 1, "rank regions"), done);
        memcpy(r->tab, p->tab, sizeof *r->tab * (size_t)r->n_rows);
        HS_CALL_GOTO(HS_ALLOC(r->entry_count, (size_t)r->n_entries + 1, "rank regions"), done);
        HS_CALL_GOTO(HS_ALLOC(r->entry_volume, (size_t)r->n_entries + 1, "rank regions"), done);
        if (p->eentry) {
            HS_CALL_GOTO(HS_ALLOC(r->elem_entry, (size_t)ne + 1, "rank regions"), done);
            for (int32_t e = 0; e < ne; ++e) r->elem_entry[EL(e)] = p->eentry[e];
        }
        if (p->etab) {
            HS_CALL_GOTO(HS_ALLOC(r->elem_tab, (size_t)ne + 1, "rank regions"), done);
            for (int32_t e = 0; e < ne; ++e) {
                r->elem_tab[EL(e)] = p->etab[e];
                r->n_passive += !r->tab[p->etab[e]].conducting;
            }
        }
#undef EL
        if (p->dec) {
            HS_CALL_GOTO(HS_ALLOC(r->decoupled, (size_t)lm->n_nodes + 1, "rank regions"), done);
            for (int32_t i = 0; i < nn; ++i)
                if (node_local[i] >= 0) r->n_decoupled += r->decoupled[node_local[i]] = p->dec[i];
        }
    }
    out->lmesh = lm;
    out->lstim = s;
    out->lreg = r;
    lm = NULL;
    s = NULL;
    r = NULL;
done:
    hs_mesh_destroy(&lm);
    hs_stim_set_destroy(&s);
    hs_region_set_destroy(&r);
    free(nl);
    free(el);
    free(place);
    return st;
}
#endif

hs_status hs_mesh_part_scatter(const hs_mesh *m, const hs_stim_set *stim, const hs_region_set *reg,
                               const int32_t *owner, int64_t n_global, const hs_stimulus_cfg *sites, int n_sites,
                               uint64_t *fingerprint, struct hs_backend_mpi_part *part)
{
#if HS_HAS_MPI
    memset(part, 0, sizeof *part);
    const MPI_Comm comm = hs_par_comm();
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    HS_MPI_CALL(MPI_Bcast(fingerprint, 1, MPI_UINT64_T, 0, comm));
    double t0 = hs_wtime();
    hs_status st = HS_OK;
    hs_part_packed mine;
    memset(&mine, 0, sizeof mine);
    double biggest = 0.0; /* MB of the largest part sent */
    if (rank == 0) {
        int32_t *mark = NULL;
        st = HS_ALLOC(mark, (size_t)m->n_nodes + 1, "part marks");
        for (int32_t v = 0; st == HS_OK && v < m->n_nodes; ++v) mark[v] = -1;
        /* the other ranks' parts first, each sent and freed before the next is made */
        for (int q = size - 1; q >= 0; --q) {
            hs_part_packed p;
            memset(&p, 0, sizeof p);
            hs_status sq = st == HS_OK ? pack(m, stim, reg, owner, q, n_sites, mark, &p) : st;
            if (q == 0) {
                mine = p;
                st = sq;
                break;
            }
            /* a failed part still sends its header, flagged, so that rank q does not wait forever */
            int64_t h[H_LEN + 1];
            memcpy(h, p.h, sizeof p.h);
            h[H_LEN] = sq != HS_OK;
            if (st == HS_OK && sq != HS_OK) st = sq;
            hs_status sx = xfer_bytes(h, sizeof h, q, 1, comm);
            arr a[PACKED_ARRAYS];
            const int na = packed_arrays(&p, n_sites, a);
            double mb = 0.0;
            for (int k = 0; k < na && sx == HS_OK && sq == HS_OK; ++k) {
                sx = xfer_bytes(*a[k].ptr, a[k].size * a[k].count, q, 1, comm);
                mb += (double)(a[k].size * a[k].count) / 1e6;
            }
            if (mb > biggest) biggest = mb;
            hs_part_packed_free(&p, n_sites);
            if (st == HS_OK) st = sx;
        }
        free(mark);
    } else {
        int64_t h[H_LEN + 1];
        st = xfer_bytes(h, sizeof h, 0, 0, comm);
        if (st == HS_OK && h[H_LEN]) st = HS_FAIL(HS_ERR_MEMORY, "rank 0 could not make this rank's part");
        if (st == HS_OK) {
            memcpy(mine.h, h, sizeof mine.h);
            arr a[PACKED_ARRAYS];
            const int na = packed_arrays(&mine, n_sites, a);
            for (int k = 0; k < na && st == HS_OK; ++k)
                if (a[k].count) st = hs_alloc(a[k].ptr, a[k].count, a[k].size, "rank part");
            for (int k = 0; k < na && st == HS_OK; ++k) st = xfer_bytes(*a[k].ptr, a[k].size * a[k].count, 0, 0, comm);
        }
    }
    st = hs_par_agree(st);
    double t1 = hs_wtime();
    if (st == HS_OK) st = hs_part_packed_unpack(&mine, n_global, sites, n_sites, rank, size, NULL, part);
    hs_part_packed_free(&mine, n_sites);
    st = hs_par_agree(st);
    if (st != HS_OK) {
        hs_backend_mpi_part_free(part);
        return st;
    }
    if (size > 1)
        hs_log(1, "mesh: rank 0 sent each of the other %d ranks its part (%.1f MB the largest) and no rank but 0 "
                  "holds the whole mesh\n", size - 1, biggest);
    part->n_elems_global = rank == 0 ? m->n_elems : 0; /* set on every rank by the caller */
    part->scatter = t1 - t0;
    part->partition = hs_wtime() - t1; /* the view; the caller adds rank 0's partitioner */
    return HS_OK;
#else
    (void)m, (void)stim, (void)reg, (void)owner, (void)n_global, (void)sites, (void)n_sites, (void)fingerprint,
        (void)part;
    return HS_FAIL(HS_ERR_USAGE, "a distributed run needs a build with MPI (HS_USE_MPI)");
#endif
}

hs_status hs_mesh_part_root_build(const hs_mesh_spec *spec, hs_mesh **out, hs_mesh_build_info *info)
{
    *out = NULL;
#if HS_HAS_MPI
    const MPI_Comm comm = hs_par_comm();
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    /* rank 0 builds; its failure (a bad file, TetGen's refusal) is every rank's, said once */
    HS_CALL(hs_par_agree(rank == 0 ? hs_mesh_build(spec, out, info) : HS_OK));
    int64_t n[2] = {rank == 0 ? (*out)->n_nodes : 0, rank == 0 ? (*out)->n_elems : 0};
    HS_MPI_CALL(MPI_Bcast(n, 2, MPI_INT64_T, 0, comm));
    HS_MPI_CALL(MPI_Bcast(info, (int)sizeof *info, MPI_BYTE, 0, comm));
    if (rank != 0) info->expected_what = NULL; /* a pointer into rank 0's memory */
    /* the other ranks' counts: one's failure is every rank's (rank 0 too), before the partition */
    hs_status st = rank == 0 ? HS_OK : HS_ALLOC(*out, 1, "mesh counts");
    st = hs_par_agree(st);
    if (st != HS_OK) {
        hs_mesh_destroy(out);
        return st;
    }
    if (rank == 0) return HS_OK;
    (*out)->n_nodes = (int32_t)n[0];
    (*out)->n_elems = (int32_t)n[1];
    return HS_OK;
#else
    return hs_mesh_build(spec, out, info);
#endif
}

void hs_mesh_part_hollow(hs_mesh *m)
{
    const int32_t nn = m->n_nodes, ne = m->n_elems;
    const uint64_t fp = m->fingerprint;
    free(m->xyz);
    free(m->tets);
    free(m->region);
    free(m->fiber);
    free(m->node_orig);
    free(m->bface);
    free(m->bface_label);
    free(m->elem_src);
    free(m->node_src);
    memset(m, 0, sizeof *m);
    m->n_nodes = nn;
    m->n_elems = ne;
    m->fingerprint = fp;
}

hs_status hs_mesh_part_sites(const hs_stimulus_cfg *sites, int n, hs_stim_set **out)
{
    return sites_only(sites, n, out);
}
