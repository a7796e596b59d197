/*
 * Heterogeneous tissue (`regions`, fem/hs_region.h):
 *  - selection: on the structured box mesh every cell is 6 tetrahedra of the cell, so a box region
 *    whose faces lie on cell faces selects whole cells: its volume is exactly the box's (to the
 *    rounding of the element volumes, 1e-12 relative); sphere, attribute and element-file selection
 *    count what they must; an element file with an element the mesh lacks is an error naming it;
 *    surface distance on a hand-labelled face selects exactly the first layers (test_surface);
 *  - a region that changes nothing, or changes every element alike, runs the uniform path: the
 *    result equals the run without regions bit for bit (and the run with the same values given as
 *    the global keys);
 *  - a non-conducting slab (d_iso = d_ani = 0) across the whole cross-section blocks the wave:
 *    nodes behind it never activate while they do without it, the nodes inside it stay at rest
 *    (exactly 0), and the solver converges every step (the tangent stays SPD, hs_region.h);
 *  - a slower region (conductivities / 4) activates its far end later than uniform tissue.
 *  The scar and the slow region run under both schemes (Newton, and splitting with the regions at
 *  the nodes and the scar's nodes frozen).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_region.h"
#include "hs_sim.h"
#include "hs_test.h"
#include "hs_test_sim.h"
#include "hs_test_spec.h"
#include "hs_util.h"

static hs_sim_spec spec;
static hs_scheme_opts g_scheme; /* the scheme slab() sets: Newton, then splitting */

static void slab(void)
{
    hs_test_spec_defaults(&spec);
    spec.scheme = g_scheme;
    spec.mesh.box = (hs_box_params){.lx = 6.0, .ly = 1.0, .lz = 0.5, .h = 0.25};
    spec.n_stimuli = 1;
    spec.stimuli[0] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {0.6, 2, 2},
                                        .start = 0.0, .duration = 2.0, .strength = 0.5};
    spec.dt = 0.1;
}

static hs_region_cfg box_region(double x0, double x1)
{
    hs_region_cfg r;
    memset(&r, 0, sizeof r);
    r.select = HS_REGION_BOX;
    r.min[0] = x0, r.min[1] = -1, r.min[2] = -1;
    r.max[0] = x1, r.max[1] = 2, r.max[2] = 2;
    r.d_iso = -1.0, r.d_ani = -1.0;
    return r;
}

static void test_selection(void)
{
    hs_box_params bp = {.lx = 4.0, .ly = 2.0, .lz = 1.0, .h = 0.25};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&bp, &m));
    if (!m) return;
    for (int32_t e = 0; e < m->n_elems; ++e) m->region[e] = e % 3 == 0 ? 7 : 1;
    hs_model_params base;
    hs_model_params_defaults(hs_models_find("aliev_panfilov"), &base);
    hs_region_cfg r[4];
    r[0] = box_region(1.0, 3.0); /* faces on cell faces: x in [1, 3], whole y and z */
    r[0].d_iso = 0.1;
    memset(&r[1], 0, sizeof r[1]);
    r[1].select = HS_REGION_ATTRIBUTE, r[1].attribute = 7, r[1].d_iso = r[1].d_ani = -1;
    memset(&r[2], 0, sizeof r[2]);
    r[2].select = HS_REGION_SPHERE, r[2].center[0] = 100.0, r[2].radius = 1.0, r[2].d_iso = r[2].d_ani = -1;
    memset(&r[3], 0, sizeof r[3]);
    r[3].select = HS_REGION_ELEMENTS, r[3].d_iso = r[3].d_ani = -1;
    const char *path = "test_regions_elems.txt";
    FILE *f = fopen(path, "w");
    fprintf(f, "# three elements\n0\n5\n 9 \n");
    fclose(f);
    snprintf(r[3].file, sizeof r[3].file, "%s", path);
    hs_region_set *s = NULL;
    HS_TEST_OK(hs_region_set_create(m, r, 4, &base, 0.3, 0.9, &s));
    if (s) {
        HS_TEST_CHECK(fabs(s->entry_volume[0] - 2.0 * 2.0 * 1.0) <= 1e-12 * 4.0, "box volume %.17g, expected 4",
                      s->entry_volume[0]);
        HS_TEST_CHECK(s->entry_count[0] == m->n_elems / 2, "box selects %d of %d elements", (int)s->entry_count[0],
                      (int)m->n_elems);
        HS_TEST_CHECK(s->entry_count[1] == (m->n_elems + 2) / 3, "attribute selects %d", (int)s->entry_count[1]);
        HS_TEST_CHECK(s->entry_count[2] == 0, "a sphere outside the mesh selects %d", (int)s->entry_count[2]);
        HS_TEST_CHECK(s->entry_count[3] == 3, "the element file selects %d", (int)s->entry_count[3]);
        HS_TEST_CHECK(s->elem_entry[9] == 4 && s->elem_tab != NULL && s->n_rows == 2, "entry of element 9 %d, rows %d",
                      (int)s->elem_entry[9], s->n_rows);
        HS_TEST_CHECK(s->n_passive == 0 && s->decoupled == NULL, "no scar expected");
    }
    hs_region_set_destroy(&s);
    /* an element the mesh does not have */
    f = fopen(path, "w");
    fprintf(f, "1\n%d\n", (int)m->n_elems);
    fclose(f);
    hs_status st = hs_region_set_create(m, &r[3], 1, &base, 0.3, 0.9, &s);
    HS_TEST_CHECK(st == HS_ERR_CONFIG && strstr(hs_error_message(), ":2:") && strstr(hs_error_message(), "regions.[0]"),
                  "a missing element: status %d, \"%s\"", (int)st, hs_error_message());
    hs_error_clear();
    remove(path);
    /* every element non-conducting */
    r[0] = box_region(-1, 10);
    r[0].d_iso = r[0].d_ani = 0.0;
    st = hs_region_set_create(m, r, 1, &base, 0.3, 0.9, &s);
    HS_TEST_CHECK(st == HS_ERR_CONFIG, "all scar accepted");
    hs_error_clear();
    hs_mesh_destroy(&m);
}

