/* Heterogeneous tissue: the elements of each region entry and the per-element parameter table
 * (hs_region.h). */
#define _POSIX_C_SOURCE 200809L
#include "hs_region.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_p1.h"
#include "hs_text_reader.h"
#include "hs_util.h"

void hs_region_entry_name(const hs_region_cfg *cfg, int i, char *buf, size_t n)
{
    if (cfg->name[0])
        snprintf(buf, n, "regions.[%d] (%s)", i, cfg->name);
    else
        snprintf(buf, n, "regions.[%d]", i);
}

static void centroid(const hs_mesh *m, int32_t e, double c[3])
{
    const int32_t *t = m->tets + 4 * (int64_t)e;
    for (int k = 0; k < 3; ++k)
        c[k] = 0.25 * (m->xyz[3 * (int64_t)t[0] + k] + m->xyz[3 * (int64_t)t[1] + k] + m->xyz[3 * (int64_t)t[2] + k] +
                       m->xyz[3 * (int64_t)t[3] + k]);
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Squared distance from p to triangle (a, b, c) (Ericson, Real-Time Collision Detection, 5.1.5). */
static double dist2_tri(const double p[3], const double a[3], const double b[3], const double c[3])
{
    double ab[3], ac[3], ap[3], q[3];
    for (int k = 0; k < 3; ++k) ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k];
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0 && d2 <= 0) { memcpy(q, a, sizeof q); goto done; }
    double bp[3];
    for (int k = 0; k < 3; ++k) bp[k] = p[k] - b[k];
    double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0 && d4 <= d3) { memcpy(q, b, sizeof q); goto done; }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double v = d1 / (d1 - d3);
        for (int k = 0; k < 3; ++k) q[k] = a[k] + v * ab[k];
        goto done;
    }
    double cp[3];
    for (int k = 0; k < 3; ++k) cp[k] = p[k] - c[k];
    double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0 && d5 <= d6) { memcpy(q, c, sizeof q); goto done; }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double w = d2 / (d2 - d6);
        for (int k = 0; k < 3; ++k) q[k] = a[k] + w * ac[k];
        goto done;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; ++k) q[k] = b[k] + w * (c[k] - b[k]);
        goto done;
    }
    {
        double den = 1.0 / (va + vb + vc), v = vb * den, w = vc * den;
        for (int k = 0; k < 3; ++k) q[k] = a[k] + ab[k] * v + ac[k] * w;
    }
done:;
    double d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    return dot3(d, d);
}

