/*
 * The study read-outs (fem/hs_readout.h): activation, repolarisation, APD and beats per node.
 *  1. hs_readout_update on hand-made crossings: interpolated times, a new beat only after a
 *     repolarisation, an upstroke inside the plateau ignored;
 *  2. a 2 x 0.5 x 0.5 mm slab (Aliev-Panfilov, dt = 0.5 ms) stimulated twice, at 0 and 450 ms: every
 *     node counts 2 beats; at two nodes, the latest beat's activation, repolarisation and APD equal
 *     what an independent scan of the node's V(t) trace gives (the same linear interpolation, so to
 *     1e-9 ms), and APD = repolarisation - activation;
 *  4. per-beat maps (sim/beats.c): a run of the same slab with output writes PREFIX_maps_beat1.vtk
 *     and _beat2.vtk; beat 2 equals the latest-beat maps of PREFIX_maps.vtk bit for bit, beat 1 has
 *     every node activated before the second stimulus and repolarised with a positive APD.
 *  3. restart: the state (every field, read-outs included) and the extrapolation history taken at
 *     t = 500 ms (between the second activation and its repolarisation) and set into a new
 *     simulation continue to the uninterrupted run's state bit for bit.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#include "hs_readout.h"
#include "hs_sim.h"
#include "hs_test.h"
#include "hs_test_spec.h"
#include "hs_util.h"

static void test_update(void)
{
    double act = -1, rep = -1, apd = -1, beats = 0;
    hs_readout_update(0.0, 0.5, 0.2, 0.1, 10.0, 1.0, &act, &rep, &apd, &beats); /* up through 0.2 at 10.4 */
    HS_TEST_CHECK(fabs(act - 10.4) < 1e-12 && rep == -1 && apd == -1 && beats == 1, "upstroke: %g %g %g %g", act, rep,
                  apd, beats);
    hs_readout_update(0.1, 0.9, 0.2, 0.1, 12.0, 1.0, &act, &rep, &apd, &beats); /* plateau upstroke: ignored */
    HS_TEST_CHECK(fabs(act - 10.4) < 1e-12 && beats == 1, "second upstroke before repolarisation counted");
    hs_readout_update(0.3, 0.05, 0.2, 0.1, 200.0, 2.0, &act, &rep, &apd, &beats); /* down through 0.1 at 201.6 */
    HS_TEST_CHECK(fabs(rep - 201.6) < 1e-12 && fabs(apd - (201.6 - 10.4)) < 1e-12 && beats == 1, "repolarisation %g %g",
                  rep, apd);
    hs_readout_update(0.12, 0.08, 0.2, 0.1, 203.0, 1.0, &act, &rep, &apd, &beats); /* again: no second repol */
    HS_TEST_CHECK(fabs(rep - 201.6) < 1e-12, "repolarised twice");
    hs_readout_update(0.0, 0.4, 0.2, 0.1, 300.0, 1.0, &act, &rep, &apd, &beats); /* beat 2 at 300.5 */
    HS_TEST_CHECK(fabs(act - 300.5) < 1e-12 && rep == -1 && apd == -1 && beats == 2, "beat 2: %g %g", act, beats);
}

static hs_sim_spec spec;

static void slab(void)
{
    hs_test_spec_defaults(&spec);
    spec.mesh.box = (hs_box_params){.lx = 2.0, .ly = 0.5, .lz = 0.5, .h = 0.25};
    spec.n_stimuli = 2;
    for (int s = 0; s < 2; ++s)
        spec.stimuli[s] = (hs_stimulus_cfg){.shape = HS_STIM_BOX, .min = {-1, -1, -1}, .max = {0.3, 2, 2},
                                            .start = 450.0 * s, .duration = 2.0, .strength = 0.5};
    spec.dt = 0.5;
}

/* Every field of the state (owned arrays). */
static hs_status get_all(hs_sim *sim, hs_state *s)
{
    HS_CALL(hs_state_create(&sim->backend->state, s));
    return sim->backend->ops->get_state(sim->backend, s);
}

