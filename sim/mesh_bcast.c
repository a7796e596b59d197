/* A distributed run's mesh (hs_mesh_build.h, hs_mesh_build_bcast): built once, on rank 0, and
 * broadcast, instead of built by every rank (each reading the same file, running TetGen or the
 * reordering on the same input, and relying on those being deterministic to agree). */
#include "hs_mesh_build.h"

#include <stdlib.h>
#include <string.h>

#include "hs_build_config.h"
#include "hs_par.h"
#include "hs_util.h"

#if HS_HAS_MPI
#include <mpi.h>

#include "hs_dist.h"

/* MPI counts are int: a large array goes in pieces of at most 1 GiB. */
static hs_status bcast_bytes(void *p, size_t bytes, MPI_Comm comm)
{
    const size_t chunk = (size_t)1 << 30;
    for (size_t o = 0; o < bytes; o += chunk) {
        const size_t n = bytes - o < chunk ? bytes - o : chunk;
        HS_MPI_CALL(MPI_Bcast((char *)p + o, (int)n, MPI_BYTE, 0, comm));
    }
    return HS_OK;
}

/* A receiving rank's arrays, as rank 0's mesh @p h has them (h's pointers say which exist). */
static hs_status alloc_like(const hs_mesh *h, hs_mesh **out)
{
    hs_mesh *m = NULL;
    HS_CALL(hs_mesh_alloc(h->n_nodes, h->n_elems, &m));
    hs_status st = HS_OK;
    if (h->fiber) HS_CALL_GOTO(HS_ALLOC(m->fiber, 3 * (size_t)h->n_elems + 1, "mesh fibres"), fail);
    if (h->n_bfaces > 0) HS_CALL_GOTO(hs_mesh_alloc_bfaces(m, h->n_bfaces), fail);
    if (h->elem_src) HS_CALL_GOTO(HS_ALLOC(m->elem_src, (size_t)h->n_elems + 1, "mesh element numbers"), fail);
    if (h->node_src) HS_CALL_GOTO(HS_ALLOC(m->node_src, (size_t)h->n_node_src + 1, "mesh node numbers"), fail);
    m->n_node_src = h->n_node_src;
    m->n_labels = h->n_labels;
    memcpy(m->label, h->label, sizeof m->label);
    memcpy(m->src_path, h->src_path, sizeof m->src_path);
    memcpy(m->src_numbering, h->src_numbering, sizeof m->src_numbering);
    *out = m;
    return HS_OK;
fail:
    hs_mesh_destroy(&m);
    return st;
}
#endif

hs_status hs_mesh_build_bcast(const hs_mesh_spec *spec, hs_mesh **out, hs_mesh_build_info *info)
{
#if HS_HAS_MPI
    *out = NULL;
    hs_mesh_build_info info_local;
    if (!info) info = &info_local;
    if (!hs_par_active() || hs_par_size() == 1) return hs_mesh_build(spec, out, info);
    const MPI_Comm comm = hs_par_comm();
    const int rank = hs_par_rank();
    hs_mesh *m = NULL;
    /* rank 0 builds; its failure (a bad file, TetGen's refusal) is every rank's, said once */
    HS_CALL(hs_par_agree(rank == 0 ? hs_mesh_build(spec, &m, info) : HS_OK));
    hs_mesh head;
    if (rank == 0) head = *m;
    hs_status st = bcast_bytes(&head, sizeof head, comm);
    if (st == HS_OK) st = bcast_bytes(info, sizeof *info, comm);
    if (rank != 0) {
        info->expected_what = NULL; /* a pointer into rank 0's memory */
        if (st == HS_OK) st = alloc_like(&head, &m);
    }
    st = hs_par_agree(st); /* a rank without the memory stops every rank before the arrays move */
    if (st != HS_OK) {
        hs_mesh_destroy(&m);
        return st;
    }
    const size_t ne = (size_t)head.n_elems, nn = (size_t)head.n_nodes;
    st = bcast_bytes(m->xyz, 3 * nn * sizeof(double), comm);
    if (st == HS_OK) st = bcast_bytes(m->tets, 4 * ne * sizeof(int32_t), comm);
    if (st == HS_OK && head.region) st = bcast_bytes(m->region, ne * sizeof(int32_t), comm);
    if (st == HS_OK && head.node_orig) st = bcast_bytes(m->node_orig, nn * sizeof(int32_t), comm);
    if (st == HS_OK && head.fiber) st = bcast_bytes(m->fiber, 3 * ne * sizeof(double), comm);
    if (st == HS_OK && head.n_bfaces > 0) {
        st = bcast_bytes(m->bface, 3 * (size_t)head.n_bfaces * sizeof(int32_t), comm);
        if (st == HS_OK) st = bcast_bytes(m->bface_label, (size_t)head.n_bfaces * sizeof(int32_t), comm);
    }
    if (st == HS_OK && head.elem_src) st = bcast_bytes(m->elem_src, ne * sizeof(int64_t), comm);
    if (st == HS_OK && head.node_src) st = bcast_bytes(m->node_src, (size_t)head.n_node_src * sizeof(int64_t), comm);
    if (st != HS_OK) {
        hs_mesh_destroy(&m);
        return st;
    }
    if (rank != 0 && !head.region) { /* rank 0's mesh has none: nor does this one */
        free(m->region);
        m->region = NULL;
    }
    if (rank != 0 && !head.node_orig) {
        free(m->node_orig);
        m->node_orig = NULL;
    }
    *out = m;
    return HS_OK;
#else
    return hs_mesh_build(spec, out, info);
#endif
}
