/* Probes and pseudo-ECG during a run (hs_samples.h): sample sets on the backend, CSV files. */
#define _POSIX_C_SOURCE 200809L
#include "hs_gid_at.h"
#include "hs_samples.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_atomic_file.h"
#include "hs_build_config.h"
#include "hs_par.h"
#include "hs_plot.h"
#include "hs_util.h"
#if HS_HAS_MPI
#include <mpi.h>

#include "hs_backend_mpi.h"
#endif

typedef struct sample_stream {
    hs_sample_set *set;
    int id;           /* backend set index */
    double interval;  /* ms */
    long next;        /* index of the next sample due: at next * interval */
    double *times;    /* [HS_SAMPLE_BATCH] ms of the buffered samples */
    double *rows;     /* [HS_SAMPLE_BATCH][n_rows] fetched */
    int n;            /* buffered on the backend */
    char *path;
    int n_leads;      /* ECG: lead columns after the electrodes */
    const int (*lead)[2];
    int is_ecg;
} sample_stream;

struct hs_samples {
    hs_backend *b;
    sample_stream st[HS_SAMPLE_SETS];
    int n_st;
    double eps;
    int writer; /* 1: this process writes the CSVs (a serial run, or rank 0 of a distributed one) */
    int distributed; /* the fetch is collective: rank 0's CSV errors are agreed (hs_par_agree) */
};

/* A distributed run: @p st over every rank (collective), so that rank 0's failure to write a CSV, or
 * a rank's failure to prepare, stops every rank alike before the next collective, said once. */
static hs_status samples_agree(const hs_samples *x, hs_status st)
{
    return x->distributed ? hs_par_agree(st) : st;
}

