/* A real surface nobody on the project wrote: the UCSD rabbit ventricles (Chaste test data,
 * ../shared/data/rabbit_ventricles.off, cm). Read with scale 10 (cm -> mm) it must pass
 * hs_surface_check: one closed shell of 20,908 points and 41,812 triangles. The file's triangles
 * face inwards, so the check inverts the shell once; the volume, 6597.99 mm^3, was computed
 * independently (divergence theorem over the raw file, in Python). Skips (77) when the shared
 * data directory is absent, as in a user's checkout. Pass -v after the path to print the report. */
#include <stdio.h>
#include <string.h>

#include "hs_surface.h"
#include "hs_test.h"
#include "hs_util.h"

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "../shared/data/rabbit_ventricles.off";
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("skipped: %s not found (shared test data absent)\n", path);
        return HS_TEST_SKIP;
    }
    fclose(f);
    hs_surface *s = NULL;
    HS_TEST_OK(hs_surface_read(path, 10.0, 0.0, &s));
    if (!s) HS_TEST_RETURN();
    hs_surface_report r;
    memset(&r, 0, sizeof r);
    const double t0 = hs_wtime();
    HS_TEST_OK(hs_surface_check(s, path, &r));
    const double t_check = hs_wtime() - t0;
    HS_TEST_CHECK(r.n_points == 20908 && r.n_facets == 41812, "%d points, %d facets",
                  (int)r.n_points, (int)r.n_facets);
    HS_TEST_CHECK(r.n_components == 1 && r.n_flipped == 0 && r.n_unused_points == 0,
                  "%d shells, %d flipped, %d unused", (int)r.n_components, (int)r.n_flipped,
                  (int)r.n_unused_points);
    HS_TEST_CHECK(r.n_shells_inverted == 1, "%d shells inverted, expected 1 (the file faces in)",
                  (int)r.n_shells_inverted);
    HS_TEST_NEAR(r.volume, 6597.992494337426, 1e-9 * 6597.99, "volume, mm^3");
    HS_TEST_NEAR(r.area, 4615.623384768377, 1e-9 * 4615.6, "area, mm^2");
    HS_TEST_NEAR(r.bbox_min[0], -13.0286, 1e-9, "bbox min x, mm");
    HS_TEST_NEAR(r.bbox_max[2], 12.0368, 1e-9, "bbox max z, mm");
    if (argc > 2 && strcmp(argv[2], "-v") == 0)
        printf("%s: %d points, %d facets, %d shells, %d flipped, %d inverted, area %.6g mm^2, "
               "volume %.10g mm^3, bbox (%g, %g, %g)..(%g, %g, %g) mm, check %.3f s\n",
               path, (int)r.n_points, (int)r.n_facets, (int)r.n_components, (int)r.n_flipped,
               (int)r.n_shells_inverted, r.area, r.volume, r.bbox_min[0], r.bbox_min[1],
               r.bbox_min[2], r.bbox_max[0], r.bbox_max[1], r.bbox_max[2], t_check);
    hs_surface_destroy(&s);
    HS_TEST_RETURN();
}