/* select = "surface": the x = 0 face of a box mesh labelled "left" by hand; distance 0.5 mm takes
 * the first two layers of cells (centroids at x < 0.5 mm, the third layer's above), exactly
 * 0.5 x ly x lz of volume. An unknown label is an error listing the mesh's labels. */
static void test_surface(void)
{
    hs_box_params bp = {.lx = 2.0, .ly = 1.0, .lz = 0.5, .h = 0.25};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&bp, &m));
    if (!m) return;
    int32_t nf = 0;
    static const int fa[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
    for (int pass = 0; pass < 2; ++pass) {
        nf = 0;
        for (int32_t e = 0; e < m->n_elems; ++e)
            for (int f = 0; f < 4; ++f) {
                const int32_t *t = m->tets + 4 * (int64_t)e;
                int on = 1;
                for (int a = 0; a < 3; ++a) on &= m->xyz[3 * (int64_t)t[fa[f][a]]] == 0.0;
                if (!on) continue;
                if (pass) {
                    for (int a = 0; a < 3; ++a) m->bface[3 * (int64_t)nf + a] = t[fa[f][a]];
                    m->bface_label[nf] = 5;
                }
                ++nf;
            }
        if (!pass) HS_TEST_OK(hs_mesh_alloc_bfaces(m, nf));
    }
    HS_TEST_OK(hs_mesh_add_label(m, 5, "left"));
    hs_model_params base;
    hs_model_params_defaults(hs_models_find("aliev_panfilov"), &base);
    hs_region_cfg r;
    memset(&r, 0, sizeof r);
    r.select = HS_REGION_SURFACE;
    snprintf(r.label, sizeof r.label, "left");
    r.distance = 0.5;
    r.d_iso = 0.1, r.d_ani = -1;
    hs_region_set *s = NULL;
    HS_TEST_OK(hs_region_set_create(m, &r, 1, &base, 0.3, 0.9, &s));
    if (s)
        HS_TEST_CHECK(nf == 2 * 4 * 2 && s->entry_count[0] == m->n_elems / 4 &&
                          fabs(s->entry_volume[0] - 0.5 * 1.0 * 0.5) <= 1e-12,
                      "surface: %d triangles, %d elements, volume %.17g", (int)nf, (int)s->entry_count[0],
                      s ? s->entry_volume[0] : 0.0);
    hs_region_set_destroy(&s);
    snprintf(r.label, sizeof r.label, "endo");
    hs_status st = hs_region_set_create(m, &r, 1, &base, 0.3, 0.9, &s);
    HS_TEST_CHECK(st == HS_ERR_CONFIG && strstr(hs_error_message(), "unknown label \"endo\"") &&
                      strstr(hs_error_message(), "left (5)"),
                  "unknown label: \"%s\"", hs_error_message());
    hs_error_clear();
    hs_mesh_destroy(&m);
}

static int same_bits(const hs_test_node *a, const hs_test_node *b, int32_t n)
{
    return memcmp(a, b, sizeof *a * (size_t)n) == 0;
}

