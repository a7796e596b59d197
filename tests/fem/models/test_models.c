/*
 * Every ionic model of fem/models/hs_model_list.h, through the model interface only:
 *  1. its descriptor is well formed: unique names (parameters across all models too, since each is
 *     the config key model.<name>), defaults inside their ranges, at most HS_MODEL_MAX_VARS
 *     variables at integration points, counts equal to its header's HS_MODEL_NVARS_<id> and
 *     HS_MODEL_NPARAMS_<id> (what the CUDA kernels and the config tables are sized by), names shorter
 *     than HS_MODEL_NAME_LEN, a positive mV scale and time unit, dt_max > 0;
 *  2. the local update converges from rest and from a perturbed state, over a range of potentials;
 *  3. the consistent derivative df/du that the tangent uses equals a central difference of the
 *     ionic term f(u, s(u)) with the variables re-solved from s_n at each perturbed u (the
 *     global-local linearisation), to the accuracy of the difference: |fd - dfdu| <= 1e-6 (|dfdu|+1);
 *  4. its nodal form (fem/models/hs_model_ode.h, the splitting scheme's) agrees with its descriptor
 *     (tau > 0 exactly for the variables marked gate) and, for a model with the local update too,
 *     with it: at u_n = u the Rush-Larsen local update of a gate is the nodal form's exponential step,
 *     bit for bit; any other variable's backward-Euler difference quotient tends to the nodal form's
 *     derivative (|q - a| <= 1e-4 (|a| + 1) at dt = 1e-6, an O(dt) difference); the ionic term is
 *     the nodal form's f at the updated variables, bit for bit.
 * A new model needs no new line here.
 */
#include <math.h>
#include <string.h>

#include "hs_model_ode.h"
#include "hs_model_point.h"
#include "hs_model_sizes.h"
#include "hs_models.h"
#include "hs_state.h"
#include "hs_test.h"

static int in_range(const hs_model_param *q, double v)
{
    if ((q->bounds & HS_PARAM_MIN_CLOSED) && !(v >= q->min)) return 0;
    if ((q->bounds & HS_PARAM_MIN_OPEN) && !(v > q->min)) return 0;
    if ((q->bounds & HS_PARAM_MAX_CLOSED) && !(v <= q->max)) return 0;
    if ((q->bounds & HS_PARAM_MAX_OPEN) && !(v < q->max)) return 0;
    return 1;
}

