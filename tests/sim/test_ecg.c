/*
 * Probes and the pseudo-ECG (fem/hs_sample.h, sim/samples.c).
 *  1. A uniform gradient u = g . y on a 2 x 1 x 1 mm box with anisotropic D: the discrete
 *     phi_e = sum_n W_n u_n against an independent quadrature of the same integral written as a
 *     surface integral: (y - x)/|y - x|^3 = -grad_y (1/|y - x|), so
 *       phi_e(x) = -s/(4 pi sigma_b) (D g) . ∮ n / |y - x| dS
 *     (s = mv_scale; 8 x 8 Gauss points on each of 16 x 16 patches per face: converged to ~1e-12).
 *     The discrete form is exact for grad u (P1, u linear) and takes 1/r^2 at element centroids (the
 *     one-point rule), whose error per element is ~ (h^2/24) |grad^3(1/r)| V_e, relative to the
 *     integrand ~ h^2 / (2 r^2): with r >= 3 mm and h = 0.25 mm below 4e-3; we allow h^2 / r^2 and
 *     require the error to fall by more than 3x when h halves (second order).
 *  2. Signs: the gradient pointing away from the electrode (a front approaching it: V high behind,
 *     low ahead) gives phi_e > 0; the opposite electrode sees the opposite sign.
 *  3. A run with probes and electrodes: the CSV columns, a lead equal to the difference of its
 *     electrodes' columns, probes at rest at t = 0 (-80 mV), the probe at the stimulated end
 *     upstroking; a probe outside the tissue is an error naming the distance.
 *  4. The plots of that run: t_probes.png and t_ecg.png decode (tests/hs_test_png.h) to 800 x 500
 *     with a curve per probe / per lead in its palette colour; a run stopped at 12 ms and restarted
 *     from its 10 ms checkpoint to 25 ms writes the same CSVs and the same PNGs byte for byte (the
 *     plot is drawn from every row kept, not only those after the restart; the restart is exact).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_plot.h"
#include "hs_sample.h"
#include "hs_sim.h"
#include "hs_test.h"
#include "hs_test_png.h"
#include "hs_test_spec.h"
#include "hs_util.h"

static const double PI = 3.14159265358979323846;

/* ∮ n / |y - x| dS over the box [0,L]: 3 components. */
static void surface_integral(const double L[3], const double x[3], double out[3])
{
    static const double gp[8] = {-0.9602898564975363, -0.7966664774136267, -0.5255324099163290, -0.1834346424956498,
                                 0.1834346424956498,  0.5255324099163290,  0.7966664774136267,  0.9602898564975363};
    static const double gw[8] = {0.1012285362903763, 0.2223810344533745, 0.3137066458778873, 0.3626837833783620,
                                 0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763};
    const int P = 16;
    out[0] = out[1] = out[2] = 0.0;
    for (int ax = 0; ax < 3; ++ax) {
        int u = (ax + 1) % 3, v = (ax + 2) % 3;
        for (int side = 0; side < 2; ++side) {
            double sum = 0.0, hu = L[u] / P, hv = L[v] / P;
            for (int pu = 0; pu < P; ++pu)
                for (int pv = 0; pv < P; ++pv)
                    for (int a = 0; a < 8; ++a)
                        for (int b = 0; b < 8; ++b) {
                            double y[3];
                            y[ax] = side ? L[ax] : 0.0;
                            y[u] = (pu + 0.5 + 0.5 * gp[a]) * hu;
                            y[v] = (pv + 0.5 + 0.5 * gp[b]) * hv;
                            double r = sqrt((y[0] - x[0]) * (y[0] - x[0]) + (y[1] - x[1]) * (y[1] - x[1]) +
                                            (y[2] - x[2]) * (y[2] - x[2]));
                            sum += gw[a] * gw[b] * 0.25 * hu * hv / r;
                        }
            out[ax] += side ? sum : -sum;
        }
    }
}