/* Keep the header and the rows with t <= t_keep (a restart), or write a fresh header. */
static hs_status csv_prepare(const char *path, const char *header, double t_keep)
{
    char *keep = NULL;
    size_t klen = 0;
    if (t_keep >= 0) {
        FILE *f = fopen(path, "r");
        if (f) {
            FILE *m = open_memstream(&keep, &klen);
            char *line = NULL;
            size_t cap = 0;
            int first = 1;
            while (m && getline(&line, &cap, f) > 0) {
                if (first || strtod(line, NULL) <= t_keep) fputs(line, m);
                first = 0;
            }
            free(line);
            fclose(f);
            if (m) fclose(m);
        }
    }
    FILE *f = fopen(path, "w");
    HS_CHECK(f != NULL, HS_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    if (keep && klen)
        fwrite(keep, 1, klen, f);
    else
        fputs(header, f);
    free(keep);
    HS_CHECK(fclose(f) == 0, HS_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return HS_OK;
}

static hs_status stream_write(sample_stream *s, int writer)
{
    if (s->n == 0) return HS_OK;
    if (!writer) { /* a rank other than 0: it took part in the fetch (a reduction), rank 0 writes */
        s->n = 0;
        return HS_OK;
    }
    const int nr = s->set->n_rows;
    FILE *f = fopen(s->path, "a");
    HS_CHECK(f != NULL, HS_ERR_IO, "cannot append to %s: %s", s->path, strerror(errno));
    for (int q = 0; q < s->n; ++q) {
        const double *y = s->rows + (size_t)q * (size_t)nr;
        fprintf(f, "%.10g", s->times[q]);
        for (int j = 0; j < nr; ++j) fprintf(f, ",%.10g", y[j] + s->set->offset[j]);
        for (int l = 0; l < s->n_leads; ++l) fprintf(f, ",%.10g", y[s->lead[l][0]] - y[s->lead[l][1]]);
        fputc('\n', f);
    }
    int bad = ferror(f);
    HS_CHECK(fclose(f) == 0 && !bad, HS_ERR_IO, "cannot append to %s: %s", s->path, strerror(errno));
    s->n = 0;
    return HS_OK;
}

/* Collective in a distributed run: every rank fetches (its partial rows are summed), rank 0 writes. */
static hs_status stream_flush(hs_samples *x, sample_stream *s)
{
    if (s->n == 0) return HS_OK;
    HS_CALL(x->b->ops->sample_fetch(x->b, s->id, s->n, s->rows)); /* agreed by the backend */
    const hs_status st = samples_agree(x, stream_write(s, x->writer));
    if (x->distributed) s->n = 0; /* every rank alike: rows rank 0 failed to write are not fetched again */
    return st;
}

static hs_status stream_take(hs_samples *x, sample_stream *s, double t)
{
    HS_CALL(x->b->ops->sample(x->b, s->id, s->n));
    s->times[s->n++] = t;
    if (s->n == HS_SAMPLE_BATCH) HS_CALL(stream_flush(x, s));
    return HS_OK;
}

/* @p prep: the caller's status so far (its CSV header), agreed with this stream's own preparation
 * before the backend's collective set-up. */
static hs_status stream_open(hs_samples *x, const hs_sim_spec *spec, hs_sample_set *set, const char *suffix,
                             const char *header, double interval, double t_restart, hs_status prep)
{
    sample_stream *s = &x->st[x->n_st];
    s->set = set;
    s->id = x->n_st;
    s->interval = interval;
    hs_status st = prep;
    if (st == HS_OK) st = HS_ALLOC(s->times, HS_SAMPLE_BATCH, "sample times");
    if (st == HS_OK) st = HS_ALLOC(s->rows, (size_t)HS_SAMPLE_BATCH * (size_t)set->n_rows, "samples");
    char name[128];
    snprintf(name, sizeof name, "%s%s", spec->out_prefix, suffix);
    if (st == HS_OK) st = hs_path_join(spec->out_dir, name, &s->path);
    if (st == HS_OK && x->writer) st = csv_prepare(s->path, header, t_restart);
    HS_CALL(samples_agree(x, st)); /* rank 0's CSV (its directory) said once, before the collectives */
    HS_CALL(x->b->ops->sample_setup(x->b, s->id, set, HS_SAMPLE_BATCH));
    x->n_st++;
    double t0 = t_restart < 0 ? 0.0 : t_restart;
    s->next = (long)floor(t0 / interval + 1e-9) + 1;
    if (t_restart < 0) HS_CALL(stream_take(x, s, 0.0));
    hs_log(1, "%s: %d columns every %g ms\n", s->path, set->n_rows + s->n_leads, interval);
    return HS_OK;
}

#if HS_HAS_MPI
/* ---- a distributed run: the sample sets found on each rank's part --------------------------------
 * No rank holds the whole mesh (parallel.partition = "box", or a file mesh sent in parts), so each
 * rank finds its share on its own part (the backend's view: the local mesh, its owned nodes first, the
 * elements touching them in increasing global number) and the ranks agree by minima and maxima, which
 * are exact: the global result is the serial run's. A set lists the owned nodes' entries with their
 * global numbers (the backend keeps those of its owned nodes). */

/* (value, global number) minimised over the ranks, n <= HS_SPEC_MAX_POINTS pairs: the smallest value,
 * then the smallest number among the ranks holding it */
static void min_loc(MPI_Comm comm, double *v, int64_t *g, int n)
{
    double vm[HS_SPEC_MAX_POINTS];
    int64_t gm[HS_SPEC_MAX_POINTS];
    MPI_Allreduce(v, vm, n, MPI_DOUBLE, MPI_MIN, comm);
    for (int j = 0; j < n; ++j) gm[j] = v[j] == vm[j] ? g[j] : INT64_MAX;
    MPI_Allreduce(MPI_IN_PLACE, gm, n, MPI_INT64_T, MPI_MIN, comm);
    memcpy(v, vm, sizeof *v * (size_t)n);
    memcpy(g, gm, sizeof *g * (size_t)n);
}

/* hs_sample_probes_create on the ranks' parts: the nearest node over every rank's owned nodes (ties:
 * the smallest global number, as serially), the longest edge over every rank's elements. */
static hs_status probes_part(const hs_sim *sim, const double *xyz, const char *const *names, int n,
                             hs_sample_set **out)
{
    *out = NULL;
    hs_backend_mpi_view v;
    hs_backend_mpi_view_get(sim->backend, &v);
    const MPI_Comm comm = *(const MPI_Comm *)v.comm;
    const hs_part_local *l = v.part;
    const hs_model *model = sim->prob->opt.model;
    double hmax = hs_sample_longest_edge(v.lmesh);
    MPI_Allreduce(MPI_IN_PLACE, &hmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    double d[HS_SPEC_MAX_POINTS], dm[HS_SPEC_MAX_POINTS];
    int64_t g[HS_SPEC_MAX_POINTS], gm[HS_SPEC_MAX_POINTS];
    HS_CHECK(n <= HS_SPEC_MAX_POINTS, HS_ERR_INTERNAL, "%d probes", n); /* the spec's bound: alike on every rank */
    for (int j = 0; j < n; ++j) hs_sample_nearest_node(v.lmesh, l->n_owned, l->l2g, xyz + 3 * j, &d[j], &g[j]);
    memcpy(dm, d, sizeof *d * (size_t)n);
    memcpy(gm, g, sizeof *g * (size_t)n);
    min_loc(comm, dm, gm, n);
    int64_t nnz = 0;
    for (int j = 0; j < n; ++j) nnz += g[j] == gm[j] && d[j] == dm[j];
    hs_sample_set *s = NULL;
    HS_CALL(hs_sample_set_alloc(n, nnz, 1, &s));
    int64_t k = 0;
    for (int j = 0; j < n; ++j) {
        const double *x = xyz + 3 * j;
        if (!(dm[j] <= hmax)) {
            hs_sample_set_destroy(&s);
            return HS_FAIL(HS_ERR_CONFIG, "probe \"%s\" at [%g, %g, %g] mm is %.4g mm from the nearest mesh node (the "
                           "longest edge is %.4g mm): it lies outside the tissue", names[j], x[0], x[1], x[2], dm[j],
                           hmax);
        }
        if (g[j] == gm[j] && d[j] == dm[j]) { /* this rank owns the node */
            s->col[k] = (int32_t)gm[j];
            s->val[k++] = model->mv_scale;
        }
        s->row_ptr[j + 1] = k;
        s->offset[j] = model->mv_offset;
        s->node[j] = (int32_t)gm[j];
        s->dist[j] = dm[j];
    }
    *out = s;
    return HS_OK;
}

/* The rank's mesh and regions with the elements in increasing global number, as the samples read
 * them: the first element holding a point, the first nearest centroid and each node's sum over its
 * elements then follow the whole mesh's order, whatever the view's (a keyed view orders its elements
 * by local node). The view's own arrays when they are in that order already; else copies of the
 * elements' nodes, fibres and region rows (the mesh and region set are shallow copies, never freed
 * as such: global_order_free). */
typedef struct global_order {
    hs_mesh m;
    hs_region_set rg;
    const hs_mesh *mesh;      /* &m, or the view's mesh */
    const hs_region_set *reg; /* &rg, the view's regions, or NULL */
    const int64_t *gid;       /* [n_elems] each element's global number */
    int32_t *tets;            /* the copies (NULL: none) */
    double *fiber;
    uint16_t *elem_tab;
    int32_t *elem_entry;
    int64_t *gids;
} global_order;

static void global_order_free(global_order *g)
{
    free(g->tets), free(g->fiber), free(g->elem_tab), free(g->elem_entry), free(g->gids);
    memset(g, 0, sizeof *g);
}

static hs_status global_order_make(const hs_part_local *l, const hs_mesh *lm, const hs_region_set *lreg,
                                   global_order *g)
{
    memset(g, 0, sizeof *g);
    g->mesh = lm;
    g->reg = lreg;
    g->gid = l->elems;
    const int32_t ne = l->n_elems;
    int sorted = 1;
    for (int32_t e = 1; e < ne && sorted; ++e) sorted = l->elems[e] > l->elems[e - 1];
    if (sorted) return HS_OK;
    hs_status st = HS_OK;
    hs_gid_at *o = NULL;
    st = HS_ALLOC(o, (size_t)ne + 1, "samples' element order");
    if (st == HS_OK) st = HS_ALLOC(g->gids, (size_t)ne + 1, "samples' element order");
    if (st == HS_OK) st = HS_ALLOC(g->tets, 4 * (size_t)ne + 4, "samples' element order");
    if (st == HS_OK && lm->fiber) st = HS_ALLOC(g->fiber, 3 * (size_t)ne + 3, "samples' element order");
    if (st == HS_OK && lreg && lreg->elem_tab) st = HS_ALLOC(g->elem_tab, (size_t)ne + 1, "samples' element order");
    if (st == HS_OK && lreg && lreg->elem_entry) st = HS_ALLOC(g->elem_entry, (size_t)ne + 1, "samples' element order");
    if (st != HS_OK) {
        free(o);
        global_order_free(g);
        return st;
    }
    for (int32_t e = 0; e < ne; ++e) o[e] = (hs_gid_at){l->elems[e], e};
    qsort(o, (size_t)ne, sizeof *o, hs_gid_at_cmp);
    for (int32_t k = 0; k < ne; ++k) {
        const int32_t e = o[k].i;
        g->gids[k] = o[k].gid;
        memcpy(g->tets + 4 * (size_t)k, lm->tets + 4 * (size_t)e, 4 * sizeof(int32_t));
        if (g->fiber) memcpy(g->fiber + 3 * (size_t)k, lm->fiber + 3 * (size_t)e, 3 * sizeof(double));
        if (g->elem_tab) g->elem_tab[k] = lreg->elem_tab[e];
        if (g->elem_entry) g->elem_entry[k] = lreg->elem_entry[e];
    }
    free(o);
    g->m = *lm;
    g->m.tets = g->tets;
    g->m.fiber = g->fiber;
    g->m.region = NULL; /* not read by the samples; never a stale order */
    g->m.elem_src = NULL;
    g->mesh = &g->m;
    if (lreg) {
        g->rg = *lreg;
        g->rg.elem_tab = g->elem_tab;
        g->rg.elem_entry = g->elem_entry;
        g->reg = &g->rg;
    }
    g->gid = g->gids;
    return HS_OK;
}

/* hs_sample_ecg_create on the ranks' parts: the electrode's element and depth (the whole mesh's
 * boundary faces are those of one element with an owned vertex, over the ranks), each owned node's
 * weight from every element touching it in the whole mesh's order (bit for bit the serial weight), the
 * nearest centroid and the extent over the ranks. The rank's elements in increasing global number
 * (global_order), whatever the view's order. */
static hs_status ecg_part(const hs_sim_spec *spec, const hs_sim *sim, const char *const *names, hs_sample_set **out)
{
    *out = NULL;
    const int n = spec->n_electrodes;
    const double *xyz = &spec->electrode_xyz[0][0];
    HS_CHECK(spec->ecg_sigma_b > 0, HS_ERR_CONFIG, "ecg.sigma_b = %g: must be > 0", spec->ecg_sigma_b);
    hs_backend_mpi_view v;
    hs_backend_mpi_view_get(sim->backend, &v);
    const MPI_Comm comm = *(const MPI_Comm *)v.comm;
    const hs_part_local *l = v.part;
    const int32_t nl = l->n_owned + l->n_ghost, no = l->n_owned;
    global_order go;
    HS_CALL(hs_par_agree(global_order_make(l, v.lmesh, v.lreg, &go)));
    const hs_mesh *lm = go.mesh;
    const int64_t *gid = go.gid;
    hs_status st = HS_OK;
    hs_sample_set *s = NULL;
    double *w = NULL;
    /* inside the tissue: the first element (global order) holding it, its size, its depth */
    for (int j = 0; j < n; ++j) {
        const double *x = xyz + 3 * j;
        hs_mesh_point_place pl;
        HS_CALL_GOTO(hs_mesh_point_locate(lm, x, &pl), fail);
        int64_t ge = pl.elem >= 0 ? gid[pl.elem] : INT64_MAX;
        MPI_Allreduce(MPI_IN_PLACE, &ge, 1, MPI_INT64_T, MPI_MIN, comm);
        double size = pl.elem >= 0 && gid[pl.elem] == ge ? pl.elem_size : 0.0;
        MPI_Allreduce(MPI_IN_PLACE, &size, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (ge == INT64_MAX) continue; /* outside: no depth */
        double depth = INFINITY;
        const hs_status sd = hs_mesh_boundary_distance(lm, x, no, l->l2g, &depth);
        MPI_Allreduce(MPI_IN_PLACE, &depth, 1, MPI_DOUBLE, MPI_MIN, comm);
        HS_CALL_GOTO(hs_par_agree(sd), fail); /* the ranks go on together */
        const hs_mesh_point_place whole = {(int32_t)ge, isfinite(depth) ? depth : 0.0, size};
        HS_CALL_GOTO(hs_sample_ecg_check_place(j, names[j], x, &whole), fail);
    }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int32_t i = 0; i < no; ++i)
        for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], lm->xyz[3 * (int64_t)i + k]), hi[k] = fmax(hi[k], lm->xyz[3 * (int64_t)i + k]);
    MPI_Allreduce(MPI_IN_PLACE, lo, 3, MPI_DOUBLE, MPI_MIN, comm);
    MPI_Allreduce(MPI_IN_PLACE, hi, 3, MPI_DOUBLE, MPI_MAX, comm);
    const double extent = hs_sample_distance(lo, hi);
    const double scale = hs_sample_ecg_scale(sim->prob->opt.model, spec->ecg_sigma_b);
    st = hs_sample_set_alloc(n, (int64_t)n * no, 0, &s);
    if (st == HS_OK) st = HS_ALLOC(w, (size_t)nl + 1, "ECG weights");
    HS_CALL_GOTO(hs_par_agree(st), fail); /* every rank reaches the reductions below, or none */
    for (int j = 0; j < n; ++j) {
        const double *x = xyz + 3 * j;
        hs_sample_near near;
        memset(w, 0, sizeof *w * (size_t)nl);
        hs_sample_ecg_weights(lm, go.reg, sim->prob->opt.d_iso, sim->prob->opt.d_ani, scale, x, w, &near);
        double r = near.r;
        int64_t ge = near.elem >= 0 ? gid[near.elem] : INT64_MAX;
        min_loc(comm, &r, &ge, 1);
        double size = near.elem >= 0 && gid[near.elem] == ge ? near.size : 0.0;
        MPI_Allreduce(MPI_IN_PLACE, &size, 1, MPI_DOUBLE, MPI_MAX, comm);
        const hs_sample_near whole = {r, ge == INT64_MAX ? -1 : (int32_t)ge, size};
        hs_sample_ecg_warn(names[j], x, &whole, extent);
        for (int32_t i = 0; i < no; ++i) {
            s->col[(int64_t)j * no + i] = (int32_t)l->l2g[i];
            s->val[(int64_t)j * no + i] = w[i];
        }
        s->row_ptr[j + 1] = (int64_t)(j + 1) * no;
        s->offset[j] = 0.0; /* as serially: the weights sum to zero */
    }
    free(w);
    global_order_free(&go);
    *out = s;
    return HS_OK;
fail:
    free(w);
    global_order_free(&go);
    hs_sample_set_destroy(&s);
    return st;
}
#endif

/* The probes' set: on the whole mesh, or (a distributed run) on the ranks' parts. */
static hs_status probes_set(const hs_sim_spec *spec, hs_sim *sim, const char *const *names, hs_sample_set **out)
{
#if HS_HAS_MPI
    if (spec->distributed) return hs_par_agree(probes_part(sim, &spec->probe_xyz[0][0], names, spec->n_probes, out));
#endif
    return hs_sample_probes_create(sim->prob, &spec->probe_xyz[0][0], names, spec->n_probes, out);
}

/* The electrodes' set, likewise. */
static hs_status ecg_set(const hs_sim_spec *spec, hs_sim *sim, const char *const *names, hs_sample_set **out)
{
#if HS_HAS_MPI
    if (spec->distributed) return hs_par_agree(ecg_part(spec, sim, names, out));
#endif
    return hs_sample_ecg_create(sim->prob, &spec->electrode_xyz[0][0], names, spec->n_electrodes, spec->ecg_sigma_b,
                                out);
}

hs_status hs_samples_create(const hs_sim_spec *spec, hs_sim *sim, double t_restart, hs_samples **out)
{
    *out = NULL;
    if (!spec->output_enabled || (spec->n_probes == 0 && spec->n_electrodes == 0)) return HS_OK;
    hs_backend *b = sim->backend;
    HS_CHECK(b->ops->sample && b->ops->sample_setup && b->ops->sample_fetch, HS_ERR_INTERNAL,
             "backend %s cannot sample probes or an ECG", b->ops->name);
    hs_samples *x = NULL;
    hs_status st = HS_OK;
    char *header = NULL;
    size_t hlen = 0;
    st = HS_ALLOC(x, 1, "samples");
    HS_CALL(spec->distributed ? hs_par_agree(st) : st); /* before the collectives of the sets below */
    x->b = b;
    x->eps = 1e-9 * spec->dt;
    x->writer = !spec->distributed || spec->rank == 0;
    x->distributed = spec->distributed;
    const char *names[HS_SPEC_MAX_POINTS];
    if (spec->n_probes > 0) {
        hs_sample_set *set = NULL;
        for (int j = 0; j < spec->n_probes; ++j) names[j] = spec->probe_name[j];
        HS_CALL_GOTO(probes_set(spec, sim, names, &set), fail);
        FILE *m = open_memstream(&header, &hlen);
        hs_status hs = m ? HS_OK : HS_FAIL(HS_ERR_MEMORY, "out of memory for a CSV header");
        if (m) {
            fputs("t_ms", m);
            for (int j = 0; j < spec->n_probes; ++j) {
                fprintf(m, ",%s", names[j]);
                hs_log(2, "probe %s: node %d, %.3g mm from the point\n", names[j], (int)set->node[j], set->dist[j]);
            }
            fputc('\n', m);
            fclose(m);
        }
        double iv = spec->probe_interval > 0 ? spec->probe_interval : spec->dt;
        st = stream_open(x, spec, set, "_probes.csv", header, iv, t_restart, hs);
        if (st != HS_OK) {
            if (x->st[x->n_st].set != set) hs_sample_set_destroy(&set);
            goto fail;
        }
        free(header);
        header = NULL;
    }
    if (spec->n_electrodes > 0) {
        hs_sample_set *set = NULL;
        for (int j = 0; j < spec->n_electrodes; ++j) names[j] = spec->electrode_name[j];
        HS_CALL_GOTO(ecg_set(spec, sim, names, &set), fail);
        double w1[HS_SPEC_MAX_POINTS] = {0.0}; /* |phi_e(u) - phi_e(u')| <= this * max |u - u'| */
        for (int j = 0; j < spec->n_electrodes; ++j)
            for (int64_t k = set->row_ptr[j]; k < set->row_ptr[j + 1]; ++k) w1[j] += fabs(set->val[k]);
        if (spec->distributed) hs_par_sum_doubles(w1, spec->n_electrodes); /* each rank its owned nodes' */
        FILE *m = open_memstream(&header, &hlen);
        hs_status hs = m ? HS_OK : HS_FAIL(HS_ERR_MEMORY, "out of memory for a CSV header");
        if (m) {
            fputs("t_ms", m);
            for (int j = 0; j < spec->n_electrodes; ++j) fprintf(m, ",%s", names[j]);
            for (int j = 0; j < spec->n_electrodes; ++j)
                hs_log(2, "electrode %s: weights' 1-norm %.6g mV per model unit\n", names[j], w1[j]);
            for (int l = 0; l < spec->n_leads; ++l) fprintf(m, ",%s", spec->lead_name[l]);
            fputc('\n', m);
            fclose(m);
        }
        x->st[x->n_st].n_leads = spec->n_leads;
        x->st[x->n_st].is_ecg = 1;
        x->st[x->n_st].lead = spec->lead;
        double iv = spec->ecg_interval > 0 ? spec->ecg_interval : spec->out_interval;
        st = stream_open(x, spec, set, "_ecg.csv", header, iv, t_restart, hs);
        if (st != HS_OK) {
            if (x->st[x->n_st].set != set) hs_sample_set_destroy(&set);
            goto fail;
        }
        free(header);
        header = NULL;
    }
    *out = x;
    return HS_OK;
fail:
    free(header);
    hs_samples_destroy(&x);
    return st;
}

hs_status hs_samples_step(hs_samples *x, double t_ms)
{
    if (!x) return HS_OK;
    for (int i = 0; i < x->n_st; ++i) {
        sample_stream *s = &x->st[i];
        if (t_ms < s->next * s->interval - x->eps) continue;
        HS_CALL(stream_take(x, s, t_ms));
        while (s->next * s->interval <= t_ms + x->eps) ++s->next;
    }
    return HS_OK;
}

hs_status hs_samples_flush(hs_samples *x)
{
    if (!x) return HS_OK;
    for (int i = 0; i < x->n_st; ++i) HS_CALL(stream_flush(x, &x->st[i]));
    return HS_OK;
}

/* A whole CSV of numbers with a header line: names [n_cols] (column 0 is t), data [n_rows][n_cols]. */
typedef struct csv_table {
    int n_cols;
    int64_t n_rows;
    char **names;
    double *data;
} csv_table;

static void csv_table_free(csv_table *t)
{
    if (t->names)
        for (int j = 0; j < t->n_cols; ++j) free(t->names[j]);
    free(t->names);
    free(t->data);
    memset(t, 0, sizeof *t);
}

static hs_status csv_table_read(const char *path, csv_table *t)
{
    memset(t, 0, sizeof *t);
    hs_status st = HS_OK;
    char *line = NULL;
    size_t cap = 0;
    int64_t rcap = 0;
    FILE *f = fopen(path, "r");
    HS_CHECK(f != NULL, HS_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    ssize_t len = getline(&line, &cap, f);
    HS_CHECK_GOTO(len > 0, done, HS_ERR_IO, "%s: no header line", path);
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
    t->n_cols = 1;
    for (const char *c = line; *c; ++c) t->n_cols += *c == ',';
    HS_CALL_GOTO(HS_ALLOC(t->names, t->n_cols, "CSV column names"), done);
    {
        char *save = NULL, *tok = strtok_r(line, ",", &save);
        for (int j = 0; j < t->n_cols && tok; ++j, tok = strtok_r(NULL, ",", &save)) {
            t->names[j] = strdup(tok);
            HS_CHECK_GOTO(t->names[j] != NULL, done, HS_ERR_MEMORY, "out of memory reading %s", path);
        }
    }
    while (getline(&line, &cap, f) > 0) {
        if (t->n_rows == rcap) {
            rcap = rcap ? 2 * rcap : 1024;
            double *d = realloc(t->data, (size_t)rcap * (size_t)t->n_cols * sizeof *d);
            HS_CHECK_GOTO(d != NULL, done, HS_ERR_MEMORY, "out of memory reading %s", path);
            t->data = d;
        }
        double *row = t->data + (size_t)t->n_rows * (size_t)t->n_cols;
        char *c = line;
        int j = 0;
        for (; j < t->n_cols; ++j) {
            char *e = NULL;
            row[j] = strtod(c, &e);
            if (e == c) break;
            c = *e == ',' ? e + 1 : e;
        }
        if (j == t->n_cols) ++t->n_rows; /* a short or torn row (a killed run) is left out */
    }
done:
    free(line);
    fclose(f);
    if (st != HS_OK) csv_table_free(t);
    return st;
}

/* The stream's CSV (every row: those kept from before a restart too) as a PNG beside it: the probes'
 * V(t), or the ECG's leads (its electrodes when no lead is defined) over time. */
static hs_status stream_plot(const sample_stream *s)
{
    csv_table t;
    HS_CALL(csv_table_read(s->path, &t));
    hs_status st = HS_OK;
    double *tt = NULL, *col = NULL;
    char *png = NULL;
    const int nr = s->set->n_rows;
    /* columns: t, the rows of the set, then the leads */
    int first = 1, count = nr;
    if (s->is_ecg && s->n_leads > 0) first = 1 + nr, count = s->n_leads;
    HS_CHECK_GOTO(t.n_cols == 1 + nr + s->n_leads, done, HS_ERR_IO, "%s: %d columns, %d expected", s->path,
                  t.n_cols, 1 + nr + s->n_leads);
    if (t.n_rows == 0) goto done;
    if (count > HS_PLOT_MAX_SERIES) {
        hs_warn("%s: the plot shows the first %d of %d curves\n", s->path, HS_PLOT_MAX_SERIES, count);
        count = HS_PLOT_MAX_SERIES;
    }
    const size_t n = (size_t)t.n_rows;
    HS_CALL_GOTO(HS_ALLOC(tt, n, "plot times"), done);
    HS_CALL_GOTO(HS_ALLOC(col, n * (size_t)count, "plot curves"), done);
    hs_plot_series ser[HS_PLOT_MAX_SERIES];
    for (size_t i = 0; i < n; ++i) tt[i] = t.data[i * (size_t)t.n_cols];
    for (int k = 0; k < count; ++k) {
        for (size_t i = 0; i < n; ++i) col[(size_t)k * n + i] = t.data[i * (size_t)t.n_cols + (size_t)(first + k)];
        ser[k] = (hs_plot_series){tt, col + (size_t)k * n, (int64_t)n, t.names[first + k]};
    }
    size_t plen = strlen(s->path);
    HS_CALL_GOTO(HS_ALLOC(png, plen + 1, "plot path"), done);
    memcpy(png, s->path, plen - 4); /* the CSV's name with .png for .csv */
    memcpy(png + plen - 4, ".png", 5);
    hs_plot_opts o;
    memset(&o, 0, sizeof o);
    o.title = s->is_ecg ? (s->n_leads > 0 ? "pseudo-ECG leads" : "pseudo-ECG electrodes") : "probes";
    o.xlabel = "t (ms)";
    o.ylabel = s->is_ecg ? "phi_e (mV)" : "V (mV)";
    HS_CALL_GOTO(hs_plot_png(png, &o, ser, count, NULL), done);
    hs_log(1, "%s: %d curves\n", png, count);
done:
    free(png);
    free(col);
    free(tt);
    csv_table_free(&t);
    return st;
}

hs_status hs_samples_plot(hs_samples *x)
{
    if (!x || !x->writer) return HS_OK;
    for (int i = 0; i < x->n_st; ++i) HS_CALL(stream_plot(&x->st[i]));
    return HS_OK;
}

void hs_samples_destroy(hs_samples **p)
{
    if (!p || !*p) return;
    hs_samples *x = *p;
    for (int i = 0; i < HS_SAMPLE_SETS; ++i) {
        hs_sample_set_destroy(&x->st[i].set);
        free(x->st[i].times);
        free(x->st[i].rows);
        free(x->st[i].path);
    }
    free(x);
    *p = NULL;
}