/* Elements within q->distance of the triangles labelled q->label. */
static hs_status select_surface(const hs_mesh *m, const hs_region_cfg *q, const char *who, unsigned char *mark)
{
    int32_t id = m->bface_label ? hs_mesh_find_label(m, q->label) : -1;
    int32_t n_tri = 0;
    for (int32_t f = 0; id > 0 && f < m->n_bfaces; ++f) n_tri += m->bface_label[f] == id;
    if (id <= 0 || n_tri == 0) {
        char labels[1024];
        size_t len = 0;
        labels[0] = '\0';
        for (int l = 0; l < m->n_labels && len < sizeof labels; ++l)
            len += (size_t)snprintf(labels + len, sizeof labels - len, "%s%s (%d)", l ? ", " : "", m->label[l].name,
                                    (int)m->label[l].id);
        return HS_FAIL(HS_ERR_CONFIG, "%s: select = \"surface\": unknown label \"%s\"; this mesh's labels are: %s", who,
                       q->label, labels[0] ? labels : "(none)");
    }
    int32_t *tri = NULL;
    HS_CALL(HS_ALLOC(tri, n_tri, "labelled triangles"));
    n_tri = 0;
    for (int32_t f = 0; f < m->n_bfaces; ++f)
        if (m->bface_label[f] == id) tri[n_tri++] = f;
    const double r2 = q->distance * q->distance;
#pragma omp parallel for schedule(dynamic, 256) if (m->n_elems > HS_OMP_MIN)
    for (int32_t e = 0; e < m->n_elems; ++e) {
        double c[3];
        centroid(m, e, c);
        for (int32_t k = 0; k < n_tri; ++k) {
            const int32_t *t = m->bface + 3 * (int64_t)tri[k];
            if (dist2_tri(c, m->xyz + 3 * (int64_t)t[0], m->xyz + 3 * (int64_t)t[1], m->xyz + 3 * (int64_t)t[2]) <= r2) {
                mark[e] = 1;
                break;
            }
        }
    }
    free(tri);
    return HS_OK;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Elements listed in q->file, by the numbers the mesh file gives them. */
static hs_status select_elements(const hs_mesh *m, const hs_region_cfg *q, const char *who, unsigned char *mark)
{
    /* (file number, index) sorted by number, to look each listed number up */
    long long(*by)[2] = NULL;
    hs_status st = HS_OK;
    HS_CALL(HS_ALLOC(by, (size_t)m->n_elems + 1, "element numbers"));
    for (int32_t e = 0; e < m->n_elems; ++e) by[e][0] = hs_mesh_elem_name(m, e), by[e][1] = e;
    qsort(by, (size_t)m->n_elems, sizeof by[0], cmp_ll);
    hs_text_reader r;
    memset(&r, 0, sizeof r);
    HS_CALL_GOTO(hs_text_reader_open(&r, q->file, "element list", HS_ERR_CONFIG, '#'), done);
    for (;;) {
        int got = 0;
        HS_CALL_GOTO(hs_text_reader_next(&r, &got), done);
        if (!got) break;
        char *tok = hs_text_reader_token(&r), *end = NULL;
        errno = 0;
        long long v = strtoll(tok, &end, 10);
        HS_CHECK_GOTO(tok && *end == '\0' && errno == 0, done, HS_ERR_CONFIG,
                      "%s:%ld: expected an element number, got \"%s\" (%s)", q->file, r.line, tok ? tok : "", who);
        HS_CHECK_GOTO(hs_text_reader_remaining(&r) == 0, done, HS_ERR_CONFIG,
                      "%s:%ld: one element number per line (%s)", q->file, r.line, who);
        long long key[2] = {v, 0};
        long long(*hit)[2] = bsearch(key, by, (size_t)m->n_elems, sizeof by[0], cmp_ll);
        HS_CHECK_GOTO(hit != NULL, done, HS_ERR_CONFIG,
                      "%s:%ld: element %lld is not in the mesh (%s; elements are numbered as the mesh file numbers "
                      "them: %s)", q->file, r.line, v, who, m->src_numbering[0] ? m->src_numbering : "0-based index");
        mark[(*hit)[1]] = 1;
    }
done:
    hs_text_reader_close(&r);
    free(by);
    return st;
}

static hs_status select_entry(const hs_mesh *m, const hs_region_cfg *q, const char *who, unsigned char *mark)
{
    memset(mark, 0, (size_t)m->n_elems);
    switch (q->select) {
    case HS_REGION_ATTRIBUTE:
        for (int32_t e = 0; e < m->n_elems; ++e) mark[e] = (m->region ? m->region[e] : 0) == q->attribute;
        return HS_OK;
    case HS_REGION_BOX:
    case HS_REGION_SPHERE:
        for (int32_t e = 0; e < m->n_elems; ++e) {
            double c[3];
            centroid(m, e, c);
            if (q->select == HS_REGION_BOX) {
                mark[e] = c[0] >= q->min[0] && c[0] <= q->max[0] && c[1] >= q->min[1] && c[1] <= q->max[1] &&
                          c[2] >= q->min[2] && c[2] <= q->max[2];
            } else {
                double d[3] = {c[0] - q->center[0], c[1] - q->center[1], c[2] - q->center[2]};
                mark[e] = dot3(d, d) <= q->radius * q->radius;
            }
        }
        return HS_OK;
    case HS_REGION_SURFACE: return select_surface(m, q, who, mark);
    case HS_REGION_ELEMENTS: return select_elements(m, q, who, mark);
    }
    return HS_FAIL(HS_ERR_INTERNAL, "%s: unknown selector %d", who, (int)q->select);
}

static int row_equal(const hs_region_row *a, const hs_region_row *b)
{
    return memcmp(a->prm.v, b->prm.v, sizeof a->prm.v) == 0 && a->d_iso == b->d_iso && a->d_ani == b->d_ani;
}

/* The index of a row equal to @p r in rows[0..*n), appending it when there is none; -1: out of memory. */
static int row_find_or_add(hs_region_row **rows, int *n, int *cap, const hs_region_row *r)
{
    for (int k = 0; k < *n; ++k)
        if (row_equal(&(*rows)[k], r)) return k;
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 4;
        hs_region_row *t = realloc(*rows, sizeof *t * (size_t)c);
        if (!t) return -1;
        *rows = t;
        *cap = c;
    }
    (*rows)[*n] = *r;
    return (*n)++;
}

