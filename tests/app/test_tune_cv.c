/*
 * `heartsim tune-cv` (app/tune_cv.c) and conduction with conductivities in S/m, on the cpu backend:
 *  1. tune-cv reaches its target within 1% (Aliev-Panfilov 0.5 m/s from D = 1.2 mm^2/ms;
 *     Mitchell-Schaeffer 0.4 m/s from its default), and a fresh measurement at the D it returns
 *     gives that speed again;
 *  2. the speed of the cubic front (Aliev-Panfilov, r off) scales as sqrt(D): v(4 D) / v(D) = 2
 *     within 1% (the discrete front at h = 0.25 mm is 4 to 8 elements wide; docs/verification.md);
 *  3. conductivities in S/m (intracellular alone, and intra + extra by the harmonic mean) giving
 *     D = 1.2 mm^2/ms conduct at the analytic speed sqrt(c D / (2 T)) (1 - 2 alpha) = 0.5978 m/s within 1%
 *     (the error of backward Euler at dt = 0.05 ms is +0.13%, the strip's ~0.5%: docs/verification.md);
 *  4. every model's tuned default D (hs_model.d_default) conducts at 0.6 and 0.3 m/s within 2% at
 *     mesh.h = 0.5 mm and the largest dt = 0.1 / 2^k below its tangent bound (how the defaults were
 *     tuned: docs/config.md), under its default scheme (solver.scheme = "auto") and under splitting
 *     (hs_model.d_default_split); every model of the list must have one (docs/config.md promises 0.6 and
 *     0.3 m/s for every model: a new model is tuned before it is listed). The models generated from
 *     CellML (potential in mV, splitting only, no tangent bound: dt = 0.1 ms) are stimulated as their
 *     defaults were tuned, with the Niederer benchmark's 35.7 mV/ms for 2 ms (the strip's default 2/ms
 *     is 2 mV/ms for them: below threshold).
 * Usage: test_tune_cv [--table]: --table prints the tables of docs/verification.md (slower).
 * Built as test_gpu_tune_cv (HS_TEST_BACKEND "cuda"; exit 77 without a device): the strip's CV on the cuda
 * backend equals the cpu reference within 1e-6 relative (both solve each step to the Newton tolerance
 * 1e-8 in phi; a crossing time moves by about 1e-8 / (dphi/dt) = 1e-7 ms against 16 ms between the
 * window's ends: ~1e-8 relative), and tune-cv on cuda reaches its target within 1%.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hs_backends.h"
#include "hs_config.h"
#include "hs_models.h"
#include "hs_test.h"
#include "hs_tune_cv.h"

static hs_config cfg;

static hs_status load(const char *a, const char *b, const char *c, const char *d, const char *e)
{
    const char *set[6] = {"solver.backend=\"cpu\"", a, b, c, d, e};
    int n = 1;
    while (n < 6 && set[n]) ++n;
    hs_error_clear();
    return hs_config_load(NULL, set, n, &cfg);
}

static double measure(const hs_tune_cv_opts *o, double d)
{
    double cv = NAN;
    if (hs_tune_cv_measure(&cfg, o, d, &cv) != HS_OK) fprintf(stderr, "measure: %s\n", hs_error_message());
    return cv;
}

/* The largest dt = 0.1 / 2^k ms below the model's tangent bound (time.dt's default when it is valid). */
static double model_dt(const hs_model *m)
{
    hs_model_params p;
    hs_model_params_defaults(m, &p);
    double bound = m->dt_max ? m->dt_max(p.v) * m->time_unit_default : INFINITY;
    double dt = 0.1;
    while (dt >= bound) dt *= 0.5;
    return dt;
}

static void table(void)
{
    /* sqrt(D) scaling and the analytic speed, Aliev-Panfilov with r off */
    HS_TEST_CHECK(load("model.recovery=false", NULL, NULL, NULL, NULL) == HS_OK, "%s", hs_error_message());
    const double c = 8.0, T = 12.9, alpha = 0.01;
    printf("| D (mm^2/ms) | h (mm) | dt (ms) | CV (m/s) | analytic (m/s) | error | CV / CV(D/4) |\n|---|---|---|---|---|---|---|\n");
    for (int ih = 0; ih < 2; ++ih) {
        double h = ih ? 0.125 : 0.25;
        double prev = NAN;
        for (double d = 0.075; d < 5; d *= 4) {
            hs_tune_cv_opts o = {.h = h, .dt = 0.05, .length = 40.0};
            double v = measure(&o, d), va = sqrt(c * d / (2 * T)) * (1 - 2 * alpha);
            printf("| %g | %g | 0.05 | %.5f | %.5f | %+.2f%% | %s%.4f |\n", d, h, v, va, 100 * (v - va) / va,
                   isfinite(prev) ? "" : "-", isfinite(prev) ? v / prev : 0.0);
            prev = v;
        }
    }
    /* Bueno-Orovio with the paper's D = 1.171 cm^2/s (0.1640 S/m at chi 1400/cm, C_m 1 uF/cm^2): refinement */
    printf("\n| model | sigma_il (S/m) | D (mm^2/ms) | h (mm) | dt (ms) | CV (m/s) |\n|---|---|---|---|---|---|\n");
    HS_TEST_CHECK(load("model.type=\"bueno_orovio\"", "tissue.sigma_il=0.16394", "tissue.sigma_it=0.16394",
                       "time.dt=0.01", NULL) == HS_OK, "%s", hs_error_message());
    for (double h = 0.4; h > 0.02; h *= 0.5) {
        hs_tune_cv_opts o = {.h = h, .dt = 0.01, .length = 30.0};
        printf("| bueno_orovio | 0.16394 | %.5g | %g | 0.01 | %.5f |\n", cfg.d_iso, h, measure(&o, cfg.d_iso));
    }
}

