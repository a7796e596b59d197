/* Node renumbering for locality: reverse Cuthill-McKee (common/hs_rcm.h, hs_rcm_tets: George &
 * Liu's FNROOT and RCM on the elements' node graph, shared with a rank's part in parallel/).
 *
 * HS_REORDER_SFC orders nodes along a Hilbert curve over their coordinates instead (mesh_sfc.c):
 * no graph, no bandwidth bound, but neighbours in space get nearby numbers at every scale.
 *
 * Every renumbering goes through apply_permutation, which keeps node_orig (the source
 * numbering) and the boundary faces in step with the nodes. */
#include <stdlib.h>
#include <string.h>

#include "hs_mesh.h"
#include "hs_rcm.h"
#include "hs_util.h"
#include "mesh_sfc.h"

/* Mean over nodes of (i - smallest index among i and its neighbours): the envelope size per row
 * of the matrix this mesh assembles. Computed from the elements directly. */
static hs_status mesh_profile(const hs_mesh *m, double *profile)
{
    int32_t *lo = NULL;
    HS_CALL(HS_ALLOC(lo, (size_t)m->n_nodes, "profile work array"));
    for (int32_t v = 0; v < m->n_nodes; ++v) lo[v] = v;
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const int32_t *t = m->tets + 4 * (size_t)e;
        int32_t emin = t[0];
        for (int k = 1; k < 4; ++k)
            if (t[k] < emin) emin = t[k];
        for (int k = 0; k < 4; ++k)
            if (emin < lo[t[k]]) lo[t[k]] = emin;
    }
    double sum = 0.0;
    for (int32_t v = 0; v < m->n_nodes; ++v) sum += (double)(v - lo[v]);
    *profile = m->n_nodes ? sum / (double)m->n_nodes : 0.0;
    free(lo);
    return HS_OK;
}

/* Relabel nodes (newid[old]) and sort elements by their smallest new node, stably, with a
 * counting sort (keys are node indices, so O(n + ne)). node_orig moves with the nodes; boundary
 * faces are relabelled in place (their order and orientation are kept). All allocations come
 * before the first change, so a failure leaves the mesh as it was. */
static hs_status apply_permutation(hs_mesh *m, const int32_t *newid)
{
    const int32_t n = m->n_nodes, ne = m->n_elems;
    hs_status st = HS_OK;
    double *xyz = NULL, *fiber = NULL;
    int32_t *tets = NULL, *region = NULL, *node_orig = NULL;
    int64_t *bucket = NULL; /* [n+1] counting-sort offsets by smallest node */
    int64_t *elem_src = NULL;
    for (size_t i = 0; i < (size_t)m->n_bfaces * 3; ++i)
        HS_CHECK(m->bface[i] >= 0 && m->bface[i] < n, HS_ERR_MESH,
                 "boundary face %ld refers to node %ld, out of range 0..%ld", (long)(i / 3),
                 (long)m->bface[i], (long)n - 1);
    HS_CALL_GOTO(HS_ALLOC(xyz, (size_t)n * 3, "reordered coordinates"), done);
    HS_CALL_GOTO(HS_ALLOC(node_orig, (size_t)n, "reordered source node numbers"), done);
    HS_CALL_GOTO(HS_ALLOC(tets, (size_t)ne * 4, "reordered connectivity"), done);
    HS_CALL_GOTO(HS_ALLOC(region, (size_t)ne, "reordered regions"), done);
    if (m->fiber) HS_CALL_GOTO(HS_ALLOC(fiber, (size_t)ne * 3, "reordered fibres"), done);
    if (m->elem_src) HS_CALL_GOTO(HS_ALLOC(elem_src, (size_t)ne, "reordered element numbers"), done);
    HS_CALL_GOTO(HS_ALLOC(bucket, (size_t)n + 1, "element sort buckets"), done);

    for (int32_t v = 0; v < n; ++v) {
        memcpy(xyz + 3 * (size_t)newid[v], m->xyz + 3 * (size_t)v, 3 * sizeof(double));
        /* A mesh built by hand may have no node_orig: its nodes are then their own source. */
        node_orig[newid[v]] = m->node_orig ? m->node_orig[v] : v;
    }
    for (size_t i = 0; i < (size_t)m->n_bfaces * 3; ++i) m->bface[i] = newid[m->bface[i]];
    /* Relabel in place first (local node order, hence orientation, is unchanged). */
    for (size_t i = 0; i < (size_t)ne * 4; ++i) m->tets[i] = newid[m->tets[i]];
    for (int32_t e = 0; e < ne; ++e) {
        const int32_t *t = m->tets + 4 * (size_t)e;
        int32_t emin = t[0];
        for (int k = 1; k < 4; ++k)
            if (t[k] < emin) emin = t[k];
        ++bucket[emin + 1];
    }
    for (int32_t v = 0; v < n; ++v) bucket[v + 1] += bucket[v];
    for (int32_t e = 0; e < ne; ++e) {
        const int32_t *t = m->tets + 4 * (size_t)e;
        int32_t emin = t[0];
        for (int k = 1; k < 4; ++k)
            if (t[k] < emin) emin = t[k];
        const int64_t d = bucket[emin]++;
        memcpy(tets + 4 * d, t, 4 * sizeof(int32_t));
        region[d] = m->region ? m->region[e] : 0;
        if (fiber) memcpy(fiber + 3 * d, m->fiber + 3 * (size_t)e, 3 * sizeof(double));
        if (elem_src) elem_src[d] = m->elem_src[e];
    }
    if (elem_src) {
        int64_t *old = m->elem_src;
        m->elem_src = elem_src;
        elem_src = old;
    }
    /* Swap the new arrays in; the old ones are freed below through the same pointers. */
    double *old_xyz = m->xyz, *old_fiber = m->fiber;
    int32_t *old_tets = m->tets, *old_region = m->region, *old_orig = m->node_orig;
    m->xyz = xyz;
    m->tets = tets;
    m->region = region;
    m->node_orig = node_orig;
    if (fiber) m->fiber = fiber;
    xyz = old_xyz;
    tets = old_tets;
    region = old_region;
    node_orig = old_orig;
    fiber = fiber ? old_fiber : NULL;
done:
    free(elem_src);
    free(xyz);
    free(node_orig);
    free(tets);
    free(region);
    free(fiber);
    free(bucket);
    return st;
}