/* @p whole: @p m is the whole mesh, so an entry that selects nothing is said and a mesh without a
 * conducting element refused; on a part (a rank's elements) the caller does both on the sums. */
static hs_status region_set_build(const hs_mesh *m, const hs_region_cfg *cfg, int n, const hs_model_params *base,
                                  double d_iso, double d_ani, int whole, hs_region_set **out)
{
    *out = NULL;
    hs_status st = HS_OK;
    hs_region_set *s = NULL;
    unsigned char *mark = NULL;
    /* While building: the distinct rows met so far (rows[0] = the unchanged values) and each element's
     * row, not a row per element (a row is 2 KB: hs_model_params holds HS_MODEL_MAX_PARAMS values). */
    hs_region_row *rows = NULL;
    int n_rows = 0, cap_rows = 0;
    int32_t *erow = NULL;  /* [n_elems] */
    int32_t *remap = NULL; /* [n_rows at an entry's start] the row an entry makes of each row, -1 unseen */
    HS_CHECK(n >= 0 && n <= HS_MAX_REGIONS, HS_ERR_CONFIG, "regions: %d entries; at most %d", n, HS_MAX_REGIONS);
    HS_CALL(HS_ALLOC(s, 1, "regions"));
    s->n_entries = n;
    const int32_t ne = m->n_elems;
    HS_CALL_GOTO(HS_ALLOC(s->elem_entry, (size_t)ne + 1, "region of each element"), fail);
    HS_CALL_GOTO(HS_ALLOC(s->entry_count, (size_t)n + 1, "region element counts"), fail);
    HS_CALL_GOTO(HS_ALLOC(s->entry_volume, (size_t)n + 1, "region volumes"), fail);
    HS_CALL_GOTO(HS_ALLOC(mark, (size_t)ne + 1, "region selection"), fail);
    hs_region_row r0 = {.prm = *base, .d_iso = d_iso, .d_ani = d_ani};
    r0.conducting = !(d_iso == 0.0 && d_ani == 0.0);
    HS_CHECK_GOTO(row_find_or_add(&rows, &n_rows, &cap_rows, &r0) == 0, fail, HS_ERR_MEMORY,
                  "out of memory for the region table");
    if (n > 0) HS_CALL_GOTO(HS_ALLOC(erow, (size_t)ne + 1, "element rows"), fail); /* zeroed: row 0 */
    for (int i = 0; i < n; ++i) {
        const hs_region_cfg *q = &cfg[i];
        char who[96];
        hs_region_entry_name(q, i, who, sizeof who);
        HS_CALL_GOTO(select_entry(m, q, who, mark), fail);
        free(remap);
        remap = malloc(sizeof *remap * (size_t)n_rows);
        HS_CHECK_GOTO(remap != NULL, fail, HS_ERR_MEMORY, "out of memory for the region table");
        for (int k = 0; k < n_rows; ++k) remap[k] = -1;
        for (int32_t e = 0; e < ne; ++e) {
            if (!mark[e]) continue;
            s->elem_entry[e] = i + 1;
            s->entry_count[i]++;
            s->entry_volume[i] += hs_mesh_elem_volume(m, e);
            const int32_t from = erow[e];
            if (remap[from] < 0) { /* the entry's values over this row's, once per row */
                hs_region_row r = rows[from];
                if (q->d_iso >= 0.0) r.d_iso = q->d_iso;
                if (q->d_ani >= 0.0) r.d_ani = q->d_ani;
                for (int k = 0; k < q->n_params; ++k) r.prm.v[q->param_index[k]] = q->param_value[k];
                remap[from] = row_find_or_add(&rows, &n_rows, &cap_rows, &r);
                HS_CHECK_GOTO(remap[from] >= 0, fail, HS_ERR_MEMORY, "out of memory for the region table");
            }
            erow[e] = remap[from];
        }
        if (whole && s->entry_count[i] == 0) hs_warn("%s selects no element; it has no effect", who);
    }
    /* the distinct rows the elements use, in order of first appearance (row 0 = the first element's) */
    int cap = 1;
    s->n_rows = 1;
    HS_CALL_GOTO(HS_ALLOC(s->tab, 1, "region table"), fail);
    s->tab[0] = n > 0 && ne > 0 ? rows[erow[0]] : r0;
    if (n > 0) {
        HS_CALL_GOTO(HS_ALLOC(s->elem_tab, (size_t)ne + 1, "element rows"), fail);
        free(remap); /* now: a building row's place in the table, -1 not yet */
        remap = malloc(sizeof *remap * (size_t)n_rows);
        HS_CHECK_GOTO(remap != NULL, fail, HS_ERR_MEMORY, "out of memory for the region table");
        for (int k = 0; k < n_rows; ++k) remap[k] = -1;
        if (ne > 0) remap[erow[0]] = 0;
        for (int32_t e = 0; e < ne; ++e) {
            if (remap[erow[e]] < 0) {
                HS_CHECK_GOTO(s->n_rows < HS_REGION_MAX_ROWS, fail, HS_ERR_CONFIG,
                              "regions: more than %d distinct parameter combinations", HS_REGION_MAX_ROWS);
                if (s->n_rows == cap) {
                    cap *= 2;
                    hs_region_row *t = realloc(s->tab, sizeof *t * (size_t)cap);
                    HS_CHECK_GOTO(t != NULL, fail, HS_ERR_MEMORY, "out of memory for the region table");
                    s->tab = t;
                }
                remap[erow[e]] = s->n_rows;
                s->tab[s->n_rows++] = rows[erow[e]];
            }
            s->elem_tab[e] = (uint16_t)remap[erow[e]];
        }
    }
    for (int k = 0; k < s->n_rows; ++k) s->tab[k].conducting = !(s->tab[k].d_iso == 0.0 && s->tab[k].d_ani == 0.0);
    for (int32_t e = 0; e < ne; ++e) s->n_passive += !s->tab[s->elem_tab ? s->elem_tab[e] : 0].conducting;
    HS_CHECK_GOTO(!whole || s->n_passive < ne || ne == 0, fail, HS_ERR_CONFIG,
                  "regions: every element is non-conducting (d_iso = d_ani = 0): nothing left to simulate");
    if (s->n_rows == 1 && s->tab[0].conducting) {
        free(s->elem_tab);
        s->elem_tab = NULL;
    }
    if (s->n_passive > 0) {
        /* a node is decoupled when none of its elements conducts */
        HS_CALL_GOTO(HS_ALLOC(s->decoupled, (size_t)m->n_nodes + 1, "decoupled nodes"), fail);
        memset(s->decoupled, 1, (size_t)m->n_nodes);
        for (int32_t e = 0; e < ne; ++e)
            if (s->tab[s->elem_tab[e]].conducting)
                for (int a = 0; a < 4; ++a) s->decoupled[m->tets[4 * (int64_t)e + a]] = 0;
        for (int32_t i = 0; i < m->n_nodes; ++i) s->n_decoupled += s->decoupled[i];
    }
    free(mark);
    free(rows);
    free(erow);
    free(remap);
    *out = s;
    return HS_OK;
fail:
    free(mark);
    free(rows);
    free(erow);
    free(remap);
    hs_region_set_destroy(&s);
    return st;
}

hs_status hs_region_set_create(const hs_mesh *m, const hs_region_cfg *cfg, int n, const hs_model_params *base,
                               double d_iso, double d_ani, hs_region_set **out)
{
    return region_set_build(m, cfg, n, base, d_iso, d_ani, 1, out);
}

hs_status hs_region_set_create_part(const hs_mesh *m, const hs_region_cfg *cfg, int n, const hs_model_params *base,
                                    double d_iso, double d_ani, hs_region_set **out)
{
    return region_set_build(m, cfg, n, base, d_iso, d_ani, 0, out);
}

void hs_region_set_destroy(hs_region_set **p)
{
    if (!p || !*p) return;
    hs_region_set *s = *p;
    free(s->tab);
    free(s->elem_tab);
    free(s->elem_entry);
    free(s->entry_count);
    free(s->entry_volume);
    free(s->decoupled);
    free(s);
    *p = NULL;
}