#ifdef HS_TEST_BACKEND
static int gpu_main(void)
{
    const hs_backend_entry *e = hs_backends_find(HS_TEST_BACKEND);
    char desc[256] = "", why[256] = "";
    if (!e || !e->probe || !e->probe(desc, sizeof desc, why, sizeof why)) {
        printf("backend %s not available: %s\n", HS_TEST_BACKEND, why);
        return HS_TEST_SKIP;
    }
    const char *models[2] = {"model.type=\"aliev_panfilov\"", "model.type=\"mitchell_schaeffer\""};
    for (int q = 0; q < 2; ++q) {
        double v[2];
        for (int b = 0; b < 2; ++b) {
            const char *set[2] = {models[q], b ? "solver.backend=\"" HS_TEST_BACKEND "\"" : "solver.backend=\"cpu\""};
            hs_error_clear();
            HS_TEST_CHECK(hs_config_load(NULL, set, 2, &cfg) == HS_OK, "%s", hs_error_message());
            hs_tune_cv_opts o = {.h = 0.5, .dt = 0.1};
            v[b] = measure(&o, cfg.d_iso + cfg.d_ani);
        }
        printf("%s: CV cpu %.9f, %s %.9f m/s\n", models[q], v[0], HS_TEST_BACKEND, v[1]);
        HS_TEST_CHECK(fabs(v[1] - v[0]) <= 1e-6 * v[0], "%s: %s CV %.9g differs from cpu %.9g", models[q], HS_TEST_BACKEND,
                      v[1], v[0]);
    }
    hs_tune_cv_result r;
    hs_tune_cv_opts o = {.h = 0.5, .dt = 0.1};
    HS_TEST_CHECK(hs_tune_cv_direction(&cfg, &o, 0.4, cfg.d_iso + cfg.d_ani, NULL, &r) == HS_OK && fabs(r.cv - 0.4) <= 0.004,
                  "tune-cv on %s: %s (CV %g)", HS_TEST_BACKEND, hs_error_message(), r.cv);
    HS_TEST_RETURN();
}
#endif