static void check_descriptor(const hs_model *m)
{
    HS_TEST_CHECK(m->n_params <= HS_MODEL_MAX_PARAMS && m->n_vars <= HS_MODEL_MAX_VARS, "%s: too many", m->name);
    static const int nv[] = {
#define HS_MODEL(id) HS_MODEL_NVARS_##id,
#include "hs_model_list.h"
#undef HS_MODEL
    };
    static const int np[] = {
#define HS_MODEL(id) HS_MODEL_NPARAMS_##id,
#include "hs_model_list.h"
#undef HS_MODEL
    };
    HS_TEST_CHECK(m->id >= 0 && m->id < HS_MODEL_COUNT && m->n_vars == nv[m->id] && m->n_params == np[m->id],
                  "%s: %d variables and %d parameters, its header says %d and %d", m->name, m->n_vars, m->n_params,
                  m->id >= 0 && m->id < HS_MODEL_COUNT ? nv[m->id] : -1, m->id >= 0 && m->id < HS_MODEL_COUNT ? np[m->id] : -1);
    HS_TEST_CHECK(strlen(m->potential_name) < HS_MODEL_NAME_LEN, "%s: potential name too long", m->name);
    for (int v = 0; v < m->n_vars; ++v)
        HS_TEST_CHECK(strlen(m->vars[v].name) < HS_MODEL_NAME_LEN, "%s.%s: name too long", m->name, m->vars[v].name);
    for (int v = 0; v < m->n_vars; ++v) /* the backends keep the variables as one [n_vars][n_elems] block */
        HS_TEST_CHECK(m->vars[v].where == HS_AT_IP, "%s.%s: variables live at integration points", m->name,
                      m->vars[v].name);
    HS_TEST_CHECK(m->mv_scale > 0 && m->time_unit_default > 0, "%s: mV scale / time unit", m->name);
    for (int k = 0; k < m->n_params; ++k) {
        const hs_model_param *q = &m->params[k];
        HS_TEST_CHECK(in_range(q, q->def), "%s: default of %s out of its range", m->name, q->name);
        HS_TEST_CHECK(q->kind != HS_PARAM_SWITCH || q->def == 0.0 || q->def == 1.0, "%s.%s: switch default", m->name,
                      q->name);
        HS_TEST_CHECK(q->meaning && q->unit, "%s.%s: meaning and unit", m->name, q->name);
        /* model.<name> must be unique over every model and must not shadow a tissue key */
        static const char *const tissue[] = {"type", "d_iso", "d_ani", "time_unit", "preset", "gates"};
        for (size_t t = 0; t < sizeof tissue / sizeof tissue[0]; ++t)
            HS_TEST_CHECK(strcmp(q->name, tissue[t]) != 0, "%s.%s shadows model.%s", m->name, q->name, tissue[t]);
        for (int i = 0; i < hs_models_count(); ++i) {
            const hs_model *o = hs_models_at(i);
            for (int j = 0; j < o->n_params; ++j)
                if (o != m || j != k)
                    HS_TEST_CHECK(strcmp(q->name, o->params[j].name) != 0, "parameter %s of %s and %s", q->name,
                                  m->name, o->name);
        }
    }
    hs_model_params p;
    hs_model_params_defaults(m, &p);
    HS_TEST_CHECK(m->dt_max && m->dt_max(p.v) > 0, "%s: dt_max", m->name);
    /* the state descriptor: potential, the variables, activation */
    hs_state_desc d;
    hs_state_desc_init(&d, m, 10, 20);
    HS_TEST_CHECK(d.n_fields == m->n_vars + 1 + HS_STATE_READOUTS && d.activation == m->n_vars + 1, "%s: state fields", m->name);
    HS_TEST_CHECK(hs_state_find(&d, m->potential_name) == HS_STATE_POTENTIAL, "%s: potential first", m->name);
}

static void check_point(const hs_model *m)
{
    hs_model_params p;
    hs_model_params_defaults(m, &p);
    const double dt = 0.05; /* model units */
    double s_n[HS_MODEL_MAX_VARS];
    for (int k = 0; k < m->n_vars; ++k) s_n[k] = m->vars[k].initial;
    for (int pass = 0; pass < 2; ++pass) {
        for (double u = -0.1; u <= 1.1; u += 0.05) {
            double s[HS_MODEL_MAX_VARS], f = 0.0, df = 0.0;
            memcpy(s, s_n, sizeof s);
            int it = hs_model_point(&p, u, u, dt, s_n, s, &f, &df);
            HS_TEST_CHECK(it >= 0 && isfinite(f) && isfinite(df), "%s: local update failed at u = %g", m->name, u);
            const double h = 1e-6;
            double sp[HS_MODEL_MAX_VARS], sm[HS_MODEL_MAX_VARS], fp = 0.0, fm = 0.0, dd = 0.0;
            memcpy(sp, s_n, sizeof sp);
            memcpy(sm, s_n, sizeof sm);
            hs_model_point(&p, u, u + h, dt, s_n, sp, &fp, &dd);
            hs_model_point(&p, u, u - h, dt, s_n, sm, &fm, &dd);
            double fd = (fp - fm) / (2 * h);
            HS_TEST_CHECK(fabs(df - fd) <= 1e-6 * (fabs(df) + 1.0), "%s: df/du = %.10g at u = %g (pass %d), central "
                          "difference %.10g", m->name, df, u, pass, fd);
        }
        /* second pass from a recovering state: the variables after a long excitation */
        for (int q = 0; q < 200; ++q) {
            double s[HS_MODEL_MAX_VARS], f = 0.0, df = 0.0;
            memcpy(s, s_n, sizeof s);
            hs_model_point(&p, 0.9, 0.9, dt, s_n, s, &f, &df);
            memcpy(s_n, s, sizeof s);
        }
    }
}

