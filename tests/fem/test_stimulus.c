/* Stimulus sites (fem/stimulus.c): box and sphere by centroid, surface by label (whole, and
 * restricted by a sphere), node lists (plain and openCARP .vtx) in the source numbering, and the
 * messages for an unknown label, a missing labelled boundary, nodes out of range and malformed
 * lists (each naming file:line). Expected element sets are computed here independently, from the
 * coordinates, not from the boundary-face arrays the code under test walks. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_mesh.h"
#include "hs_stimulus.h"
#include "hs_test.h"

#define LX 2.0
#define LY 1.0
#define LZ 1.0

static char g_dir[512];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

/* The face of tet e opposite its corner `skip` (3 node indices). */
static void tet_face(const hs_mesh *m, int32_t e, int skip, int32_t tri[3])
{
    for (int a = 0, k = 0; a < 4; ++a)
        if (a != skip) tri[k++] = m->tets[4 * e + a];
}

/* Is every node of the face on the plane x[axis] == value? */
static int face_on(const hs_mesh *m, const int32_t tri[3], int axis, double value)
{
    for (int a = 0; a < 3; ++a)
        if (fabs(m->xyz[3 * tri[a] + axis] - value) > 1e-12) return 0;
    return 1;
}

/* Structured box [0,2]x[0,1]x[0,1], h = 0.5, with boundary triangles: x = 0 labelled 1 "left",
 * x = LX labelled 2 "right" (unnamed on purpose: addressed by number), y = 0 marker 0. */
static hs_mesh *labelled_box(void)
{
    hs_box_params p = {LX, LY, LZ, 0.5, 0, 1.414};
    hs_mesh *m = NULL;
    HS_TEST_OK(hs_mesh_create_box(&p, &m));
    if (!m) exit(1);
    int32_t n = 0;
    for (int pass = 0; pass < 2; ++pass) {
        n = 0;
        for (int32_t e = 0; e < m->n_elems; ++e) {
            for (int s = 0; s < 4; ++s) {
                int32_t tri[3];
                tet_face(m, e, s, tri);
                int lab = face_on(m, tri, 0, 0.0) ? 1 : face_on(m, tri, 0, LX) ? 2 : face_on(m, tri, 1, 0.0) ? 0 : -1;
                if (lab < 0) continue;
                if (pass == 1) {
                    memcpy(m->bface + 3 * n, tri, sizeof tri);
                    m->bface_label[n] = lab;
                }
                ++n;
            }
        }
        if (pass == 0) HS_TEST_OK(hs_mesh_alloc_bfaces(m, n));
    }
    HS_TEST_OK(hs_mesh_add_label(m, 1, "left"));
    return m;
}

static hs_stimulus_cfg site(hs_stim_shape shape)
{
    hs_stimulus_cfg s;
    memset(&s, 0, sizeof s);
    s.shape = shape;
    s.duration = 2.0;
    s.strength = 1.0;
    return s;
}

/* The selected elements of a one-site set as a 0/1 array; NULL (and the message kept) on failure. */
static unsigned char *select_one(const hs_mesh *m, const hs_stimulus_cfg *s, hs_status *st)
{
    hs_stim_set *set = NULL;
    hs_error_clear();
    *st = hs_stim_set_create(m, s, 1, &set);
    if (*st != HS_OK) return NULL;
    unsigned char *sel = calloc((size_t)m->n_elems, 1);
    for (int32_t k = set->elem_ptr[0]; k < set->elem_ptr[1]; ++k) {
        HS_TEST_CHECK(k == set->elem_ptr[0] || set->elem[k] > set->elem[k - 1], "elements ascending");
        sel[set->elem[k]] = 1;
    }
    hs_stim_set_destroy(&set);
    HS_TEST_CHECK(set == NULL, "destroy sets NULL");
    return sel;
}

