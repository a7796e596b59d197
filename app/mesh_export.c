/* The run-ready copy of a mesh written by `heartsim mesh` (hs_mesh_export.h). Gmsh 2.2 because it
 * is the one volume format the readers take that carries both regions and named boundary labels;
 * the fibres go beside it in the plain per-element format hs_fibers_read takes. */
#include "hs_mesh_export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_util.h"

static hs_status close_checked(FILE *f, const char *path)
{
    int bad = ferror(f);
    int err = errno;
    if (fclose(f) != 0 && !bad) bad = 1, err = errno;
    HS_CHECK(!bad, HS_ERR_IO, "cannot write %s: %s", path, strerror(err));
    return HS_OK;
}

hs_status hs_mesh_export_gmsh(const char *path, const hs_mesh *m)
{
    FILE *f = fopen(path, "w");
    HS_CHECK(f != NULL, HS_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    fprintf(f, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n");
    if (m->n_labels > 0) {
        fprintf(f, "$PhysicalNames\n%d\n", m->n_labels);
        for (int l = 0; l < m->n_labels; ++l) fprintf(f, "2 %d \"%s\"\n", (int)m->label[l].id, m->label[l].name);
        fprintf(f, "$EndPhysicalNames\n");
    }
    fprintf(f, "$Nodes\n%d\n", (int)m->n_nodes);
    for (int32_t i = 0; i < m->n_nodes; ++i) {
        const double *x = m->xyz + 3 * (int64_t)i;
        fprintf(f, "%d %.17g %.17g %.17g\n", (int)i + 1, x[0], x[1], x[2]);
    }
    int32_t nb = 0; /* unlabelled boundary triangles (marker 0) carry nothing a run could use */
    for (int32_t b = 0; b < m->n_bfaces; ++b) nb += m->bface_label[b] != 0;
    fprintf(f, "$EndNodes\n$Elements\n%lld\n", (long long)nb + m->n_elems);
    long long k = 1;
    for (int32_t b = 0; b < m->n_bfaces; ++b) {
        const int32_t *t = m->bface + 3 * (int64_t)b, lab = m->bface_label[b];
        if (lab != 0) fprintf(f, "%lld 2 2 %d %d %d %d %d\n", k++, (int)lab, (int)lab, t[0] + 1, t[1] + 1, t[2] + 1);
    }
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const int32_t *t = m->tets + 4 * (int64_t)e, r = m->region ? m->region[e] : 0;
        fprintf(f, "%lld 4 2 %d %d %d %d %d %d\n", k++, (int)r, (int)r, t[0] + 1, t[1] + 1, t[2] + 1, t[3] + 1);
    }
    fprintf(f, "$EndElements\n");
    return close_checked(f, path);
}

/* FILE buffered in large blocks: a 16M-node mesh's .elem is ~5 GB of text */
static FILE *open_big(const char *path, char **buf)
{
    FILE *f = fopen(path, "w");
    *buf = NULL;
    if (f && (*buf = malloc((size_t)1 << 22)) != NULL) setvbuf(f, *buf, _IOFBF, (size_t)1 << 22);
    return f;
}

static hs_status close_big(FILE *f, char **buf, const char *path)
{
    hs_status st = close_checked(f, path);
    free(*buf);
    *buf = NULL;
    return st;
}

hs_status hs_mesh_export_opencarp(const char *prefix, const hs_mesh *m, int *uniform, double dir[3])
{
    char path[HS_PATH_MAX + 128], *buf = NULL;
    HS_CHECK(strlen(prefix) + 6 < sizeof path, HS_ERR_IO, "output path too long: %s.elem", prefix);
    *uniform = 1;
    dir[0] = 1.0, dir[1] = dir[2] = 0.0;
    if (m->fiber) memcpy(dir, m->fiber, 3 * sizeof(double));
    for (int32_t e = 1; m->fiber && e < m->n_elems && *uniform; ++e)
        *uniform = !memcmp(m->fiber + 3 * (int64_t)e, m->fiber, 3 * sizeof(double));
    snprintf(path, sizeof path, "%s.pts", prefix);
    FILE *f = open_big(path, &buf);
    HS_CHECK(f != NULL, HS_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    fprintf(f, "%d\n", (int)m->n_nodes);
    for (int32_t i = 0; i < m->n_nodes; ++i) {
        const double *x = m->xyz + 3 * (int64_t)i;
        fprintf(f, "%.17g %.17g %.17g\n", 1000.0 * x[0], 1000.0 * x[1], 1000.0 * x[2]);
    }
    HS_CALL(close_big(f, &buf, path));
    snprintf(path, sizeof path, "%s.elem", prefix);
    f = open_big(path, &buf);
    HS_CHECK(f != NULL, HS_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    fprintf(f, "%d\n", (int)m->n_elems);
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const int32_t *t = m->tets + 4 * (int64_t)e, r = m->region ? m->region[e] : 0;
        fprintf(f, "Tt %d %d %d %d %d\n", t[0], t[1], t[2], t[3], (int)r);
    }
    HS_CALL(close_big(f, &buf, path));
    if (*uniform) return HS_OK;
    snprintf(path, sizeof path, "%s.lon", prefix);
    f = open_big(path, &buf);
    HS_CHECK(f != NULL, HS_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    fprintf(f, "1\n");
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const double *v = m->fiber + 3 * (int64_t)e;
        fprintf(f, "%.17g %.17g %.17g\n", v[0], v[1], v[2]);
    }
    return close_big(f, &buf, path);
}

hs_status hs_mesh_export_fibers(const char *path, const hs_mesh *m)
{
    HS_CHECK(m->fiber != NULL, HS_ERR_INTERNAL, "hs_mesh_export_fibers: the mesh has no fibres");
    FILE *f = fopen(path, "w");
    HS_CHECK(f != NULL, HS_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const double *v = m->fiber + 3 * (int64_t)e;
        fprintf(f, "%.17g %.17g %.17g\n", v[0], v[1], v[2]);
    }
    return close_checked(f, path);
}