/* Relative error of the discrete pseudo-ECG at electrode x for u = g . y on a box meshed at h. */
static double uniform_field_error(double h, const double x[3], double *phi_out)
{
    static hs_sim_spec spec;
    hs_test_spec_defaults(&spec);
    const double L[3] = {2.0, 1.0, 1.0};
    spec.mesh.box = (hs_box_params){.lx = L[0], .ly = L[1], .lz = L[2], .h = h};
    spec.mesh.fibers = HS_FIBERS_CONSTANT;
    const double f[3] = {0.6, 0.8, 0.0};
    memcpy(spec.mesh.fiber_dir, f, sizeof f);
    hs_sim sim;
    if (hs_sim_create(&spec, &sim) != HS_OK) {
        fprintf(stderr, "set-up: %s\n", hs_error_message());
        return INFINITY;
    }
    hs_sample_set *s = NULL;
    const char *name = "x";
    const double sigma_b = 2.0;
    hs_status st = hs_sample_ecg_create(sim.prob, x, &name, 1, sigma_b, &s);
    if (st != HS_OK) {
        hs_sim_destroy(&sim);
        return INFINITY;
    }
    const double g[3] = {0.3, -0.2, 0.5};
    int32_t nn = sim.mesh->n_nodes;
    double *u = malloc(sizeof(double) * (size_t)nn), phi = 0.0;
    for (int32_t i = 0; i < nn; ++i)
        u[i] = g[0] * sim.mesh->xyz[3 * i] + g[1] * sim.mesh->xyz[3 * i + 1] + g[2] * sim.mesh->xyz[3 * i + 2];
    hs_sample_apply_ref(s, u, &phi);
    double gf = g[0] * f[0] + g[1] * f[1] + g[2] * f[2], Dg[3], S[3];
    for (int k = 0; k < 3; ++k) Dg[k] = spec.d_iso * g[k] + spec.d_ani * gf * f[k];
    surface_integral(L, x, S);
    double exact = -spec.model->mv_scale / (4 * PI * sigma_b) * (Dg[0] * S[0] + Dg[1] * S[1] + Dg[2] * S[2]);
    *phi_out = phi;
    free(u);
    hs_sample_set_destroy(&s);
    hs_sim_destroy(&sim);
    return fabs(phi - exact) / fabs(exact);
}

static void test_uniform_field(void)
{
    const double xs[2][3] = {{5.0, 0.5, 0.5}, {1.0, -2.0, 3.0}}; /* r >= 3 mm from the box */
    for (int q = 0; q < 2; ++q) {
        double p1 = 0, p2 = 0;
        double e1 = uniform_field_error(0.25, xs[q], &p1), e2 = uniform_field_error(0.125, xs[q], &p2);
        printf("uniform field, electrode [%g, %g, %g]: phi_e %.6g mV (h 0.25), %.6g mV (h 0.125); relative error "
               "%.2e, %.2e (ratio %.2f)\n", xs[q][0], xs[q][1], xs[q][2], p1, p2, e1, e2, e1 / e2);
        HS_TEST_CHECK(e1 <= 0.25 * 0.25 / 9.0 && e2 <= e1 / 3.0, "electrode %d: errors %.3e, %.3e", q, e1, e2);
    }
    /* sign: u increasing away from the electrode at +x means the front (high u behind) approaches it */
    double pa = 0, pb = 0;
    const double a[3] = {5.0, 0.5, 0.5}, b[3] = {-3.0, 0.5, 0.5};
    uniform_field_error(0.25, a, &pa);
    uniform_field_error(0.25, b, &pb);
    HS_TEST_CHECK(pa != 0 && pb != 0 && (pa > 0) != (pb > 0), "electrodes on both sides: %g, %g", pa, pb);
}

/* Issue 30, item 3: an electrode inside the tissue is refused, naming its key and depth; one on
 * the surface, or within a quarter of an element of it, is accepted. */
