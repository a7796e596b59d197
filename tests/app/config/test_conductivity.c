/* Conductivities in S/m (tissue.sigma_*, tissue.chi, tissue.c_m) and the per-model default D
 * (app/config_load.c resolve_conductivity, app/hs_conductivity.h):
 *  - the unit conversion D [mm^2/ms] = 1000 sigma [S/m] / (chi [1/cm] C_m [uF/cm^2]) against the
 *    worked example of docs/config.md (0.17 S/m -> 0.1214 mm^2/ms) and openCARP's harmonic mean
 *    (tutorial 03A: gi = 0.174, ge = 0.625 -> gm = 0.1361 S/m);
 *  - the same D from either unit to round-off (a few ulps: one division and one multiplication);
 *  - the errors: both forms given (naming both keys), half a pair, zero, extracellular alone,
 *    along < across;
 *  - the model's default D when neither form is given, and the print -> load round trip. */
#define _POSIX_C_SOURCE 200809L

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_conductivity.h"
#include "hs_config.h"
#include "hs_models.h"
#include "hs_test.h"

static hs_config cfg, cfg2;

static hs_status load(hs_config *c, const char *a, const char *b, const char *d, const char *e)
{
    const char *set[4] = {a, b, d, e};
    int n = 0;
    while (n < 4 && set[n]) ++n;
    hs_error_clear(); /* the message of this load, not the first one recorded */
    return hs_config_load(NULL, set, n, c);
}

/* |a - b| within k ulps of the larger */
static int close_ulps(double a, double b, double k)
{
    return fabs(a - b) <= k * DBL_EPSILON * fmax(fabs(a), fabs(b));
}

static void expect_error(const char *what, const char *a, const char *b, const char *c, const char *k1, const char *k2)
{
    hs_status st = load(&cfg, a, b, c, NULL);
    const char *msg = hs_error_message();
    HS_TEST_CHECK(st == HS_ERR_CONFIG, "%s: loaded (status %d)", what, (int)st);
    if (st != HS_ERR_CONFIG) return;
    HS_TEST_CHECK(strstr(msg, k1) != NULL, "%s: message lacks \"%s\":\n  %s", what, k1, msg);
    HS_TEST_CHECK(!k2 || strstr(msg, k2) != NULL, "%s: message lacks \"%s\":\n  %s", what, k2, msg);
}

