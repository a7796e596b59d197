/* Fuzz entry points for the volume mesh readers (fuzz_targets.h): TetGen .node/.ele, legacy VTK,
 * XML VTK .vtu, Gmsh .msh and openCARP .pts/.elem/.lon. An accepted mesh is checked against what hs_mesh.h and
 * hs_mesh_io.h promise, then goes where a run sends it (app/mesh_build.c, app/run.c):
 * hs_mesh_check and, when that passes, RCM renumbering. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_targets.h"
#include "fuzz_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_mesh.h"
#include "hs_mesh_io.h"
#include "hs_status.h"

/* What every accepted mesh satisfies. `compact` is set for the readers that share
 * hs_mesh_parts_finish (all of them since issue 16, TetGen included): there every node belongs to
 * a tetrahedron and node_orig is strictly increasing (unused nodes dropped, file order kept). */
static void check_mesh(const char *t, const hs_mesh *m, int compact)
{
    if (!m || m->n_elems < 1 || m->n_nodes < (compact ? 1 : 4) || !m->xyz || !m->tets ||
        !m->region)
        hs_fuzz_fail(t, "accepted mesh is empty or incomplete");
    /* hs_mesh.h wants node_orig on every mesh a reader makes */
    if (!m->node_orig) hs_fuzz_fail(t, "node_orig missing");
    for (int64_t i = 0; i < 3 * (int64_t)m->n_nodes; ++i)
        if (!isfinite(m->xyz[i])) hs_fuzz_fail(t, "non-finite node coordinate accepted");
    char *used = calloc((size_t)m->n_nodes, 1);
    if (!used) abort();
    for (int64_t i = 0; i < 4 * (int64_t)m->n_elems; ++i) {
        if (m->tets[i] < 0 || m->tets[i] >= m->n_nodes) hs_fuzz_fail(t, "node index out of range");
        used[m->tets[i]] = 1;
    }
    for (int32_t i = 0; i < m->n_nodes && m->node_orig; ++i) {
        if (m->node_orig[i] < 0) hs_fuzz_fail(t, "negative node_orig");
        if (compact && !used[i]) hs_fuzz_fail(t, "a node no tetrahedron uses was kept");
        if (compact && i > 0 && m->node_orig[i] <= m->node_orig[i - 1])
            hs_fuzz_fail(t, "node_orig is not strictly increasing (file order lost)");
    }
    free(used);
    if (m->fiber)
        for (int32_t e = 0; e < m->n_elems; ++e) {
            const double *f = m->fiber + 3 * (size_t)e;
            const double n = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
            if (!(fabs(n - 1.0) <= 1e-12)) hs_fuzz_fail(t, "fibre is not a unit vector");
        }
    if (m->n_bfaces < 0 || (m->n_bfaces > 0 && (!m->bface || !m->bface_label)))
        hs_fuzz_fail(t, "boundary faces missing");
    for (int64_t i = 0; i < 3 * (int64_t)m->n_bfaces; ++i)
        if (m->bface[i] < 0 || m->bface[i] >= m->n_nodes)
            hs_fuzz_fail(t, "boundary face node out of range");
    if (m->n_labels < 0 || m->n_labels > HS_MESH_MAX_LABELS) hs_fuzz_fail(t, "label count");
    for (int k = 0; k < m->n_labels; ++k)
        if (!memchr(m->label[k].name, '\0', HS_MESH_LABEL_LEN))
            hs_fuzz_fail(t, "label name not terminated");
}

/* The reader's result: an accepted mesh is checked and sent on as a run would; a rejected one
 * must come with a message and no mesh. */
static void after_read(const char *t, hs_status st, hs_mesh **m, int compact)
{
    if (st == HS_OK) {
        check_mesh(t, *m, compact);
        if (hs_mesh_check(*m) == HS_OK) {
            hs_reorder_report rep;
            if (hs_mesh_reorder(*m, HS_REORDER_RCM, &rep) != HS_OK)
                hs_fuzz_fail(t, "RCM renumbering failed on a mesh that passed hs_mesh_check");
        } else if (hs_error_message()[0] == '\0') {
            hs_fuzz_fail(t, "hs_mesh_check failed without a message");
        }
    } else {
        if (*m) hs_fuzz_fail(t, "*out is not NULL after an error");
        hs_fuzz_check_refusal(t, st);
    }
    hs_mesh_destroy(m);
    hs_error_clear();
}

/* VTK and Gmsh refuse 10-node tetrahedra unless asked to linearise them, and their message says
 * how (mesh.quadratic = "linearize"). Read as a run does by default, then, when the reader asked
 * for it, once more with linearisation, as the user following the message would. */