/* Elements having a face on x[axis] == value whose centroid passes @p keep (NULL: all). */
static void expect_faces(const hs_mesh *m, int axis, double value, const double *center, double radius,
                         unsigned char *want)
{
    memset(want, 0, (size_t)m->n_elems);
    for (int32_t e = 0; e < m->n_elems; ++e) {
        for (int s = 0; s < 4; ++s) {
            int32_t tri[3];
            tet_face(m, e, s, tri);
            if (!face_on(m, tri, axis, value)) continue;
            double c[3] = {0, 0, 0}, d2 = 0;
            for (int a = 0; a < 3; ++a)
                for (int d = 0; d < 3; ++d) c[d] += m->xyz[3 * tri[a] + d] / 3.0;
            for (int d = 0; d < 3; ++d) d2 += center ? (c[d] - center[d]) * (c[d] - center[d]) : 0.0;
            if (!center || d2 <= radius * radius) want[e] = 1;
        }
    }
}

static int count(const unsigned char *a, int32_t n)
{
    int c = 0;
    for (int32_t i = 0; i < n; ++i) c += a[i];
    return c;
}

static void check_same(const hs_mesh *m, const unsigned char *got, const unsigned char *want, const char *what)
{
    if (!got) {
        HS_TEST_CHECK(got != NULL, "%s: failed: %s", what, hs_error_message());
        hs_error_clear();
        return;
    }
    int diff = 0;
    for (int32_t e = 0; e < m->n_elems; ++e) diff += got[e] != want[e];
    HS_TEST_CHECK(diff == 0 && count(want, m->n_elems) > 0, "%s: %d elements differ (%d selected, %d expected)",
                  what, diff, count(got, m->n_elems), count(want, m->n_elems));
}

/* The call fails with HS_ERR_CONFIG and a message holding every one of the (NULL-ended) parts. */
static void expect_error(const hs_mesh *m, const hs_stimulus_cfg *s, const char *what, const char *part1,
                         const char *part2)
{
    hs_status st;
    unsigned char *sel = select_one(m, s, &st);
    const char *msg = hs_error_message();
    HS_TEST_CHECK(st == HS_ERR_CONFIG && !sel, "%s: status %d", what, (int)st);
    HS_TEST_CHECK(strstr(msg, part1) != NULL, "%s: message \"%s\" lacks \"%s\"", what, msg, part1);
    HS_TEST_CHECK(!part2 || strstr(msg, part2) != NULL, "%s: message \"%s\" lacks \"%s\"", what, msg, part2);
    free(sel);
    hs_error_clear();
}

static void test_centroid_shapes(const hs_mesh *m)
{
    hs_status st;
    hs_stimulus_cfg b = site(HS_STIM_BOX);
    double lo[3] = {-1, -1, -1}, hi[3] = {0.6, 9, 9};
    memcpy(b.min, lo, sizeof lo);
    memcpy(b.max, hi, sizeof hi);
    unsigned char *got = select_one(m, &b, &st), *want = calloc((size_t)m->n_elems, 1);
    for (int32_t e = 0; e < m->n_elems; ++e) {
        double cx = 0;
        for (int a = 0; a < 4; ++a) cx += 0.25 * m->xyz[3 * m->tets[4 * e + a]];
        want[e] = cx <= 0.6;
    }
    check_same(m, got, want, "box");
    free(got);
    hs_stimulus_cfg s = site(HS_STIM_SPHERE);
    s.center[0] = 50.0;
    s.radius = 1.0;
    expect_error(m, &s, "sphere outside", "stimulus [0]: the sphere at [50, 0, 0] mm", "contains no element centroid");
    free(want);
}