static void test_inside(void)
{
    static hs_sim_spec spec;
    hs_test_spec_defaults(&spec);
    spec.mesh.box = (hs_box_params){.lx = 2.0, .ly = 1.0, .lz = 1.0, .h = 0.25};
    spec.mesh.fibers = HS_FIBERS_CONSTANT;
    hs_sim sim;
    if (hs_sim_create(&spec, &sim) != HS_OK) {
        HS_TEST_CHECK(0, "set-up: %s", hs_error_message());
        return;
    }
    const char *names[2] = {"out", "in"};
    hs_sample_set *s = NULL;
    const double inside[2][3] = {{5.0, 0.5, 0.5}, {1.0, 0.5, 0.4}}; /* 0.4 mm above the face z = 0 */
    HS_TEST_CHECK(hs_sample_ecg_create(sim.prob, &inside[0][0], names, 2, 2.0, &s) == HS_ERR_CONFIG && !s,
                  "electrode at the box's middle accepted");
    const char *msg = hs_error_message();
    HS_TEST_CHECK(strstr(msg, "ecg.electrodes.[1].at: electrode \"in\" at [1, 0.5, 0.4] mm lies inside the tissue, "
                              "0.4 mm from its surface") && strstr(msg, "singular"),
                  "message: %s", msg);
    hs_error_clear();
    hs_sample_set_destroy(&s);
    /* on a face, on an edge, a hair inside, and outside: accepted */
    const double ok[4][3] = {{2.0, 0.5, 0.5}, {2.0, 1.0, 0.3}, {1.99, 0.5, 0.5}, {-1.0, 0.5, 0.5}};
    const char *ok_names[4] = {"face", "edge", "hair", "out"};
    HS_TEST_OK(hs_sample_ecg_create(sim.prob, &ok[0][0], ok_names, 4, 2.0, &s));
    hs_sample_set_destroy(&s);
    hs_sim_destroy(&sim);
}

static char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    *n = b ? fread(b, 1, (size_t)len, f) : 0;
    fclose(f);
    return b;
}

