/* Cross-check with files VTK itself writes (ParaView's pvpython, tests/meshes/vtu_paraview.py): the
 * cube as .vtu in ascii, binary+zlib, appended raw+zlib with a UInt64 header and appended
 * uncompressed and appended base64 (zlib) reads back equal to the same grid written as legacy .vtk; the cube surface as a
 * binary zlib .vtp encloses volume 1. Skipped (77) when pvpython is absent.
 * Usage: test_vtu_paraview SCRIPT */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_mesh.h"
#include "hs_mesh_io.h"
#include "hs_surface.h"
#include "hs_test.h"

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    if (system("command -v pvpython > /dev/null 2>&1") != 0) {
        fprintf(stderr, "pvpython not found: skipped\n");
        return HS_TEST_SKIP;
    }
    char dir[] = "/tmp/hs_vtu_pv_XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char cmd[1200], path[600];
    snprintf(cmd, sizeof cmd, "QT_QPA_PLATFORM=offscreen pvpython '%s' '%s' > '%s/pv.log' 2>&1", argv[1], dir, dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "pvpython could not write the files (see %s/pv.log): skipped\n", dir);
        return HS_TEST_SKIP;
    }
    hs_mesh *ref = NULL;
    snprintf(path, sizeof path, "%s/ref.vtk", dir);
    HS_TEST_OK(hs_mesh_read_file(path, NULL, &ref));
    static const char *names[] = {"ascii", "binary", "appended_zlib", "appended_raw", "appended_base64"};
    for (int i = 0; i < 5 && ref; ++i) {
        hs_mesh *m = NULL;
        snprintf(path, sizeof path, "%s/%s.vtu", dir, names[i]);
        hs_error_clear();
        HS_TEST_CHECK(hs_mesh_read_file(path, NULL, &m) == HS_OK, "%s: %s", names[i], hs_error_message());
        if (!m) continue;
        int bad = m->n_nodes != ref->n_nodes || m->n_elems != ref->n_elems || !m->fiber || !ref->fiber;
        for (int64_t k = 0; !bad && k < 3 * (int64_t)m->n_nodes; ++k) bad += m->xyz[k] != ref->xyz[k];
        for (int64_t k = 0; !bad && k < 4 * (int64_t)m->n_elems; ++k) bad += m->tets[k] != ref->tets[k];
        for (int32_t e = 0; !bad && e < m->n_elems; ++e) bad += m->region[e] != ref->region[e];
        for (int64_t k = 0; !bad && k < 3 * (int64_t)m->n_elems; ++k) bad += fabs(m->fiber[k] - ref->fiber[k]) > 1e-15;
        HS_TEST_CHECK(bad == 0, "%s: differs from the legacy VTK of the same grid", names[i]);
        HS_TEST_OK(hs_mesh_check(m));
        hs_mesh_destroy(&m);
    }
    hs_mesh_destroy(&ref);
    hs_surface *s = NULL;
    snprintf(path, sizeof path, "%s/cube.vtp", dir);
    HS_TEST_OK(hs_surface_read(path, 1.0, 0.0, &s));
    if (s) {
        hs_surface_report rep;
        HS_TEST_OK(hs_surface_check(s, path, &rep));
        HS_TEST_NEAR(rep.volume, 1.0, 1e-12, "cube.vtp enclosed volume");
        hs_surface_destroy(&s);
    }
    if (!getenv("HS_KEEP_TEST_FILES")) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    }
    HS_TEST_RETURN();
}