static void test_slab(void)
{
    slab();
    const int N = 1800; /* 900 ms */
    hs_sim sim;
    HS_TEST_OK(hs_sim_create(&spec, &sim));
    if (!sim.backend) return;
    const hs_state_desc *d = &sim.backend->state;
    const hs_model *m = spec.model;
    const int32_t nn = sim.mesh->n_nodes;
    int32_t probe[2] = {0, 0};
    for (int32_t i = 0; i < nn; ++i) /* the nodes at x = 0 and x = 2 with the smallest y, z */
        for (int q = 0; q < 2; ++q) {
            const double *x = sim.mesh->xyz + 3 * (int64_t)i, *p = sim.mesh->xyz + 3 * (int64_t)probe[q];
            double want = q ? 2.0 : 0.0;
            if (fabs(x[0] - want) < fabs(p[0] - want) || (x[0] == want && x[1] + x[2] < p[1] + p[2])) probe[q] = i;
        }
    double *phi = malloc(sizeof(double) * (size_t)nn);
    double *trace[2] = {malloc(sizeof(double) * (N + 1)), malloc(sizeof(double) * (N + 1))};
    hs_state one = {d, {NULL}};
    one.field[HS_STATE_POTENTIAL] = phi;
    for (int q = 0; q < 2; ++q) trace[q][0] = m->potential_rest;
    hs_step_stats st;
    for (int k = 0; k < N; ++k) {
        HS_TEST_OK(hs_sim_step(&sim, k * spec.dt, spec.dt, &st));
        HS_TEST_OK(sim.backend->ops->get_state(sim.backend, &one));
        for (int q = 0; q < 2; ++q) trace[q][k + 1] = phi[probe[q]];
    }
    hs_state all;
    HS_TEST_OK(get_all(&sim, &all));
    const double *act = all.field[d->activation], *rep = all.field[hs_state_find(d, "repolarisation")];
    const double *apd = all.field[hs_state_find(d, "apd")], *beats = all.field[hs_state_find(d, "beats")];
    int not2 = 0;
    for (int32_t i = 0; i < nn; ++i) not2 += beats[i] != 2.0;
    HS_TEST_CHECK(not2 == 0, "%d nodes without exactly 2 beats", not2);
    /* the independent scan: thresholds in model units, crossings by linear interpolation */
    const double ta = (spec.activation_threshold - m->mv_offset) / m->mv_scale;
    const double tr = (spec.repol_threshold - m->mv_offset) / m->mv_scale;
    for (int q = 0; q < 2; ++q) {
        const double *v = trace[q];
        double a_last = -1, r_last = -1;
        int n_beats = 0, repolarised = 1;
        for (int k = 0; k < N; ++k) {
            double t0 = k * spec.dt;
            if (repolarised && v[k] < ta && v[k + 1] >= ta) {
                a_last = t0 + spec.dt * (ta - v[k]) / (v[k + 1] - v[k]), r_last = -1, ++n_beats, repolarised = 0;
            } else if (!repolarised && v[k] >= tr && v[k + 1] < tr) {
                r_last = t0 + spec.dt * (tr - v[k]) / (v[k + 1] - v[k]), repolarised = 1;
            }
        }
        int32_t i = probe[q];
        printf("node at x = %g: %d beats; last activation %.4f ms, repolarisation %.4f ms, APD %.4f ms (map: %.4f, "
               "%.4f, %.4f)\n", sim.mesh->xyz[3 * (int64_t)i], n_beats, a_last, r_last, r_last - a_last, act[i], rep[i],
               apd[i]);
        HS_TEST_CHECK(n_beats == 2 && a_last > 450.0 && r_last > a_last + 50.0, "node %d: trace gives %d beats, %g %g",
                      (int)i, n_beats, a_last, r_last);
        HS_TEST_CHECK(fabs(act[i] - a_last) <= 1e-9 && fabs(rep[i] - r_last) <= 1e-9 &&
                          fabs(apd[i] - (r_last - a_last)) <= 1e-9 && apd[i] == rep[i] - act[i],
                      "node %d: map %.12g %.12g %.12g vs trace %.12g %.12g", (int)i, act[i], rep[i], apd[i], a_last,
                      r_last);
    }
    hs_state_destroy(&all);
    free(phi);
    free(trace[0]);
    free(trace[1]);
    hs_sim_destroy(&sim);
}