static void test_uniform_paths(void)
{
    const int N = 60;
    int32_t n0 = 0, n1 = 0, n2 = 0, n3 = 0;
    slab();
    hs_test_node *plain = hs_test_run_sorted(&spec, N, &n0);
    slab();
    spec.n_regions = 1;
    spec.regions[0] = box_region(-10, 10);
    spec.regions[0].d_iso = 0.3; /* the default: changes nothing */
    spec.regions[0].n_params = 1;
    spec.regions[0].param_index[0] = hs_model_param_index(spec.model, "alpha");
    spec.regions[0].param_value[0] = spec.model_prm.v[spec.regions[0].param_index[0]];
    hs_test_node *same = hs_test_run_sorted(&spec, N, &n1);
    HS_TEST_CHECK(plain && same && n0 == n1 && same_bits(plain, same, n0), "one region changing nothing: not bitwise equal");
    /* every element changed alike = the global keys */
    spec.regions[0].d_ani = 0.5;
    spec.regions[0].param_value[0] = 0.02;
    hs_test_node *all = hs_test_run_sorted(&spec, N, &n2);
    slab();
    spec.d_ani = 0.5;
    spec.model_prm.v[hs_model_param_index(spec.model, "alpha")] = 0.02;
    hs_test_node *glob = hs_test_run_sorted(&spec, N, &n3);
    HS_TEST_CHECK(all && glob && n2 == n3 && same_bits(all, glob, n2), "a region over everything != the global keys");
    HS_TEST_CHECK(all && plain && !same_bits(all, plain, n0), "changed values gave the same result");
    free(plain);
    free(same);
    free(all);
    free(glob);
}

static void test_scar_and_slow(void)
{
    const int N = 300; /* 30 ms */
    int32_t n0 = 0, n1 = 0, n2 = 0;
    slab();
    hs_test_node *plain = hs_test_run_sorted(&spec, N, &n0);
    slab();
    spec.n_regions = 2;
    spec.regions[0] = box_region(2.5, 3.5);
    spec.regions[0].d_iso = spec.regions[0].d_ani = 0.0;
    spec.regions[1] = box_region(4.9, 5.2); /* an entry after it, not touching it: both apply */
    spec.regions[1].n_params = 1;
    spec.regions[1].param_index[0] = hs_model_param_index(spec.model, "alpha");
    spec.regions[1].param_value[0] = 0.02;
    hs_test_node *scar = hs_test_run_sorted(&spec, N, &n1);
    slab();
    spec.n_regions = 1;
    spec.regions[0] = box_region(3.0, 10.0);
    spec.regions[0].d_iso = 0.3 / 4, spec.regions[0].d_ani = 0.9 / 4;
    hs_test_node *slow = hs_test_run_sorted(&spec, N, &n2);
    HS_TEST_CHECK(plain && scar && slow && n0 == n1 && n1 == n2, "runs failed");
    if (plain && scar && slow && n0 == n1 && n1 == n2) {
        int front = 0, behind = 0, behind_plain = 0, inside_nonzero = 0;
        double far_plain = -1, far_slow = -1;
        for (int32_t i = 0; i < n0; ++i) {
            if (scar[i].x <= 2.0) front += scar[i].act >= 0;
            if (scar[i].x >= 3.75) behind += scar[i].act >= 0, behind_plain += plain[i].act >= 0;
            if (scar[i].x > 2.5 && scar[i].x < 3.5) inside_nonzero += scar[i].phi != 0.0;
            if (plain[i].x == 6.0) far_plain = fmax(far_plain, plain[i].act), far_slow = fmax(far_slow, slow[i].act);
        }
        int n_front = 0;
        for (int32_t i = 0; i < n0; ++i) n_front += scar[i].x <= 2.0;
        printf("%s: scar: %d of %d nodes before it activated, %d behind it (%d without the scar); far end at %.2f ms "
               "(uniform), %.2f ms (slow region)\n", hs_scheme_name(spec.scheme.kind), front, n_front, behind, behind_plain, far_plain, far_slow);
        HS_TEST_CHECK(front == n_front, "only %d of %d nodes before the scar activated", front, n_front);
        HS_TEST_CHECK(behind == 0 && behind_plain > 0, "behind the scar %d nodes activated (%d without it)", behind,
                      behind_plain);
        HS_TEST_CHECK(inside_nonzero == 0, "%d nodes inside the scar left rest", inside_nonzero);
        HS_TEST_CHECK(far_plain > 0 && (far_slow < 0 || far_slow > far_plain + 1.0),
                      "slow region: far end at %.3f ms, uniform %.3f ms", far_slow, far_plain);
    }
    free(plain);
    free(scar);
    free(slow);
}

int main(void)
{
    hs_verbosity = 0;
    test_selection();
    test_surface();
    test_uniform_paths();
    g_scheme = hs_scheme_opts_newton();
    test_scar_and_slow();
    /* the splitting scheme: regions at the nodes (fem/hs_splitting.h), the scar's nodes frozen */
    g_scheme = (hs_scheme_opts){HS_SCHEME_SPLITTING, HS_SPLIT_GODUNOV, 1.0, HS_MASS_CONSISTENT, 0.0};
    test_scar_and_slow();
    HS_TEST_RETURN();
}
