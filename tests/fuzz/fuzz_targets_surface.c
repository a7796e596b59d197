/* Fuzz entry points for the surface readers (fuzz_targets.h): STL, OFF, PLY, XML VTK .vtp and TetGen
 * .poly/.smesh, each read through hs_surface_read (the extension picks the reader, as for
 * mesh.source = "surface"). An accepted surface is checked against what hs_surface.h promises and
 * then goes through hs_surface_check as app/mesh_build.c sends it; a surface that passes is checked
 * once more, which must find nothing left to fix (the fixes are complete) and the same volume. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_targets.h"
#include "fuzz_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hs_status.h"
#include "hs_surface.h"

/* What the reader promises: facets of >= 3 points in range, finite coordinates, markers. */
static void check_read(const char *t, const hs_surface *s)
{
    if (!s || s->n_points < 0 || s->n_facets < 0 || !s->xyz || !s->facet_ptr || !s->facet_idx ||
        !s->facet_marker || s->n_points_welded < 0)
        hs_fuzz_fail(t, "accepted surface is incomplete");
    if (s->facet_ptr[0] != 0) hs_fuzz_fail(t, "facet_ptr[0] != 0");
    for (int32_t f = 0; f < s->n_facets; ++f) {
        if (s->facet_ptr[f + 1] - s->facet_ptr[f] < 3) hs_fuzz_fail(t, "facet of fewer than 3 points");
        for (int32_t k = s->facet_ptr[f]; k < s->facet_ptr[f + 1]; ++k)
            if (s->facet_idx[k] < 0 || s->facet_idx[k] >= s->n_points)
                hs_fuzz_fail(t, "facet point index out of range");
    }
    for (int64_t i = 0; i < 3 * (int64_t)s->n_points; ++i)
        if (!isfinite(s->xyz[i])) hs_fuzz_fail(t, "non-finite point coordinate accepted");
    if (s->n_holes < 0 || (s->n_holes > 0 && !s->holes)) hs_fuzz_fail(t, "holes missing");
    for (int64_t i = 0; i < 3 * (int64_t)s->n_holes; ++i)
        if (!isfinite(s->holes[i])) hs_fuzz_fail(t, "non-finite hole point accepted");
    if (s->n_regions < 0 || (s->n_regions > 0 && !s->regions)) hs_fuzz_fail(t, "regions missing");
    for (int64_t i = 0; i < 5 * (int64_t)s->n_regions; ++i)
        if (!isfinite(s->regions[i])) hs_fuzz_fail(t, "non-finite region value accepted");
}

/* What a passed hs_surface_check promises about its report. */
static void check_report(const char *t, const hs_surface *s, const hs_surface_report *r)
{
    if (r->n_points != s->n_points || r->n_facets != s->n_facets)
        hs_fuzz_fail(t, "report counts differ from the surface");
    if (r->n_components < 1 || r->n_flipped < 0 || r->n_flipped > s->n_facets ||
        r->n_shells_inverted < 0 || r->n_shells_inverted > r->n_components ||
        r->n_unused_points < 0 || r->n_unused_points > s->n_points)
        hs_fuzz_fail(t, "report counts out of range");
    if (!(isfinite(r->volume) && r->volume > 0.0))
        hs_fuzz_fail(t, "passed with a volume that is not finite and positive");
    if (!(isfinite(r->area) && r->area > 0.0))
        hs_fuzz_fail(t, "passed with an area that is not finite and positive");
    for (int k = 0; k < 3; ++k)
        if (!(isfinite(r->bbox_min[k]) && isfinite(r->bbox_max[k]) &&
              r->bbox_min[k] <= r->bbox_max[k]))
            hs_fuzz_fail(t, "bounding box not finite or inverted");
}

static void read_and_check(const char *t, const char *path)
{
    hs_surface *s = NULL;
    hs_error_clear();
    /* scale 1 and the default weld tolerance: the config's defaults. */
    const hs_status st = hs_surface_read(path, 1.0, 0.0, &s);
    if (st != HS_OK) {
        if (s) hs_fuzz_fail(t, "*out is not NULL after an error");
        hs_fuzz_check_refusal(t, st);
        hs_error_clear();
        return;
    }
    check_read(t, s);
    hs_surface_report rep;
    memset(&rep, 0, sizeof rep);
    const hs_status cst = hs_surface_check(s, path, &rep);
    if (cst == HS_OK) {
        check_report(t, s, &rep);
        check_read(t, s); /* reorientation only reverses facets */
        hs_surface_report again;
        memset(&again, 0, sizeof again);
        if (hs_surface_check(s, path, &again) != HS_OK) {
            fprintf(stderr, "second check: %s\n", hs_error_message());
            hs_fuzz_fail(t, "a surface hs_surface_check fixed does not pass it again");
        }
        if (again.n_flipped != 0 || again.n_shells_inverted != 0)
            hs_fuzz_fail(t, "hs_surface_check left orientation to fix");
        if (!(fabs(again.volume - rep.volume) <= 1e-9 * rep.volume))
            hs_fuzz_fail(t, "the volume changed on checking again");
    } else {
        hs_fuzz_check_refusal(t, cst);
    }
    hs_surface_destroy(&s);
    hs_error_clear();
}

/* One input, one file with the given extension. */
static int one_file(const char *t, const char *name, const uint8_t *data, size_t size)
{
    char path[HS_FUZZ_PATH_MAX];
    hs_fuzz_write(hs_fuzz_path(name, path), data, size);
    read_and_check(t, path);
    return 0;
}

int hs_fuzz_stl(const uint8_t *data, size_t size) { return one_file("stl", "fuzz.stl", data, size); }
int hs_fuzz_off(const uint8_t *data, size_t size) { return one_file("off", "fuzz.off", data, size); }
int hs_fuzz_ply(const uint8_t *data, size_t size) { return one_file("ply", "fuzz.ply", data, size); }
int hs_fuzz_vtp(const uint8_t *data, size_t size) { return one_file("vtp", "fuzz.vtp", data, size); }

int hs_fuzz_poly(const uint8_t *data, size_t size)
{
    char main_path[HS_FUZZ_PATH_MAX], node_path[HS_FUZZ_PATH_MAX], other[HS_FUZZ_PATH_MAX];
    const size_t ml = strlen(HS_FUZZ_SMESH_MARKER);
    const int smesh = size >= ml && memcmp(data, HS_FUZZ_SMESH_MARKER, ml) == 0;
    /* Only one of fuzz.poly / fuzz.smesh exists at a time, so the .node beside it is the only
     * other file the reader can find. */
    hs_fuzz_path(smesh ? "fuzz.smesh" : "fuzz.poly", main_path);
    hs_fuzz_remove(hs_fuzz_path(smesh ? "fuzz.poly" : "fuzz.smesh", other));
    hs_fuzz_path("fuzz.node", node_path);
    const uint8_t *part[2];
    size_t len[2];
    const int n = hs_fuzz_split(data, size, HS_FUZZ_SEP, 2, part, len);
    hs_fuzz_write(main_path, part[0], len[0]);
    if (n > 1)
        hs_fuzz_write(node_path, part[1], len[1]);
    else
        hs_fuzz_remove(node_path);
    read_and_check("poly", main_path);
    return 0;
}