typedef hs_status (*linear_reader)(const char *, const hs_mesh_read_opts *, hs_mesh **);

static void read_twice_if_quadratic(const char *t, linear_reader read, const char *path)
{
    hs_mesh *m = NULL;
    hs_error_clear();
    hs_status st = read(path, NULL, &m);
    const int asks = st != HS_OK && strstr(hs_error_message(), "mesh.quadratic") != NULL;
    after_read(t, st, &m, 1);
    if (asks) {
        const hs_mesh_read_opts o = {.linearize = 1};
        st = read(path, &o, &m);
        after_read(t, st, &m, 1);
    }
}

/* ---- TetGen .node/.ele --------------------------------------------------------------------- */

int hs_fuzz_tetgen(const uint8_t *data, size_t size)
{
    char node_path[HS_FUZZ_PATH_MAX], ele_path[HS_FUZZ_PATH_MAX];
    hs_fuzz_path("fuzz.node", node_path);
    hs_fuzz_path("fuzz.ele", ele_path);
    const uint8_t *part[2];
    size_t len[2];
    const int n = hs_fuzz_split(data, size, HS_FUZZ_SEP, 2, part, len);
    hs_fuzz_write(node_path, part[0], len[0]);
    hs_fuzz_write(ele_path, part[n > 1 ? 1 : 0], n > 1 ? len[1] : 0);

    /* As a run reads it: refused 10-node input is read again linearised, as the message says. */
    hs_mesh *m = NULL;
    hs_error_clear();
    hs_status st = hs_mesh_read_tetgen(node_path, ele_path, &m);
    const int asks = st != HS_OK && strstr(hs_error_message(), "mesh.quadratic") != NULL;
    after_read("tetgen", st, &m, 1);
    if (asks) {
        const hs_mesh_read_opts o = {.linearize = 1};
        after_read("tetgen", hs_mesh_read_tetgen_opts(node_path, ele_path, &o, &m), &m, 1);
    }
    return 0;
}

/* ---- legacy VTK ----------------------------------------------------------------------------- */

int hs_fuzz_vtk(const uint8_t *data, size_t size)
{
    char path[HS_FUZZ_PATH_MAX];
    hs_fuzz_write(hs_fuzz_path("fuzz.vtk", path), data, size);
    read_twice_if_quadratic("vtk", hs_mesh_read_vtk, path);
    return 0;
}

/* ---- XML VTK .vtu -------------------------------------------------------------------------- */

int hs_fuzz_vtu(const uint8_t *data, size_t size)
{
    char path[HS_FUZZ_PATH_MAX];
    hs_fuzz_write(hs_fuzz_path("fuzz.vtu", path), data, size);
    read_twice_if_quadratic("vtu", hs_mesh_read_vtu, path);
    return 0;
}

/* ---- Gmsh .msh ------------------------------------------------------------------------------ */

int hs_fuzz_gmsh(const uint8_t *data, size_t size)
{
    char path[HS_FUZZ_PATH_MAX];
    hs_fuzz_write(hs_fuzz_path("fuzz.msh", path), data, size);
    read_twice_if_quadratic("gmsh", hs_mesh_read_gmsh, path);
    return 0;
}

/* ---- openCARP .pts/.elem/.lon --------------------------------------------------------------- */

int hs_fuzz_opencarp(const uint8_t *data, size_t size)
{
    char prefix[HS_FUZZ_PATH_MAX], pts[HS_FUZZ_PATH_MAX], elem[HS_FUZZ_PATH_MAX],
        lon[HS_FUZZ_PATH_MAX];
    snprintf(prefix, sizeof prefix, "%s/fuzz", hs_fuzz_dir()); /* names no file of its own */
    hs_fuzz_path("fuzz.pts", pts);
    hs_fuzz_path("fuzz.elem", elem);
    hs_fuzz_path("fuzz.lon", lon);
    const uint8_t *part[3];
    size_t len[3];
    const int n = hs_fuzz_split(data, size, HS_FUZZ_SEP, 3, part, len);
    hs_fuzz_write(pts, part[0], len[0]);
    hs_fuzz_write(elem, part[n > 1 ? 1 : 0], n > 1 ? len[1] : 0);
    /* Two separators: a .lon (possibly empty); fewer: none, the reader's "no fibres" case. */
    if (n > 2)
        hs_fuzz_write(lon, part[2], len[2]);
    else
        hs_fuzz_remove(lon);

    hs_mesh *m = NULL;
    hs_error_clear();
    after_read("opencarp", hs_mesh_read_opencarp(prefix, NULL, &m), &m, 1);
    return 0;
}