static void check_nodal(const hs_model *m)
{
    HS_TEST_CHECK(m->schemes & HS_MODEL_SCHEME_SPLITTING, "%s: every model has the nodal form", m->name);
    hs_model_params p;
    hs_model_params_defaults(m, &p);
    p.gates = HS_GATES_RUSH_LARSEN;
    double s_n[HS_MODEL_MAX_VARS];
    for (int k = 0; k < m->n_vars; ++k) s_n[k] = m->vars[k].initial;
    for (double mv = -90.0; mv <= 40.0; mv += 2.5) { /* the potential over an action potential's range */
        const double u = (mv - m->mv_offset) / m->mv_scale;
        double f = 0.0, a[HS_MODEL_MAX_VARS], tau[HS_MODEL_MAX_VARS];
        HS_TEST_CHECK(hs_model_rhs(&p, u, s_n, &f, a, tau) == 0 && isfinite(f), "%s: nodal form at %g mV", m->name, mv);
        for (int k = 0; k < m->n_vars; ++k)
            HS_TEST_CHECK((tau[k] > 0.0) == (m->vars[k].gate != 0) && isfinite(a[k]),
                          "%s.%s at %g mV: tau = %g, a = %g, the descriptor says gate = %d", m->name, m->vars[k].name, mv,
                          tau[k], a[k], m->vars[k].gate);
        if (!(m->schemes & HS_MODEL_SCHEME_NEWTON)) continue;
        const double dt = 1e-6;
        double s[HS_MODEL_MAX_VARS], fp = 0.0, dfdu = 0.0;
        memcpy(s, s_n, sizeof s);
        HS_TEST_CHECK(hs_model_point(&p, u, u, dt, s_n, s, &fp, &dfdu) >= 0, "%s: local update at %g mV", m->name, mv);
        for (int k = 0; k < m->n_vars; ++k) {
            if (tau[k] > 0.0) {
                double x = s_n[k];
                hs_model_ode_vars(1, &x, &a[k], &tau[k], dt);
                HS_TEST_CHECK(x == s[k], "%s.%s at %g mV: Rush-Larsen %.17g, nodal form's step %.17g", m->name,
                              m->vars[k].name, mv, s[k], x);
            } else {
                const double q = (s[k] - s_n[k]) / dt;
                HS_TEST_CHECK(fabs(q - a[k]) <= 1e-4 * (fabs(a[k]) + 1.0), "%s.%s at %g mV: (s - s_n)/dt = %.10g, "
                              "nodal derivative %.10g", m->name, m->vars[k].name, mv, q, a[k]);
            }
        }
        double f1 = 0.0;
        hs_model_rhs(&p, u, s, &f1, a, tau);
        HS_TEST_CHECK(f1 == fp, "%s at %g mV: ionic term %.17g, nodal form's %.17g", m->name, mv, fp, f1);
    }
}

int main(void)
{
    HS_TEST_CHECK(hs_models_count() == HS_MODEL_COUNT && hs_models_count() > 0, "registry size");
    for (int i = 0; i < hs_models_count(); ++i) {
        const hs_model *m = hs_models_at(i);
        HS_TEST_CHECK(hs_models_find(m->name) == m && m->id == (hs_model_id)i, "%s: registry order", m->name);
        check_descriptor(m);
        if (m->schemes & HS_MODEL_SCHEME_NEWTON) check_point(m);
        check_nodal(m);
    }
    const hs_model *out = NULL;
    HS_TEST_CHECK(hs_models_lookup("model.type", "no_such_model", &out) == HS_ERR_CONFIG && !out, "unknown model");
    HS_TEST_CHECK(strstr(hs_error_message(), "model.type: unknown ionic model \"no_such_model\"; available: ") != NULL,
                  "message: %s", hs_error_message());
    hs_error_clear();
    HS_TEST_RETURN();
}