int main(int argc, char **argv)
{
    hs_verbosity = 0;
#ifdef HS_TEST_BACKEND
    (void)argc, (void)argv;
    return gpu_main();
#endif
    if (argc > 1 && !strcmp(argv[1], "--table")) {
        table();
        HS_TEST_RETURN();
    }
    hs_tune_cv_result r;
    /* 1. tune-cv reaches its targets */
    HS_TEST_CHECK(load(NULL, NULL, NULL, NULL, NULL) == HS_OK, "%s", hs_error_message());
    hs_tune_cv_opts o = {.h = 0.5, .dt = 0.1};
    HS_TEST_CHECK(hs_tune_cv_direction(&cfg, &o, 0.5, 1.2, NULL, &r) == HS_OK, "AP to 0.5 m/s: %s", hs_error_message());
    double again = measure(&o, r.d);
    printf("aliev_panfilov: 0.5 m/s: D = %.6g mm^2/ms, CV %.5f (again %.5f), %d simulations\n", r.d, r.cv, again, r.iters);
    HS_TEST_CHECK(fabs(r.cv - 0.5) <= 0.01 * 0.5 && fabs(again - 0.5) <= 0.01 * 0.5, "AP: CV %g / %g not within 1%% of 0.5",
                  r.cv, again);
    HS_TEST_CHECK(load("model.type=\"mitchell_schaeffer\"", NULL, NULL, NULL, NULL) == HS_OK, "%s", hs_error_message());
    HS_TEST_CHECK(hs_tune_cv_direction(&cfg, &o, 0.4, cfg.d_iso + cfg.d_ani, NULL, &r) == HS_OK, "MS to 0.4 m/s: %s",
                  hs_error_message());
    again = measure(&o, r.d);
    printf("mitchell_schaeffer: 0.4 m/s: D = %.6g mm^2/ms, CV %.5f (again %.5f), %d simulations\n", r.d, r.cv, again, r.iters);
    HS_TEST_CHECK(fabs(r.cv - 0.4) <= 0.01 * 0.4 && fabs(again - 0.4) <= 0.01 * 0.4, "MS: CV %g / %g not within 1%% of 0.4",
                  r.cv, again);

    /* 2. sqrt(D) scaling of the cubic front */
    HS_TEST_CHECK(load("model.recovery=false", NULL, NULL, NULL, NULL) == HS_OK, "%s", hs_error_message());
    hs_tune_cv_opts f = {.h = 0.25, .dt = 0.05, .length = 40.0};
    double v1 = measure(&f, 0.3), v4 = measure(&f, 1.2);
    printf("aliev_panfilov, r off: CV(0.3) = %.5f, CV(1.2) = %.5f, ratio %.5f (sqrt(4) = 2)\n", v1, v4, v4 / v1);
    HS_TEST_CHECK(fabs(v4 / v1 - 2.0) <= 0.01 * 2.0, "CV(4 D) / CV(D) = %g, not 2 within 1%%", v4 / v1);

    /* 3. S/m against the analytic speed: D = 1.2 mm^2/ms = 1.68 S/m at chi 1400/cm, C_m 1 uF/cm^2 */
    const double va = sqrt(8.0 * 1.2 / (2 * 12.9)) * (1 - 2 * 0.01);
    const char *forms[2][4] = {{"tissue.sigma_il=1.68", "tissue.sigma_it=0.42", NULL, NULL},
                               {"tissue.sigma_il=3.36", "tissue.sigma_it=0.84", "tissue.sigma_el=3.36", "tissue.sigma_et=0.84"}};
    for (int q = 0; q < 2; ++q) {
        HS_TEST_CHECK(load("model.recovery=false", forms[q][0], forms[q][1], forms[q][2], forms[q][3]) == HS_OK, "%s",
                      hs_error_message());
        double v = measure(&f, cfg.d_iso + cfg.d_ani), vt = measure(&f, cfg.d_iso);
        printf("%s: D = %.6g, %.6g mm^2/ms: CV %.5f, %.5f m/s (analytic %.5f, %.5f)\n",
               q ? "sigma_i = sigma_e" : "sigma_i", cfg.d_iso + cfg.d_ani, cfg.d_iso, v, vt, va, va / 2);
        HS_TEST_CHECK(fabs(v - va) <= 0.01 * va && fabs(vt - va / 2) <= 0.01 * va / 2,
                      "S/m (%d): CV %g, %g against the analytic %g, %g", q, v, vt, va, va / 2);
    }

    /* 4. the models' defaults conduct at 0.6 and 0.3 m/s (within 2%: they were tuned to 0.1% and rounded
     *    to 4 digits) at h = 0.5 mm, under the scheme each runs by default (solver.scheme = "auto") and
     *    under splitting (hs_model.d_default_split where the model has one) */
    for (int i = 0; i < hs_models_count(); ++i) {
        const hs_model *m = hs_models_at(i);
        HS_TEST_CHECK(m->d_default[0] > 0.0 && m->d_default[1] >= 0.0,
                      "%s: no tuned default D (hs_model.d_default; for a model generated from CellML: "
                      "scripts/cellml/generate.py --d-default)", m->name);
        if (!(m->d_default[0] > 0.0)) continue;
        static const char *const schemes[2] = {"auto", "splitting"};
        for (int q = 0; q < 2; ++q) {
            if (q == 1 && !(m->schemes & HS_MODEL_SCHEME_SPLITTING)) continue;
            if (q == 1 && !(m->schemes & HS_MODEL_SCHEME_NEWTON)) continue; /* auto is splitting already */
            char t[64], sc[64];
            snprintf(t, sizeof t, "model.type=\"%s\"", m->name);
            snprintf(sc, sizeof sc, "solver.scheme=\"%s\"", schemes[q]);
            HS_TEST_CHECK(load(t, "time.dt=0.01", sc, NULL, NULL) == HS_OK, "%s", hs_error_message());
            hs_tune_cv_opts od = {.h = 0.5, .dt = model_dt(m)};
            if (!strcmp(m->potential_unit, "mV")) od.stim_strength = 50000.0 / 1400.0; /* uA/cm^3 / (chi C_m) */
            double vl = measure(&od, cfg.d_iso + cfg.d_ani), vt = measure(&od, cfg.d_iso);
            printf("%s, scheme %s: default D = %g, %g mm^2/ms at h = 0.5 mm, dt = %g ms: CV %.4f, %.4f m/s\n",
                   m->name, schemes[q], cfg.d_iso + cfg.d_ani, cfg.d_iso, od.dt, vl, vt);
            HS_TEST_CHECK(fabs(vl - 0.6) <= 0.02 * 0.6 && fabs(vt - 0.3) <= 0.02 * 0.3,
                          "%s, scheme %s: default CV %g, %g m/s not within 2%% of 0.6, 0.3", m->name, schemes[q], vl,
                          vt);
        }
    }
    HS_TEST_RETURN();
}