hs_status hs_mesh_renumber(hs_mesh *m, const int32_t *new_to_old)
{
    int32_t *newid = NULL;
    HS_CALL(HS_ALLOC(newid, m->n_nodes, "node renumbering"));
    for (int32_t v = 0; v < m->n_nodes; ++v) newid[v] = -1;
    hs_status st = HS_OK;
    for (int32_t k = 0; k < m->n_nodes && st == HS_OK; ++k) {
        int32_t old = new_to_old[k];
        if (old < 0 || old >= m->n_nodes || newid[old] >= 0)
            st = HS_FAIL(HS_ERR_INTERNAL, "node renumbering is not a permutation (entry %d = %d)", k, old);
        else
            newid[old] = k;
    }
    if (st == HS_OK) st = apply_permutation(m, newid);
    free(newid);
    return st;
}

/* Hilbert-curve renumbering; r holds the "before" numbers. */
static hs_status reorder_sfc(hs_mesh *m, hs_reorder_report *r, hs_reorder_report *rep)
{
    int32_t *newid = NULL;
    hs_status st = HS_OK;
    HS_CALL(HS_ALLOC(newid, (size_t)m->n_nodes, "curve order"));
    HS_CALL_GOTO(hs_sfc_order(m->xyz, m->n_nodes, newid), done);
    HS_CALL_GOTO(apply_permutation(m, newid), done);
    r->bandwidth_after = hs_mesh_bandwidth(m);
    HS_CALL_GOTO(mesh_profile(m, &r->profile_after), done);
    if (rep) *rep = *r;
done:
    free(newid);
    return st;
}

hs_status hs_mesh_reorder(hs_mesh *m, hs_reorder_kind kind, hs_reorder_report *rep)
{
    HS_CHECK(m != NULL, HS_ERR_INTERNAL, "hs_mesh_reorder: mesh is NULL");
    HS_CHECK(kind == HS_REORDER_NONE || kind == HS_REORDER_RCM || kind == HS_REORDER_SFC,
             HS_ERR_INTERNAL,
             "hs_mesh_reorder: unknown reordering kind %d", (int)kind);
    /* Indices index the work arrays below, so they are checked here rather than trusted. */
    for (size_t i = 0; i < (size_t)m->n_elems * 4; ++i)
        HS_CHECK(m->tets[i] >= 0 && m->tets[i] < m->n_nodes, HS_ERR_MESH,
                 "element %ld refers to node %ld, out of range 0..%ld", (long)(i / 4),
                 (long)m->tets[i], (long)m->n_nodes - 1);

    hs_reorder_report r;
    r.bandwidth_before = hs_mesh_bandwidth(m);
    HS_CALL(mesh_profile(m, &r.profile_before));
    if (kind == HS_REORDER_NONE || m->n_nodes == 0) {
        r.bandwidth_after = r.bandwidth_before;
        r.profile_after = r.profile_before;
        if (rep) *rep = r;
        return HS_OK;
    }
    if (kind == HS_REORDER_SFC) return reorder_sfc(m, &r, rep);

    hs_status st = HS_OK;
    int32_t *newid = NULL;
    HS_CALL_GOTO(HS_ALLOC(newid, (size_t)m->n_nodes, "RCM new labels"), done);
    HS_CALL_GOTO(hs_rcm_tets(m->n_nodes, m->n_elems, m->tets, newid), done);
    HS_CALL_GOTO(apply_permutation(m, newid), done);

    r.bandwidth_after = hs_mesh_bandwidth(m);
    HS_CALL_GOTO(mesh_profile(m, &r.profile_after), done);
    if (rep) *rep = r;
done:
    free(newid);
    return st;
}