static void test_surface(const hs_mesh *m)
{
    hs_status st;
    unsigned char *want = calloc((size_t)m->n_elems, 1);

    hs_stimulus_cfg s = site(HS_STIM_SURFACE);
    snprintf(s.label, sizeof s.label, "left");
    unsigned char *got = select_one(m, &s, &st);
    expect_faces(m, 0, 0.0, NULL, 0.0, want);
    check_same(m, got, want, "label left");
    free(got);

    /* an unnamed marker, by number */
    snprintf(s.label, sizeof s.label, "2");
    got = select_one(m, &s, &st);
    expect_faces(m, 0, LX, NULL, 0.0, want);
    check_same(m, got, want, "label 2");
    free(got);

    /* label + sphere: only the part of x = 0 near the corner (0, 0, 0) */
    snprintf(s.label, sizeof s.label, "left");
    s.radius = 0.6;
    got = select_one(m, &s, &st);
    expect_faces(m, 0, 0.0, s.center, s.radius, want);
    check_same(m, got, want, "label left within a sphere");
    unsigned char *all = calloc((size_t)m->n_elems, 1);
    expect_faces(m, 0, 0.0, NULL, 0.0, all);
    HS_TEST_CHECK(got && count(got, m->n_elems) < count(all, m->n_elems), "the sphere restricts the label");
    free(got);
    free(all);

    /* a sphere away from the label's triangles */
    s.center[0] = LX;
    s.radius = 0.3;
    expect_error(m, &s, "sphere misses the label", "stimulus [0]: no triangle of label \"left\" has its centroid "
                 "within the sphere at [2, 0, 0] mm, radius 0.3 mm", "span [0, ");

    /* unknown labels list the available ones; marker 0 is no label */
    s = site(HS_STIM_SURFACE);
    snprintf(s.label, sizeof s.label, "endo");
    expect_error(m, &s, "unknown label", "stimulus [0]: unknown label \"endo\"",
                 "this mesh's boundary labels are: left (1), 2");
    snprintf(s.label, sizeof s.label, "0");
    expect_error(m, &s, "marker 0", "unknown label \"0\"", "left (1), 2");
    snprintf(s.label, sizeof s.label, "7");
    expect_error(m, &s, "absent marker", "unknown label \"7\"", NULL);

    /* a mesh without a labelled boundary */
    hs_box_params p = {1, 1, 1, 0.5, 0, 1.414};
    hs_mesh *plain = NULL;
    HS_TEST_OK(hs_mesh_create_box(&p, &plain));
    snprintf(s.label, sizeof s.label, "left");
    if (plain) expect_error(plain, &s, "no labels", "this mesh has no labelled boundary triangles", "box, sphere or nodes");
    hs_mesh_destroy(&plain);
    free(want);
}

/* Elements containing any of the current nodes listed in @p nodes (n of them). */
static void expect_nodes(const hs_mesh *m, const int32_t *nodes, int n, unsigned char *want)
{
    memset(want, 0, (size_t)m->n_elems);
    for (int32_t e = 0; e < m->n_elems; ++e)
        for (int a = 0; a < 4; ++a)
            for (int k = 0; k < n; ++k) want[e] |= m->tets[4 * e + a] == nodes[k];
}