int main(void)
{
    hs_verbosity = 0;
    /* the worked example: 0.17 S/m, chi 1400/cm, C_m 1 uF/cm^2 = 0.17 / (1.4e5 /m x 1e-2 F/m^2) m^2/s */
    HS_TEST_CHECK(fabs(hs_cond_d_from_sigma(0.17, 1400.0, 1.0) - 0.17 / (1.4e5 * 1e-2) * 1e3) <= 1e-15 &&
                      fabs(hs_cond_d_from_sigma(0.17, 1400.0, 1.0) - 0.1214) < 5e-5,
                  "0.17 S/m -> %.6g mm^2/ms, expected 0.1214", hs_cond_d_from_sigma(0.17, 1400.0, 1.0));
    HS_TEST_CHECK(fabs(hs_cond_monodomain(0.174, 0.625) - 0.1361) < 5e-5, "harmonic mean of 0.174, 0.625 = %.5f, openCARP "
                  "prints 0.1361", hs_cond_monodomain(0.174, 0.625));
    HS_TEST_CHECK(close_ulps(hs_cond_sigma_from_d(hs_cond_d_from_sigma(0.3, 900.0, 0.8), 900.0, 0.8), 0.3, 4),
                  "sigma -> D -> sigma is not the identity");

    /* intracellular only */
    HS_TEST_CHECK(load(&cfg, "tissue.sigma_il=0.17", "tissue.sigma_it=0.0425", NULL, NULL) == HS_OK, "sigma_i: %s",
                  hs_error_message());
    double dl = 1000.0 * 0.17 / 1400.0, dt = 1000.0 * 0.0425 / 1400.0;
    HS_TEST_CHECK(close_ulps(cfg.d_iso, dt, 4) && close_ulps(cfg.d_iso + cfg.d_ani, dl, 4),
                  "sigma_i 0.17, 0.0425 S/m: D = %.17g, %.17g mm^2/ms, expected %.17g, %.17g", cfg.d_iso + cfg.d_ani,
                  cfg.d_iso, dl, dt);
    /* the same D given in mm^2/ms: identical to round-off */
    char a[64], b[64];
    snprintf(a, sizeof a, "model.d_iso=%.17g", dt);
    snprintf(b, sizeof b, "model.d_ani=%.17g", dl - dt);
    HS_TEST_CHECK(load(&cfg2, a, b, NULL, NULL) == HS_OK, "D: %s", hs_error_message());
    HS_TEST_CHECK(close_ulps(cfg.d_iso, cfg2.d_iso, 4) && close_ulps(cfg.d_ani, cfg2.d_ani, 4),
                  "S/m and mm^2/ms give D %.17g/%.17g and %.17g/%.17g", cfg.d_iso, cfg.d_ani, cfg2.d_iso, cfg2.d_ani);
    /* chi and C_m enter as their product */
    HS_TEST_CHECK(load(&cfg, "tissue.sigma_il=0.2", "tissue.sigma_it=0.1", "tissue.chi=1000", "tissue.c_m=2") == HS_OK,
                  "chi, c_m: %s", hs_error_message());
    HS_TEST_CHECK(close_ulps(cfg.d_iso, 0.05, 4) && close_ulps(cfg.d_iso + cfg.d_ani, 0.1, 4),
                  "chi 1000, C_m 2: D = %g, %g, expected 0.1, 0.05", cfg.d_iso + cfg.d_ani, cfg.d_iso);
    /* intra and extra: the harmonic mean per direction */
    {
        const char *set[4] = {"tissue.sigma_il=0.174", "tissue.sigma_it=0.0193", "tissue.sigma_el=0.625",
                              "tissue.sigma_et=0.236"};
        hs_error_clear();
        HS_TEST_CHECK(hs_config_load(NULL, set, 4, &cfg) == HS_OK, "sigma_i, sigma_e: %s", hs_error_message());
        double ml = 0.174 * 0.625 / (0.174 + 0.625), mt = 0.0193 * 0.236 / (0.0193 + 0.236);
        HS_TEST_CHECK(close_ulps(cfg.d_iso, mt / 1.4, 8) && close_ulps(cfg.d_iso + cfg.d_ani, ml / 1.4, 8),
                      "harmonic mean: D = %.17g, %.17g, expected %.17g, %.17g", cfg.d_iso + cfg.d_ani, cfg.d_iso, ml / 1.4,
                      mt / 1.4);
        /* printed, the config loads again to the same D (model.d_* as comments) */
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        hs_config_print(&cfg, m);
        fclose(m);
        char path[] = "/tmp/hs_test_conductivity_XXXXXX";
        int fd = mkstemp(path);
        HS_TEST_CHECK(fd >= 0, "mkstemp");
        if (fd >= 0) {
            FILE *f = fdopen(fd, "w");
            fputs(text, f);
            fclose(f);
            HS_TEST_CHECK(hs_config_load(path, NULL, 0, &cfg2) == HS_OK, "printed config: %s", hs_error_message());
            HS_TEST_CHECK(cfg2.d_iso == cfg.d_iso && cfg2.d_ani == cfg.d_ani && cfg2.sigma_el == cfg.sigma_el,
                          "round trip: D %.17g/%.17g -> %.17g/%.17g", cfg.d_iso, cfg.d_ani, cfg2.d_iso, cfg2.d_ani);
            remove(path);
        }
        free(text);
    }

    /* errors */
    expect_error("both forms", "model.d_iso=0.2", "tissue.sigma_il=0.17", "tissue.sigma_it=0.02", "model.d_iso",
                 "tissue.sigma_il");
    expect_error("both forms (d_ani)", "model.d_ani=0.2", "tissue.sigma_it=0.02", "tissue.sigma_il=0.17", "model.d_ani",
                 "tissue.sigma_");
    expect_error("half a pair", "tissue.sigma_il=0.17", NULL, NULL, "tissue.sigma_il is given without tissue.sigma_it",
                 NULL);
    expect_error("half the extracellular pair", "tissue.sigma_il=0.17", "tissue.sigma_it=0.02", "tissue.sigma_et=0.2",
                 "tissue.sigma_et is given without tissue.sigma_el", NULL);
    expect_error("zero", "tissue.sigma_il=0", "tissue.sigma_it=0.02", NULL, "tissue.sigma_il = 0 S/m", "must be > 0");
    expect_error("negative", "tissue.sigma_il=-1", "tissue.sigma_it=0.02", NULL, "tissue.sigma_il", "must be > 0");
    expect_error("extracellular alone", "tissue.sigma_el=0.6", "tissue.sigma_et=0.2", NULL, "without the intracellular",
                 NULL);
    expect_error("along < across", "tissue.sigma_il=0.02", "tissue.sigma_it=0.17", NULL, "below the one across", NULL);

    /* defaults: the model's own D when no form is given; a given key keeps its value */
    for (int i = 0; i < hs_models_count(); ++i) {
        const hs_model *m = hs_models_at(i);
        snprintf(a, sizeof a, "model.type=\"%s\"", m->name);
        const char *set[2] = {a, "time.dt=0.01"};
        HS_TEST_CHECK(hs_config_load(NULL, set, 2, &cfg) == HS_OK, "%s: %s", m->name, hs_error_message());
        HS_TEST_CHECK(cfg.d_iso == hs_model_d_default(m, 0) && cfg.d_ani == hs_model_d_default(m, 1),
                      "%s: default d_iso, d_ani = %g, %g, the model's %g, %g", m->name, cfg.d_iso, cfg.d_ani,
                      hs_model_d_default(m, 0), hs_model_d_default(m, 1));
    }
    HS_TEST_CHECK(load(&cfg, NULL, NULL, NULL, NULL) == HS_OK && cfg.d_iso == 0.3 && cfg.d_ani == 0.9,
                  "Aliev-Panfilov's default D changed: %g, %g (existing configs would change)", cfg.d_iso, cfg.d_ani);
    HS_TEST_CHECK(load(&cfg, "model.type=\"mitchell_schaeffer\"", "model.d_iso=0.05", NULL, NULL) == HS_OK &&
                      cfg.d_iso == 0.05 && cfg.d_ani == hs_model_d_default(hs_models_find("mitchell_schaeffer"), 1),
                  "d_iso given: d_ani must stay the model's default");
    /* a model generated from CellML: its own default (splitting; docs/config.md), and a given D exactly as given */
    const hs_model *ord = hs_models_find("ohara_rudy_2011");
    HS_TEST_CHECK(ord && ord->d_default[0] > 0.0, "ohara_rudy_2011 has no tuned default D");
    HS_TEST_CHECK(load(&cfg, "model.type=\"ohara_rudy_2011\"", NULL, NULL, NULL) == HS_OK && cfg.d_iso == 0.1001 &&
                      cfg.d_ani == 0.1511,
                  "ohara_rudy_2011: default D %g, %g, not its tuned 0.1001, 0.1511", cfg.d_iso, cfg.d_ani);
    HS_TEST_CHECK(load(&cfg, "model.type=\"ten_tusscher_2006_epi\"", "model.d_iso=0.0126", "model.d_ani=0.0827", NULL) ==
                          HS_OK &&
                      cfg.d_iso == 0.0126 && cfg.d_ani == 0.0827,
                  "ten_tusscher_2006_epi: the given D 0.0126, 0.0827 became %g, %g", cfg.d_iso, cfg.d_ani);
    HS_TEST_CHECK(load(&cfg, "model.type=\"courtemanche_1998\"", "model.d_ani=0.2", NULL, NULL) == HS_OK &&
                      cfg.d_iso == 0.05438 && cfg.d_ani == 0.2,
                  "courtemanche_1998: d_ani given: %g, %g (d_iso must stay the model's 0.05438)", cfg.d_iso, cfg.d_ani);
    HS_TEST_RETURN();
}
