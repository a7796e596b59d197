// The fused substep of the models generated from CellML (hs_model_substep_<id>, scripts/cellml/generate.py:
// what the GPU's nodal kernel runs, backends/cuda/hs_nodal_ct.cuh) against the nodal form it fuses, the
// CPU reference (hs_model_rhs_<id>, then hs_model_ode_vars, then u += h (f + stim)), on the host, so CI
// checks it without a GPU: one substep of h = 0.01 ms from states taken along a stimulated 0-D action
// potential of each model (upstroke, plateau, repolarisation, rest), with and without the stimulus.
//
// Tolerance, derived: both evaluate the same expressions on the same values, only the statements'
// order differs, which changes no rounding; a compiler that contracts a multiply and an add into one
// rounding (-ffp-contract with FMA) may do so in one and not the other, at most 0.5 ulp of a result
// each, carried through a chain of about ten such operations and an exp: C = 16 ulp of the magnitudes
// involved, C eps (|x| + |y| + |a| + h |g|) per variable as test_gpu_nodal's local allowance (x before,
// y after, a the steady state or derivative, g the rate). Run with -v for the largest difference.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

#include "hs_model_ode.h"
#include "hs_models.h"
#include "hs_test.h"

// A model without a fused substep (the hand-written ones) finds this overload, whose return type says so;
// overload resolution prefers the model's own function (hs_nodal_ct.cuh does the same on the device). At
// global scope, beside the models' functions: in a namespace it would hide them.
struct no_substep {
};
using substep_fn = void (*)(const double *, double, const double *, double, double *, double *);

#define HS_MODEL(id)                                                                                     \
    template <class... A> static no_substep hs_model_substep_##id(A...)                                  \
    {                                                                                                    \
        return no_substep();                                                                             \
    }                                                                                                    \
    static void call_substep_##id(const double *p, double u, const double *s, double h, double *f,       \
                                  double *sn)                                                            \
    {                                                                                                    \
        (void)hs_model_substep_##id(p, u, s, h, f, sn);                                                  \
    }                                                                                                    \
    static constexpr bool has_substep_##id =                                                             \
        std::is_same<decltype(hs_model_substep_##id((const double *)0, 0.0, (const double *)0, 0.0,      \
                                                    (double *)0, (double *)0)),                          \
                     void>::value;
#include "hs_model_list.h"
#undef HS_MODEL

namespace {

struct entry {
    const char *name;
    bool has;
    substep_fn fn;
};
const entry entries[] = {
#define HS_MODEL(id) {#id, has_substep_##id, call_substep_##id},
#include "hs_model_list.h"
#undef HS_MODEL
};

const double H_MS = 0.01, C_ULP = 16.0;

} // namespace

int main(int argc, char **argv)
{
    const bool verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    int with = 0;
    for (const entry &e : entries) {
        if (!e.has) continue;
        ++with;
        const hs_model *m = hs_models_find(e.name);
        HS_TEST_CHECK(m != nullptr, "%s: not in the model registry", e.name);
        if (!m) continue;
        for (int pr = 0; pr < (m->n_presets > 0 ? m->n_presets : 1); ++pr) {
            hs_model_params p;
            hs_model_params_defaults(m, &p);
            if (m->n_presets > 0)
                for (int k = 0; k < m->n_params; ++k) p.v[k] = m->presets[pr].v[k];
            const int nv = m->n_vars;
            const double T = m->time_unit_default, h = H_MS / T, amp = 50.0 / m->mv_scale * T;
            std::vector<double> x(1 + nv), a(nv), tau(nv), y(nv), sn(nv);
            x[0] = m->potential_rest;
            for (int k = 0; k < nv; ++k) x[1 + k] = m->vars[k].initial;
            double worst = 0.0;
            int equal = 0, compared = 0;
            const long steps = lround(480.0 / H_MS);
            for (long q = 0; q < steps; ++q) {
                const double t = q * H_MS;
                const double stim = (t < 2.0 || (t >= 400.0 && t < 402.0)) ? amp : 0.0;
                double f = 0.0, f2 = 0.0;
                hs_model_rhs(&p, x[0], &x[1], &f, a.data(), tau.data());
                for (int k = 0; k < nv; ++k) y[k] = x[1 + k];
                hs_model_ode_vars(nv, y.data(), a.data(), tau.data(), h);
                const double u_ref = x[0] + h * (f + stim);
                if (q % 97 == 0) { // every 97th state: 4949 of them per model and preset
                    for (const double st : {0.0, amp}) {
                        const double u_r = x[0] + h * (f + st);
                        std::vector<double> yr(nv);
                        for (int k = 0; k < nv; ++k) yr[k] = x[1 + k];
                        hs_model_ode_vars(nv, yr.data(), a.data(), tau.data(), h);
                        e.fn(p.v, x[0], &x[1], h, &f2, sn.data());
                        const double u_f = x[0] + h * (f2 + st);
                        const double eps = 0x1p-52;
                        const double tol_u = C_ULP * eps * (fabs(x[0]) + fabs(u_r) + h * (fabs(f) + fabs(st)));
                        ++compared;
                        equal += u_f == u_r;
                        HS_TEST_CHECK(fabs(u_f - u_r) <= tol_u, "%s preset %d t %.2f ms: u %.17g fused, %.17g "
                                      "reference", e.name, pr, t, u_f, u_r);
                        if (tol_u > 0.0) worst = fmax(worst, fabs(u_f - u_r) / tol_u);
                        for (int k = 0; k < nv; ++k) {
                            const double g = tau[k] > 0.0 ? (a[k] - x[1 + k]) / tau[k] : a[k];
                            const double tol = C_ULP * eps * (fabs(x[1 + k]) + fabs(yr[k]) + fabs(a[k]) + h * fabs(g));
                            ++compared;
                            equal += sn[k] == yr[k];
                            HS_TEST_CHECK(fabs(sn[k] - yr[k]) <= tol, "%s preset %d t %.2f ms: variable %s %.17g "
                                          "fused, %.17g reference", e.name, pr, t, m->vars[k].name, sn[k], yr[k]);
                            if (tol > 0.0) worst = fmax(worst, fabs(sn[k] - yr[k]) / tol);
                        }
                    }
                }
                x[0] = u_ref;
                for (int k = 0; k < nv; ++k) x[1 + k] = y[k];
                HS_TEST_CHECK(std::isfinite(x[0]), "%s: the reference trajectory is not finite at %.2f ms", e.name, t);
                if (!std::isfinite(x[0])) break;
            }
            if (verbose)
                printf("%-22s preset %d: %d of %d values equal bit for bit, largest |fused - reference| / bound %.3g\n",
                       e.name, pr, equal, compared, worst);
        }
    }
    HS_TEST_CHECK(with >= 1, "no model of the list has a fused substep (the generated ones should)");
    HS_TEST_RETURN();
}