static void test_nodes(hs_mesh *m)
{
    hs_status st;
    char path[600];
    unsigned char *want = calloc((size_t)m->n_elems, 1);
    /* a renumbered mesh: source node k is current node n-1-k */
    for (int32_t i = 0; i < m->n_nodes; ++i) m->node_orig[i] = m->n_nodes - 1 - i;
    const int32_t cur[2] = {m->n_nodes - 1, m->n_nodes - 1 - 5}; /* source nodes 0 and 5 */
    expect_nodes(m, cur, 2, want);

    hs_stimulus_cfg s = site(HS_STIM_NODES);
    snprintf(path, sizeof path, "%s/plain.txt", g_dir);
    snprintf(s.file, sizeof s.file, "%s", path);
    write_file(path, "# apex nodes\n0\n\n5   # and one more\n");
    unsigned char *got = select_one(m, &s, &st);
    check_same(m, got, want, "plain node list");
    free(got);

    snprintf(path, sizeof path, "%s/sites.vtx", g_dir);
    snprintf(s.file, sizeof s.file, "%s", path);
    write_file(path, "2\nintra\n0\n5\n");
    got = select_one(m, &s, &st);
    check_same(m, got, want, ".vtx node list");
    free(got);
    write_file(path, "2\nextra\n5\n0\n");
    got = select_one(m, &s, &st);
    check_same(m, got, want, ".vtx node list (extra)");
    free(got);

    /* errors name file:line */
    char where[700], oor[64];
    snprintf(oor, sizeof oor, "node %d is out of range", (int)m->n_nodes);
    snprintf(path, sizeof path, "%s/bad.txt", g_dir);
    snprintf(s.file, sizeof s.file, "%s", path);
    snprintf(where, sizeof where, "%s:3: ", path);
    char text[64];
    snprintf(text, sizeof text, "0\n5\n%d\n", (int)m->n_nodes);
    write_file(path, text);
    expect_error(m, &s, "node out of range", where, oor);
    snprintf(text, sizeof text, "2\nintra\n0\n-1\n");
    write_file(path, text);
    snprintf(where, sizeof where, "%s:4: ", path);
    expect_error(m, &s, "negative node", where, "node -1 is out of range");
    write_file(path, "0\n1\nseven\n");
    snprintf(where, sizeof where, "%s:3: ", path);
    expect_error(m, &s, "not a number", where, "expected a node index (an integer), found 'seven'");
    write_file(path, "0 1\n");
    snprintf(where, sizeof where, "%s:1: ", path);
    expect_error(m, &s, "two per line", where, "expected one node index per line");
    write_file(path, "0\n1 2\n");
    snprintf(where, sizeof where, "%s:2: ", path);
    expect_error(m, &s, "two on line 2", where, "expected one node index per line");
    write_file(path, "3\nintra\n0\n1\n");
    snprintf(where, sizeof where, "%s:4: ", path);
    expect_error(m, &s, ".vtx short", where, "file ended after 2 of the 3 nodes announced on line 1");
    write_file(path, "1\nintra\n0\n1\n");
    snprintf(where, sizeof where, "%s:4: ", path);
    expect_error(m, &s, ".vtx long", where, "more node indices than the 1 announced on line 1");
    write_file(path, "x\nintra\n0\n");
    snprintf(where, sizeof where, "%s:1: ", path);
    expect_error(m, &s, ".vtx bad count", where, "node count");
    write_file(path, "# nothing\n\n");
    snprintf(where, sizeof where, "%s:2: ", path);
    expect_error(m, &s, "empty list", where, "the node list is empty");
    snprintf(s.file, sizeof s.file, "%s/missing.txt", g_dir);
    expect_error(m, &s, "missing file", "missing.txt", strerror(ENOENT));

    /* a node the source had but the mesh dropped (source numbering with gaps) */
    for (int32_t i = 0; i < m->n_nodes; ++i) m->node_orig[i] = 2 * i;
    snprintf(s.file, sizeof s.file, "%s", path);
    write_file(path, "0\n3\n");
    snprintf(where, sizeof where, "%s:2: ", path);
    expect_error(m, &s, "dropped node", where, "node 3 of the source numbering is not a node of the mesh");
    for (int32_t i = 0; i < m->n_nodes; ++i) m->node_orig[i] = i;

    unlink(path);
    snprintf(path, sizeof path, "%s/plain.txt", g_dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/sites.vtx", g_dir);
    unlink(path);
    free(want);
}

/* Several sites keep their own element lists and pulse times. */
static void test_several_sites(const hs_mesh *m)
{
    hs_stimulus_cfg s[2] = {site(HS_STIM_SURFACE), site(HS_STIM_SPHERE)};
    snprintf(s[0].label, sizeof s[0].label, "left");
    s[1].center[0] = LX, s[1].center[1] = LY, s[1].center[2] = LZ;
    s[1].radius = 0.5;
    s[1].start = 10.0;
    s[1].strength = 0.5;
    hs_stim_set *set = NULL;
    HS_TEST_OK(hs_stim_set_create(m, s, 2, &set));
    if (!set) return;
    HS_TEST_CHECK(set->n_sites == 2 && set->elem_ptr[1] > 0 && set->elem_ptr[2] > set->elem_ptr[1], "two sites");
    double amp[2];
    hs_stim_set_amplitudes(set, 1.5, 2.5, amp);
    HS_TEST_NEAR(amp[0], 0.5, 1e-15, "half the step inside the first pulse");
    HS_TEST_NEAR(amp[1], 0.0, 0.0, "second site not started");
    hs_stim_set_amplitudes(set, 10.0, 10.1, amp);
    HS_TEST_NEAR(amp[1], 0.5, 1e-15, "second site on");
    hs_stim_set_destroy(&set);
}

/* Pacing: count pulses every period ms. The time average over any steps integrates to exactly
 * count * duration * strength; a step spanning two pulses gets both; the checks and warnings. */
static void test_pacing(const hs_mesh *m)
{
    hs_stimulus_cfg s = site(HS_STIM_SPHERE);
    s.center[0] = 0.5, s.center[1] = 0.5, s.center[2] = 0.5, s.radius = 0.4;
    s.start = 1.0, s.duration = 2.0, s.count = 3, s.period = 10.0, s.strength = 0.7;
    /* irregular steps (0.013 to 0.6 ms) over [0, 40]: the integral is the pulse train's charge */
    double t = 0.0, q = 0.0, q_pulse[3] = {0, 0, 0};
    unsigned r = 12345u;
    while (t < 40.0) {
        r = r * 1103515245u + 12345u;
        double dt = 0.013 + 0.587 * (double)(r >> 8) / (double)(1u << 24);
        double a = hs_stim_site_amplitude(&s, t, t + dt);
        q += a * dt;
        for (int p = 0; p < 3; ++p)
            if (t + dt > 1.0 + 10.0 * p - 1.0 && t < 1.0 + 10.0 * p + 3.0) q_pulse[p] += a * dt;
        HS_TEST_CHECK(a == 0.0 || (t < 3.0) || (t + dt > 11.0 && t < 13.0) || (t + dt > 21.0 && t < 23.0),
                      "current at [%g, %g] outside the pulses", t, t + dt);
        t += dt;
    }
    HS_TEST_NEAR(q, 3 * 2.0 * 0.7, 1e-12, "charge of 3 pulses");
    for (int p = 0; p < 3; ++p) HS_TEST_NEAR(q_pulse[p], 2.0 * 0.7, 1e-12, "charge of one pulse");
    HS_TEST_NEAR(hs_stim_site_amplitude(&s, 2.0, 12.0), 0.7 * 2.0 / 10.0, 1e-15, "a step over two pulses");
    HS_TEST_NEAR(hs_stim_site_amplitude(&s, 30.0, 40.0), 0.0, 0.0, "after the last pulse");
    HS_TEST_NEAR(hs_stim_pulse_start(&s, 2), 21.0, 0.0, "third pulse start");

    /* a period not longer than the pulse is an error naming the key */
    hs_stimulus_cfg bad = s;
    bad.period = 2.0;
    hs_stim_set *set = NULL;
    HS_TEST_CHECK(hs_stim_set_create(m, &bad, 1, &set) == HS_ERR_CONFIG && !set, "period = duration accepted");
    HS_TEST_CHECK(strstr(hs_error_message(), "stimulus.[0].period") != NULL, "message: %s", hs_error_message());
    hs_error_clear();

    /* warnings: pulses past t_end; two sites on the same elements at the same time (not at other times) */
    hs_stimulus_cfg two[3] = {s, s, s};
    two[1].count = 1, two[1].start = 11.5;             /* on during pulse 1 of site 0: overlap */
    two[2].count = 1, two[2].start = 5.0;              /* same place, between pulses: S1-S2, fine */
    HS_TEST_OK(hs_stim_set_create(m, two, 3, &set));
    if (!set) return;
    char buf[2048];
    int nw = hs_stim_set_warnings(set, 15.0, buf, sizeof buf);
    HS_TEST_CHECK(nw == 2, "%d warnings: %s", nw, buf);
    HS_TEST_CHECK(strstr(buf, "stimulus.[0]: 1 of its 3 pulses starts at or after time.t_end = 15 ms") != NULL,
                  "t_end warning: %s", buf);
    HS_TEST_CHECK(strstr(buf, "stimulus.[0] and stimulus.[1] cover common elements and are both on at t = 11.5 ms"),
                  "overlap warning: %s", buf);
    HS_TEST_CHECK(!strstr(buf, "stimulus.[2]"), "S2 between pulses reported: %s", buf);
    HS_TEST_CHECK(hs_stim_set_warnings(set, 40.0, buf, sizeof buf) == 1, "t_end 40: %s", buf);
    hs_stim_set_destroy(&set);
    /* apart in space, together in time: no warning */
    two[1].center[0] = 1.6;
    HS_TEST_OK(hs_stim_set_create(m, two, 2, &set));
    if (!set) return;
    HS_TEST_CHECK(hs_stim_set_warnings(set, 40.0, buf, sizeof buf) == 0, "disjoint sites: %s", buf);
    hs_stim_set_destroy(&set);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/hs_stimulus_test_XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) {
        fprintf(stderr, "mkdtemp %s: %s\n", g_dir, strerror(errno));
        return 1;
    }
    hs_mesh *m = labelled_box();
    test_centroid_shapes(m);
    test_surface(m);
    test_nodes(m);
    test_several_sites(m);
    test_pacing(m);
    hs_mesh_destroy(&m);
    rmdir(g_dir);
    HS_TEST_RETURN();
}
