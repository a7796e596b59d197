/* A real surface through mesh.source = "surface": the rabbit ventricles of ../shared/data (cm,
 * mesh.scale = 10), when present (exit 77 otherwise: a user's checkout has no ../shared). The
 * tetrahedra must fill the volume the surface encloses: TetGen's Steiner points on the boundary lie
 * on the input facets (up to floating point: 1.5e-8 relative was seen at h = 1 mm), so the two
 * agree to far better than a few percent, and 1e-6 is the bound.
 * Argument: the source directory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "hs_config.h"
#include "hs_mesh_build.h"
#include "hs_spec.h"
#include "hs_mesh_quality.h"
#include "hs_test.h"
#include "hs_util.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s SOURCE_DIR\n", argv[0]);
        return 1;
    }
    char off[4096], set_file[4200];
    snprintf(off, sizeof off, "%s/../shared/data/rabbit_ventricles.off", argv[1]);
    if (access(off, R_OK) != 0) {
        printf("skipped: %s is not here (test data outside the project)\n", off);
        return HS_TEST_SKIP;
    }
    snprintf(set_file, sizeof set_file, "mesh.file=%s", off);
    const char *sets[] = {"mesh.source=surface", set_file, "mesh.scale=10", "mesh.h=1.5", "mesh.quality=1.414"};
    static hs_config cfg;
    hs_verbosity = 0;
    HS_TEST_OK(hs_config_load(NULL, sets, 5, &cfg));
    hs_mesh *m = NULL;
    hs_mesh_build_info info;
    double t0 = hs_wtime();
    static hs_mesh_spec spec;
    HS_TEST_OK(hs_mesh_spec_from_config(&cfg, &spec));
    HS_TEST_OK(hs_mesh_build(&spec, &m, &info));
    if (!m) HS_TEST_RETURN();
    hs_mesh_quality q;
    HS_TEST_OK(hs_mesh_quality_compute(m, &q));
    const double v_surf = info.surface.volume;
    HS_TEST_CHECK(info.have_surface && info.surface.n_facets == 41812 && info.surface.n_flipped == 0,
                  "surface: %d facets, %d flipped", (int)info.surface.n_facets, (int)info.surface.n_flipped);
    HS_TEST_CHECK(v_surf > 0 && fabs(q.volume - v_surf) <= 1e-6 * v_surf,
                  "mesh volume %.10g mm^3 vs enclosed %.10g mm^3 (rel. %.2g)", q.volume, v_surf,
                  fabs(q.volume - v_surf) / v_surf);
    HS_TEST_CHECK(q.n_elems > 50000 && q.dihedral_min_deg > 0.0 && q.q_min > 0.0,
                  "%d tetrahedra, min dihedral %g deg, min quality %g", (int)q.n_elems, q.dihedral_min_deg, q.q_min);
    if (getenv("HS_TEST_VERBOSE"))
        fprintf(stderr, "rabbit: %d nodes, %d tets, volume %.6g mm^3 (surface %.6g), %.2f s\n", (int)q.n_nodes,
                (int)q.n_elems, q.volume, v_surf, hs_wtime() - t0);
    hs_mesh_destroy(&m);
    HS_TEST_RETURN();
}