static void test_restart(void)
{
    slab();
    const int N1 = 1000, N = 1300; /* restart at 500 ms: second beat active, not repolarised */
    hs_sim a, b;
    HS_TEST_OK(hs_sim_create(&spec, &a));
    HS_TEST_OK(hs_sim_create(&spec, &b));
    if (!a.backend || !b.backend) return;
    hs_step_stats st;
    for (int k = 0; k < N1; ++k) HS_TEST_OK(hs_sim_step(&a, k * spec.dt, spec.dt, &st));
    hs_state mid;
    HS_TEST_OK(get_all(&a, &mid));
    const size_t nn = (size_t)a.mesh->n_nodes;
    double *h1 = malloc(sizeof(double) * nn), *h2 = malloc(sizeof(double) * nn);
    hs_extrap ex;
    HS_TEST_OK(a.backend->ops->get_history(a.backend, &ex, h1, h2));
    HS_TEST_OK(b.backend->ops->set_state(b.backend, &mid));
    HS_TEST_OK(b.backend->ops->set_history(b.backend, &ex, h1, h2));
    const int kr = hs_state_find(&a.backend->state, "repolarisation");
    int waiting = 0;
    for (size_t i = 0; i < nn; ++i) waiting += mid.field[kr][i] < 0.0;
    HS_TEST_CHECK(waiting > 0, "the restart point is not inside a beat");
    for (int k = N1; k < N; ++k) {
        HS_TEST_OK(hs_sim_step(&a, k * spec.dt, spec.dt, &st));
        HS_TEST_OK(hs_sim_step(&b, k * spec.dt, spec.dt, &st));
    }
    hs_state sa, sb;
    HS_TEST_OK(get_all(&a, &sa));
    HS_TEST_OK(get_all(&b, &sb));
    const hs_state_desc *d = &a.backend->state;
    for (int k = 0; k < d->n_fields; ++k)
        HS_TEST_CHECK(!memcmp(sa.field[k], sb.field[k], sizeof(double) * hs_state_field_len(d, k)),
                      "restart: field %s differs", d->f[k].name);
    hs_state_destroy(&mid);
    hs_state_destroy(&sa);
    hs_state_destroy(&sb);
    free(h1);
    free(h2);
    hs_sim_destroy(&a);
    hs_sim_destroy(&b);
}

/* The big-endian float64 node array NAME of a legacy VTK file written by heartsim; NULL if absent. */
static double *vtk_array(const char *path, const char *name, int32_t n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)size + 1);
    double *out = NULL;
    if (buf && fread(buf, 1, (size_t)size, f) == (size_t)size) {
        buf[size] = '\0';
        char key[96];
        snprintf(key, sizeof key, "SCALARS %s double 1\nLOOKUP_TABLE default\n", name);
        for (long i = 0; i + (long)strlen(key) < size; ++i) {
            if (memcmp(buf + i, key, strlen(key)) != 0) continue;
            const unsigned char *p = (const unsigned char *)buf + i + strlen(key);
            if (p + 8 * (size_t)n > (const unsigned char *)buf + size) break;
            out = malloc(sizeof(double) * (size_t)n);
            for (int32_t k = 0; k < n; ++k) {
                uint64_t u = 0;
                for (int b = 0; b < 8; ++b) u = (u << 8) | p[8 * k + b];
                memcpy(&out[k], &u, 8);
            }
            break;
        }
    }
    free(buf);
    fclose(f);
    return out;
}

static void test_beat_maps(void)
{
    slab();
    char dir[] = "/tmp/hs_beats_XXXXXX";
    HS_TEST_CHECK(mkdtemp(dir) != NULL, "temporary directory");
    spec.t_end = 900.0;
    spec.output_enabled = 1;
    spec.out_interval = 5.0;
    snprintf(spec.out_dir, sizeof spec.out_dir, "%s", dir);
    snprintf(spec.out_prefix, sizeof spec.out_prefix, "b");
    hs_run_summary sum;
    HS_TEST_OK(hs_sim_run(&spec, NULL, NULL, &sum));
    hs_sim sim; /* the node count */
    HS_TEST_OK(hs_sim_create(&spec, &sim));
    const int32_t nn = sim.mesh ? sim.mesh->n_nodes : 0;
    hs_sim_destroy(&sim);
    char p0[256], p1[256], p2[256];
    snprintf(p0, sizeof p0, "%s/b_maps.vtk", dir);
    snprintf(p1, sizeof p1, "%s/b_maps_beat1.vtk", dir);
    snprintf(p2, sizeof p2, "%s/b_maps_beat2.vtk", dir);
    const char *names[3] = {"activation", "repolarisation", "apd"};
    int bad_last = 0, bad_first = 0, missing = 0;
    for (int q = 0; q < 3; ++q) {
        double *last = vtk_array(p0, names[q], nn), *b1 = vtk_array(p1, names[q], nn), *b2 = vtk_array(p2, names[q], nn);
        if (!last || !b1 || !b2) {
            ++missing;
        } else {
            bad_last += memcmp(last, b2, sizeof(double) * (size_t)nn) != 0;
            for (int32_t i = 0; i < nn; ++i)
                bad_first += q == 0 ? !(b1[i] >= 0.0 && b1[i] < 450.0) : !(b1[i] > 0.0);
        }
        free(last);
        free(b1);
        free(b2);
    }
    HS_TEST_CHECK(missing == 0 && bad_last == 0 && bad_first == 0,
                  "beat maps: %d arrays missing, %d differ from the latest-beat maps, %d bad beat-1 values", missing,
                  bad_last, bad_first);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    HS_TEST_CHECK(system(cmd) == 0, "cleanup");
}

int main(void)
{
    hs_verbosity = 0;
    test_update();
    test_slab();
    test_restart();
    test_beat_maps();
    HS_TEST_RETURN();
}