static void test_run(void)
{
    char cmd0[300];
    char dir[] = "/tmp/hs_ecg_XXXXXX";
    HS_TEST_CHECK(mkdtemp(dir) != NULL, "temporary directory");
    static hs_sim_spec spec;
    hs_test_spec_defaults(&spec);
    spec.mesh.box = (hs_box_params){.lx = 4.0, .ly = 1.0, .lz = 0.5, .h = 0.25};
    spec.n_stimuli = 1;
    spec.stimuli[0] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {0.6, 2, 2}, .start = 0.0,
                                        .duration = 2.0, .strength = 0.5};
    spec.t_end = 25.0;
    spec.output_enabled = 1;
    snprintf(spec.out_dir, sizeof spec.out_dir, "%s", dir);
    snprintf(spec.out_prefix, sizeof spec.out_prefix, "t");
    spec.out_interval = 5.0;
    spec.n_probes = 2;
    snprintf(spec.probe_name[0], 32, "near");
    snprintf(spec.probe_name[1], 32, "far");
    const double pxyz[2][3] = {{0.0, 0.0, 0.0}, {4.0, 1.0, 0.5}};
    memcpy(spec.probe_xyz, pxyz, sizeof pxyz);
    spec.n_electrodes = 2;
    snprintf(spec.electrode_name[0], 32, "A");
    snprintf(spec.electrode_name[1], 32, "B");
    const double exyz[2][3] = {{8.0, 0.5, 0.25}, {-4.0, 0.5, 0.25}};
    memcpy(spec.electrode_xyz, exyz, sizeof exyz);
    spec.n_leads = 1;
    spec.lead[0][0] = 0, spec.lead[0][1] = 1;
    snprintf(spec.lead_name[0], 72, "A-B");
    spec.ecg_interval = 0.5;
    hs_run_summary sum;
    HS_TEST_OK(hs_sim_run(&spec, NULL, NULL, &sum));
    char path[256], line[512];
    snprintf(path, sizeof path, "%s/t_ecg.csv", dir);
    FILE *f = fopen(path, "r");
    HS_TEST_CHECK(f != NULL, "no %s", path);
    int rows = 0, bad = 0, positive = 0;
    if (f) {
        HS_TEST_CHECK(fgets(line, sizeof line, f) && !strcmp(line, "t_ms,A,B,A-B\n"), "ECG header: %s", line);
        double t, a, b, l;
        while (fscanf(f, "%lf,%lf,%lf,%lf", &t, &a, &b, &l) == 4) {
            ++rows;
            bad += fabs(l - (a - b)) > 1e-9 * (fabs(a) + fabs(b)) + 1e-300;
            positive += t > 1.0 && l > 0;
        }
        fclose(f);
    }
    HS_TEST_CHECK(rows == 51 && bad == 0, "ECG: %d rows (51 expected), %d leads differ from A - B", rows, bad);
    HS_TEST_CHECK(positive > 10, "ECG: the lead A-B is positive in only %d samples while the front moves to A", positive);
    snprintf(path, sizeof path, "%s/t_probes.csv", dir);
    f = fopen(path, "r");
    HS_TEST_CHECK(f != NULL, "no %s", path);
    rows = 0;
    double first[2] = {0, 0}, vmax[2] = {-1e9, -1e9};
    if (f) {
        HS_TEST_CHECK(fgets(line, sizeof line, f) && !strcmp(line, "t_ms,near,far\n"), "probes header: %s", line);
        double t, a, b;
        while (fscanf(f, "%lf,%lf,%lf", &t, &a, &b) == 3) {
            if (rows++ == 0) first[0] = a, first[1] = b;
            vmax[0] = fmax(vmax[0], a), vmax[1] = fmax(vmax[1], b);
        }
        fclose(f);
    }
    HS_TEST_CHECK(rows == 251 && first[0] == -80.0 && first[1] == -80.0 && vmax[0] > 0.0,
                  "probes: %d rows, start %g %g mV, peak at the stimulated end %g mV", rows, first[0], first[1], vmax[0]);
    /* the plots */
    const char *png[2] = {"t_probes.png", "t_ecg.png"};
    const int curves[2] = {2, 1};
    for (int q = 0; q < 2; ++q) {
        snprintf(path, sizeof path, "%s/%s", dir, png[q]);
        image im = {0, 0, NULL};
        HS_TEST_CHECK(decode(path, &im) == 0, "cannot decode %s", path);
        HS_TEST_CHECK(im.w == 800 && im.h == 500, "%s: %d x %d, 800 x 500 expected", path, im.w, im.h);
        for (int k = 0; k < curves[q] && im.rgb; ++k) {
            unsigned char c[3];
            hs_plot_series_color(k, c);
            long n = count_color(&im, c);
            /* a curve across the plot area (about 700 pixels wide) plus its legend swatch */
            HS_TEST_CHECK(n > 300, "%s: curve %d has %ld pixels of its colour", path, k, n);
        }
        free(im.rgb);
    }
    /* the same run stopped at 12 ms, restarted from its 10 ms checkpoint: the same files */
    char dir2[] = "/tmp/hs_ecg_rs_XXXXXX";
    HS_TEST_CHECK(mkdtemp(dir2) != NULL, "temporary directory");
    static hs_sim_spec sp2;
    sp2 = spec;
    snprintf(sp2.out_dir, sizeof sp2.out_dir, "%s", dir2);
    sp2.checkpoint_interval = 10.0;
    sp2.t_end = 12.0;
    HS_TEST_OK(hs_sim_run(&sp2, NULL, NULL, &sum));
    snprintf(path, sizeof path, "%s/t_ckpt_000000100.hsck", dir2);
    sp2.t_end = 25.0;
    HS_TEST_OK(hs_sim_run(&sp2, path, NULL, &sum));
    const char *same[4] = {"t_probes.csv", "t_ecg.csv", "t_probes.png", "t_ecg.png"};
    for (int q = 0; q < 4; ++q) {
        char pa[256], pb[256];
        snprintf(pa, sizeof pa, "%s/%s", dir, same[q]);
        snprintf(pb, sizeof pb, "%s/%s", dir2, same[q]);
        size_t na = 0, nb = 0;
        char *a = read_all(pa, &na), *b = read_all(pb, &nb);
        HS_TEST_CHECK(a && b && na == nb && !memcmp(a, b, na), "restart: %s differs from the uninterrupted run's", same[q]);
        free(a);
        free(b);
    }
    snprintf(cmd0, sizeof cmd0, "rm -rf %s", dir2);
    HS_TEST_CHECK(system(cmd0) == 0, "cleanup");
    /* a probe outside the tissue */
    spec.probe_xyz[1][0] = 40.0;
    hs_status st = hs_sim_run(&spec, NULL, NULL, &sum);
    HS_TEST_CHECK(st == HS_ERR_CONFIG && strstr(hs_error_message(), "probe \"far\"") &&
                      strstr(hs_error_message(), "outside the tissue"),
                  "a probe outside: %d \"%s\"", (int)st, hs_error_message());
    hs_error_clear();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    HS_TEST_CHECK(system(cmd) == 0, "cleanup");
}

int main(void)
{
    hs_verbosity = 0;
    test_uniform_field();
    test_inside();
    test_run();
    HS_TEST_RETURN();
}
