/* heartsim bench spmv: every registered SpMV kernel on one matrix (a config's mesh after one real
 * assembly, or a Matrix Market file), each checked against its CPU reference on the device before
 * it is timed, with the quantities of Wong, Kuhl & Darve 2015 (seed 002, docs/references.md) sec. 6: effective bandwidth (Fig. 12), and the
 * break-even count alpha against cuSPARSE (eq. 14, Table 4). The device side is
 * backends/cuda/spmv/bench.cu. Just over 600 lines: the table, CSV and JSON writers of one command. */
#include "bench_spmv_internal.h"
#include "hs_bench.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_backend_diag.h"
#include "hs_build_config.h"
#include "hs_mtx.h"
#include "hs_spec.h"
#include "hs_spmv.h"
#include "hs_util.h"
#if HS_HAS_CUDA
#include "hs_cuda.h"
#endif

#define BASELINE "cusparse_csr"

#if HS_HAS_CUDA

typedef struct kernel_row {
    const hs_spmv_ops *ops;
    int status;            /* 0 measured, 1 FAILED its check, 2 stopped by an error */
    char note[600];
    int renumbered;        /* ran on the matrix renumbered by the format's node_order */
    int identity;          /* slot map is the CSR order: nothing to reorder */
    int64_t n_slots;
    double setup_s;        /* host: node_order (if any) + layout build, wall */
    double reorder_cpu_s;  /* host scatter CSR -> slots, one thread, median */
    double alpha_gpu, alpha_cpu; /* NAN: not available; INFINITY: never pays back */
    hs_gpu_spmv_bench g;
} kernel_row;

/* the matrix: hs_bench_spmv_matrix, hs_bench_permute_sym (bench_spmv_cpu.c) */

/* ---- one kernel ------------------------------------------------------------------------------ */

/* Host: setup (timed), values scattered into the slots, CPU reorder (timed), reference apply;
 * device: check and timings. A kernel that cannot be measured is marked, never skipped silently. */
static hs_status run_kernel(const hs_spmv_ops *o, const hs_csr *a0, const hs_spmv_params *prm,
                            const double *x0, const double *ycsr0, const double *ab0, int reps,
                            long long l2, kernel_row *row)
{
    memset(row, 0, sizeof *row);
    row->ops = o;
    row->alpha_gpu = row->alpha_cpu = NAN;
    const hs_csr *a = a0;
    const double *x = x0, *ycsr = ycsr0, *ab = ab0;
    hs_csr *perm_a = NULL;
    int32_t *perm = NULL;
    double *xp = NULL, *yp = NULL, *abp = NULL, *vf = NULL, *yref = NULL, *t = NULL;
    hs_spmv_layout *lay = NULL;
    hs_status st = HS_OK;
    const int32_t n = a0->n_rows;

    double w0 = hs_wtime();
    if (o->node_order) {
        /* the format wants its own numbering (the run renumbers the mesh with it): measure it on
         * the renumbered matrix; the renumbering itself is part of its setup time */
        row->renumbered = 1;
        HS_CALL_GOTO(HS_ALLOC(perm, n, "format numbering"), done);
        HS_CALL_GOTO(o->node_order(a0, prm, perm), done);
        row->setup_s = hs_wtime() - w0;
        HS_CALL_GOTO(hs_bench_permute_sym(a0, perm, &perm_a), done);
        HS_CALL_GOTO(HS_ALLOC(xp, n, "renumbered x"), done);
        HS_CALL_GOTO(HS_ALLOC(yp, n, "renumbered y"), done);
        HS_CALL_GOTO(HS_ALLOC(abp, n, "renumbered |A||x|"), done);
        for (int32_t k = 0; k < n; ++k) {
            xp[k] = x0[perm[k]];
            yp[k] = ycsr0[perm[k]];
            abp[k] = ab0[perm[k]];
        }
        a = perm_a;
        x = xp;
        ycsr = yp;
        ab = abp;
    }
    w0 = hs_wtime();
    HS_CALL_GOTO(hs_spmv_layout_create(o, a, prm, &lay), done);
    row->setup_s += hs_wtime() - w0;
    row->n_slots = lay->n_slots;
    row->identity = lay->n_slots == a->nnz;
    for (int32_t k = 0; row->identity && k < a->nnz; ++k) row->identity = lay->slot_of_nnz[k] == k;

    HS_CALL_GOTO(HS_ALLOC(vf, lay->n_slots, "format values"), done);
    HS_CALL_GOTO(HS_ALLOC(yref, n, "reference y"), done);
    hs_spmv_layout_scatter(lay, a->nnz, a->val, vf);
    /* seed 002's CPU reorder: a plain loop over the nonzeros through the mapping (one thread) */
    if (!row->identity) {
        const int rr = 5;
        HS_CALL_GOTO(HS_ALLOC(t, rr, "reorder timings"), done);
        for (int r = 0; r < rr; ++r) {
            double t0 = hs_wtime();
            for (int32_t k = 0; k < a->nnz; ++k) vf[lay->slot_of_nnz[k]] = a->val[k];
            t[r] = hs_wtime() - t0;
        }
        row->reorder_cpu_s = hs_median(t, rr);
    }
    o->apply_ref(lay, vf, x, yref);

    st = hs_gpu_bench_spmv(lay, a, vf, x, yref, ycsr, ab, reps, l2, &row->g);
    if (st != HS_OK) {
        row->status = 2;
        snprintf(row->note, sizeof row->note, "%s", hs_error_message());
        hs_error_clear();
        st = HS_OK;
    } else if (!row->g.ok) {
        row->status = 1;
        snprintf(row->note, sizeof row->note, "%s", row->g.failure);
    }
done:
    if (st != HS_OK) { /* host-side failure of this kernel (setup, memory): mark it, go on */
        row->status = 2;
        snprintf(row->note, sizeof row->note, "%s", hs_error_message());
        hs_error_clear();
        st = HS_OK;
    }
    hs_spmv_layout_destroy(&lay);
    hs_csr_destroy(&perm_a);
    free(perm);
    free(xp);
    free(yp);
    free(abp);
    free(vf);
    free(yref);
    free(t);
    return st;
}

/* seed 002 eq. (14): t_reorder + alpha t_kernel <= alpha t_base; the least such integer alpha. */
static double alpha_of(double t_reorder, double t_kernel, double t_base)
{
    if (!(t_kernel < t_base)) return INFINITY;
    return ceil(t_reorder / (t_base - t_kernel));
}

/* ---- output ---------------------------------------------------------------------------------- */

typedef struct bench_ctx {
    const char *source;   /* the config file or the .mtx */
    const hs_csr *a;
    int32_t len_min, len_max;
    hs_gpu_bench_device dev;
    int reps;
    kernel_row *rows;
    int n_rows_out;
} bench_ctx;

static double min_traffic_bytes(const hs_csr *a)
{
    /* values + column indices once, row pointers once, x and y once: the least a CSR SpMV moves */
    return 12.0 * a->nnz + 4.0 * ((double)a->n_rows + 1) + 8.0 * a->n_cols + 8.0 * a->n_rows;
}

static void fmt_alpha(char *buf, size_t len, const kernel_row *r)
{
    if (r->status != 0) snprintf(buf, len, "-");
    else if (!strcmp(r->ops->name, BASELINE)) snprintf(buf, len, "(base)");
    else if (isnan(r->alpha_gpu)) snprintf(buf, len, "n/a");
    else if (isinf(r->alpha_gpu)) snprintf(buf, len, "inf");
    else snprintf(buf, len, "%.0f", r->alpha_gpu);
}

static void fmt_alpha_cpu(char *buf, size_t len, const kernel_row *r)
{
    kernel_row c = *r;
    c.alpha_gpu = r->alpha_cpu;
    fmt_alpha(buf, len, &c);
}

static void print_table(const bench_ctx *c)
{
    const hs_csr *a = c->a;
    const double copy = c->dev.copy_bw, flops = 2.0 * a->nnz, eff_bytes = 20.0 * a->nnz;
    printf("heartsim bench spmv: %s\n", c->source);
    printf("matrix: %d rows x %d columns, %d nonzeros; row length min %d / mean %.1f / max %d\n",
           (int)a->n_rows, (int)a->n_cols, (int)a->nnz, (int)c->len_min,
           a->n_rows ? (double)a->nnz / a->n_rows : 0.0, (int)c->len_max);
    printf("device: %s; copy bandwidth %.1f GB/s (device-to-device cudaMemcpy of 256 MiB, read + write, median)\n",
           c->dev.name, copy / 1e9);
    printf("timing: median of %d applies per kernel after 10 warm-up, CUDA events, queued back to back; x rotated "
           "among several copies when values + indices + x + y exceed L2 (x_copies in the CSV)\n", c->reps);
    printf("eff. GB/s: Wong, Kuhl & Darve 2015 (doi:10.1002/nme.4865) sec. 6 effective bandwidth, the bytes of the matrix data over time, counted as its "
           "Table 2 does: 20 B per nonzero (8-byte value, 4-byte column index, 8-byte x entry), padding not counted; "
           "/copy: over the copy bandwidth\n");
    printf("traffic/copy: the least bytes any CSR SpMV moves (12 B per nonzero, 4 B per row pointer, x and y once: "
           "%.1f MB) per second, over the copy bandwidth (1.00 = at the copy floor of %.1f us)\n",
           min_traffic_bytes(a) / 1e6, 1e6 * min_traffic_bytes(a) / copy);
    printf("alpha: Wong, Kuhl & Darve 2015 eq. (14) / Table 4: least integer alpha with t_reorder + alpha t_kernel <= alpha "
           "t_" BASELINE ", t_reorder = scatter of the CSR values into the kernel's slots, on the GPU and on the CPU "
           "(one thread); inf: not faster than " BASELINE "; 0: the layout keeps the CSR order (nothing to reorder)\n\n");
    printf("| %-16s | %-6s | %8s | %9s | %8s | %8s | %7s | %8s | %5s | %12s | %5s | %14s | %14s | %9s | %9s |\n",
           "kernel", "check", "setup ms", "create ms", "SpMV us", "min us", "GFLOP/s", "eff GB/s", "/copy",
           "traffic/copy", "fill", "reorder GPU us", "reorder CPU us", "alpha GPU", "alpha CPU");
    printf("|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n", "------------------", "--------", "----------",
           "-----------", "----------", "----------", "---------", "----------", "-------", "--------------",
           "-------", "----------------", "----------------", "-----------", "-----------");
    for (int i = 0; i < c->n_rows_out; ++i) {
        const kernel_row *r = &c->rows[i];
        char name[40];
        snprintf(name, sizeof name, "%s%s", r->ops->name, r->renumbered ? " (r)" : "");
        if (r->status != 0) {
            printf("| %-16s | %-6s | %8s | %9s | %8s | %8s | %7s | %8s | %5s | %12s | %5s | %14s | %14s | %9s | %9s |\n",
                   name, "FAILED", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-");
            continue;
        }
        const double t = r->g.spmv_s;
        char ag[24], ac[24], rg[24], rc[24];
        fmt_alpha(ag, sizeof ag, r);
        fmt_alpha_cpu(ac, sizeof ac, r);
        if (r->identity) {
            snprintf(rg, sizeof rg, "none");
            snprintf(rc, sizeof rc, "none");
        } else {
            snprintf(rg, sizeof rg, "%.1f", 1e6 * r->g.reorder_s);
            snprintf(rc, sizeof rc, "%.1f", 1e6 * r->reorder_cpu_s);
        }
        printf("| %-16s | %-6s | %8.2f | %9.2f | %8.1f | %8.1f | %7.1f | %8.1f | %5.2f | %12.2f | %5.2f | %14s | "
               "%14s | %9s | %9s |\n",
               name, r->g.same_bits ? "ok" : "ok*", 1e3 * r->setup_s, 1e3 * r->g.create_s, 1e6 * t,
               1e6 * r->g.spmv_min_s, flops / t / 1e9, eff_bytes / t / 1e9, eff_bytes / t / copy,
               min_traffic_bytes(a) / t / copy, a->nnz ? (double)r->n_slots / a->nnz : 1.0, rg, rc, ag, ac);
    }
    int notes = 0;
    for (int i = 0; i < c->n_rows_out; ++i) {
        const kernel_row *r = &c->rows[i];
        if (r->status != 0 || !r->g.same_bits || r->renumbered) {
            if (!notes++) printf("\n");
            if (r->status == 1) printf("- %s FAILED its check against the CPU reference: %s\n", r->ops->name, r->note);
            else if (r->status == 2) printf("- %s FAILED (not measured): %s\n", r->ops->name, r->note);
            else {
                if (r->renumbered)
                    printf("- %s (r): measured on the matrix renumbered by its node_order (the run renumbers the "
                           "mesh the same way); setup includes the renumbering\n", r->ops->name);
                if (!r->g.same_bits)
                    printf("- %s (ok*): correct, but two applies on the same input gave different bits\n",
                           r->ops->name);
            }
        }
    }
}

static void csv_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_alpha(FILE *f, const kernel_row *r, double a)
{
    if (r->status != 0 || !strcmp(r->ops->name, BASELINE) || isnan(a)) return;
    if (isinf(a)) fputs("inf", f);
    else fprintf(f, "%.0f", a);
}

static const char *status_name(const kernel_row *r)
{
    return r->status == 0 ? "ok" : "FAILED";
}

static hs_status write_csv(const bench_ctx *c, FILE *f, const char *path)
{
    const hs_csr *a = c->a;
    fprintf(f, "kernel,status,same_bits,renumbered,n_rows,n_cols,nnz,n_slots,fill,setup_ms,create_ms,spmv_us,"
               "spmv_min_us,gflops,eff_gbs,eff_over_copy,traffic_over_copy,reorder_gpu_us,reorder_cpu_us,alpha_gpu,"
               "alpha_cpu,x_copies,working_set_mb,copy_bw_gbs,l2_mb,reps,device,matrix,note\n");
    for (int i = 0; i < c->n_rows_out; ++i) {
        const kernel_row *r = &c->rows[i];
        const double t = r->g.spmv_s;
        fprintf(f, "%s,%s,%d,%d,%d,%d,%d,%lld,", r->ops->name, status_name(r), r->status == 0 ? r->g.same_bits : 0,
                r->renumbered, (int)a->n_rows, (int)a->n_cols, (int)a->nnz, (long long)r->n_slots);
        if (r->status == 0) {
            fprintf(f, "%.4f,%.4f,%.4f,%.3f,%.3f,%.3f,%.2f,%.4f,%.4f,", a->nnz ? (double)r->n_slots / a->nnz : 1.0,
                    1e3 * r->setup_s, 1e3 * r->g.create_s, 1e6 * t, 1e6 * r->g.spmv_min_s, 2.0 * a->nnz / t / 1e9,
                    20.0 * a->nnz / t / 1e9, 20.0 * a->nnz / t / c->dev.copy_bw,
                    min_traffic_bytes(a) / t / c->dev.copy_bw);
            if (r->identity) fputs("0,0,", f);
            else fprintf(f, "%.3f,%.3f,", 1e6 * r->g.reorder_s, 1e6 * r->reorder_cpu_s);
        } else {
            fputs(",,,,,,,,,,,", f);
        }
        csv_alpha(f, r, r->alpha_gpu);
        fputc(',', f);
        csv_alpha(f, r, r->alpha_cpu);
        fprintf(f, ",%d,%.3f,%.2f,%.2f,%d,", r->g.x_copies, r->g.working_set / 1e6, c->dev.copy_bw / 1e9,
                c->dev.l2_bytes / 1048576.0, c->reps);
        csv_str(f, c->dev.name);
        fputc(',', f);
        csv_str(f, c->source);
        fputc(',', f);
        csv_str(f, r->note);
        fputc('\n', f);
    }
    HS_CHECK(fflush(f) == 0 && !ferror(f), HS_ERR_IO, "cannot write --csv file '%s'", path);
    return HS_OK;
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, const char *key, double v, int last)
{
    fprintf(f, "\"%s\": ", key);
    if (isnan(v)) fputs("null", f);
    else if (isinf(v)) fputs("\"inf\"", f);
    else fprintf(f, "%.6g", v);
    fputs(last ? "" : ", ", f);
}

static hs_status write_json(const bench_ctx *c, FILE *f, const char *path)
{
    const hs_csr *a = c->a;
    fputs("{\n  \"matrix\": ", f);
    json_str(f, c->source);
    fprintf(f, ",\n  \"n_rows\": %d, \"n_cols\": %d, \"nnz\": %d, \"row_len_min\": %d, \"row_len_max\": %d,\n",
            (int)a->n_rows, (int)a->n_cols, (int)a->nnz, (int)c->len_min, (int)c->len_max);
    fputs("  \"device\": ", f);
    json_str(f, c->dev.name);
    fprintf(f, ",\n  \"copy_bw_gbs\": %.3f, \"l2_bytes\": %lld, \"reps\": %d, \"baseline\": \"" BASELINE "\",\n",
            c->dev.copy_bw / 1e9, c->dev.l2_bytes, c->reps);
    fputs("  \"definitions\": {\"eff_gbs\": \"Wong, Kuhl & Darve 2015, doi:10.1002/nme.4865, sec. 6: 20 bytes per nonzero (value 8, column index 4, x 8) "
          "over the median time\", \"traffic_over_copy\": \"(12 nnz + 4 (n_rows+1) + 8 n_cols + 8 n_rows) bytes over "
          "the median time, over copy_bw\", \"alpha\": \"Wong, Kuhl & Darve 2015 eq. 14: least integer alpha with t_reorder + alpha "
          "t_kernel <= alpha t_baseline; inf: never; null: not available\"},\n  \"kernels\": [\n", f);
    for (int i = 0; i < c->n_rows_out; ++i) {
        const kernel_row *r = &c->rows[i];
        const int ok = r->status == 0;
        const double t = ok ? r->g.spmv_s : NAN;
        fputs("    {\"kernel\": ", f);
        json_str(f, r->ops->name);
        fprintf(f, ", \"status\": \"%s\", \"same_bits\": %s, \"renumbered\": %s, ", status_name(r),
                ok && r->g.same_bits ? "true" : "false", r->renumbered ? "true" : "false");
        fprintf(f, "\"n_slots\": %lld, ", (long long)r->n_slots);
        json_num(f, "fill", ok && a->nnz ? (double)r->n_slots / a->nnz : NAN, 0);
        json_num(f, "setup_ms", ok ? 1e3 * r->setup_s : NAN, 0);
        json_num(f, "create_ms", ok ? 1e3 * r->g.create_s : NAN, 0);
        json_num(f, "spmv_us", 1e6 * t, 0);
        json_num(f, "spmv_min_us", ok ? 1e6 * r->g.spmv_min_s : NAN, 0);
        json_num(f, "gflops", 2.0 * a->nnz / t / 1e9, 0);
        json_num(f, "eff_gbs", 20.0 * a->nnz / t / 1e9, 0);
        json_num(f, "eff_over_copy", 20.0 * a->nnz / t / c->dev.copy_bw, 0);
        json_num(f, "traffic_over_copy", min_traffic_bytes(a) / t / c->dev.copy_bw, 0);
        json_num(f, "reorder_gpu_us", ok ? (r->identity ? 0.0 : 1e6 * r->g.reorder_s) : NAN, 0);
        json_num(f, "reorder_cpu_us", ok ? (r->identity ? 0.0 : 1e6 * r->reorder_cpu_s) : NAN, 0);
        const int base = !strcmp(r->ops->name, BASELINE);
        json_num(f, "alpha_gpu", ok && !base ? r->alpha_gpu : NAN, 0);
        json_num(f, "alpha_cpu", ok && !base ? r->alpha_cpu : NAN, 0);
        fprintf(f, "\"x_copies\": %d, \"note\": ", r->g.x_copies);
        json_str(f, r->note);
        fprintf(f, "}%s\n", i + 1 < c->n_rows_out ? "," : "");
    }
    fputs("  ]\n}\n", f);
    HS_CHECK(fflush(f) == 0 && !ferror(f), HS_ERR_IO, "cannot write --json file '%s'", path);
    return HS_OK;
}

/* ---- the command ----------------------------------------------------------------------------- */

/* Which kernels: every registered one, or those named (plus the baseline, which alpha needs). */
static hs_status select_kernels(const char *list, char *want /* [hs_spmv_count()] */)
{
    const int nf = hs_spmv_count();
    if (!list) {
        for (int f = 0; f < nf; ++f) want[f] = 1;
        return HS_OK;
    }
    memset(want, 0, (size_t)nf);
    const char *p = list;
    while (*p) {
        while (*p == ',' || *p == ' ') ++p;
        if (!*p) break;
        size_t len = strcspn(p, ", ");
        char name[64];
        HS_CHECK(len < sizeof name, HS_ERR_USAGE, "--kernels: name too long: %.*s", (int)len, p);
        memcpy(name, p, len);
        name[len] = '\0';
        int found = 0;
        for (int f = 0; f < nf; ++f)
            if (!strcmp(hs_spmv_get(f)->name, name)) want[f] = found = 1;
        HS_CHECK(found, HS_ERR_USAGE, "--kernels: unknown kernel \"%s\"; available: %s", name, hs_spmv_names());
        p += len;
    }
    for (int f = 0; f < nf; ++f)
        if (!strcmp(hs_spmv_get(f)->name, BASELINE)) want[f] = 1;
    return HS_OK;
}

static hs_status open_out(const char *path, const char *opt, FILE **f)
{
    *f = NULL;
    if (!path) return HS_OK;
    *f = fopen(path, "w");
    HS_CHECK(*f != NULL, HS_ERR_IO, "%s: cannot write '%s': %s", opt, path, strerror(errno));
    return HS_OK;
}

hs_status hs_bench_spmv(const hs_bench_spmv_opts *o)
{
    const int nf = hs_spmv_count();
    char want[256];
    HS_CHECK(nf <= (int)sizeof want, HS_ERR_INTERNAL, "too many SpMV formats (%d)", nf);
    HS_CALL(select_kernels(o->kernels, want)); /* a bad argument first, then the files, then the device */

    hs_status st = HS_OK;
    FILE *fcsv = NULL, *fjson = NULL;
    hs_csr *a = NULL;
    double *x = NULL, *ycsr = NULL, *ab = NULL;
    kernel_row *rows = NULL;
    bench_ctx c;
    memset(&c, 0, sizeof c);
    c.reps = o->reps;
    c.source = o->matrix ? o->matrix : o->cfg->path;
    /* the output files are opened first: an unwritable path fails before any work */
    HS_CALL_GOTO(open_out(o->csv, "--csv", &fcsv), done);
    HS_CALL_GOTO(open_out(o->json, "--json", &fjson), done);

    const double w0 = hs_wtime();
    HS_CALL_GOTO(hs_bench_spmv_matrix(o, &a), done);
    {
        /* no GPU: the kernels' CPU references, said plainly (the files were read first, so a missing
         * one is named as such, not as a device problem) */
        char dev_name[256], why[512];
        if (hs_gpu_probe(dev_name, sizeof dev_name, why, sizeof why) <= 0) {
            if (fcsv) fclose(fcsv), fcsv = NULL, remove(o->csv); /* nothing of the GPU table to write */
            if (fjson) fclose(fjson), fjson = NULL, remove(o->json);
            st = hs_bench_spmv_cpu(o, a, want, why);
            goto done;
        }
    }
    c.a = a;
    c.len_min = a->n_rows ? INT32_MAX : 0;
    for (int32_t i = 0; i < a->n_rows; ++i) {
        int32_t m = a->row_ptr[i + 1] - a->row_ptr[i];
        if (m < c.len_min) c.len_min = m;
        if (m > c.len_max) c.len_max = m;
    }
    hs_log(1, "bench spmv: %d rows, %d nonzeros from %s (%.2f s)\n", (int)a->n_rows, (int)a->nnz, c.source,
           hs_wtime() - w0);

    /* x: fixed pseudo-random values in [-1, 1), so runs are comparable; references on the host */
    HS_CALL_GOTO(HS_ALLOC(x, a->n_cols, "x"), done);
    HS_CALL_GOTO(HS_ALLOC(ycsr, a->n_rows, "CSR y"), done);
    HS_CALL_GOTO(HS_ALLOC(ab, a->n_rows, "|A||x|"), done);
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int32_t i = 0; i < a->n_cols; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (double)(s >> 11) * 0x1.0p-52 - 1.0;
    }
    hs_csr_spmv(a, x, ycsr);
    hs_csr_spmv_abs(a, x, ab);

    HS_CALL_GOTO(hs_gpu_bench_device_info(o->reps, &c.dev), done);
    HS_CALL_GOTO(HS_ALLOC(rows, nf, "bench rows"), done);
    c.rows = rows;
    const hs_spmv_params prm = o->cfg ? o->cfg->spmv_params : hs_spmv_params_default();
    for (int f = 0; f < nf; ++f) {
        if (!want[f]) continue;
        const hs_spmv_ops *op = hs_spmv_get(f);
        hs_log(1, "bench spmv: %s\n", op->name);
        kernel_row *r = &rows[c.n_rows_out++];
        HS_CALL_GOTO(run_kernel(op, a, &prm, x, ycsr, ab, o->reps, c.dev.l2_bytes, r), done);
    }
    /* alpha against the baseline */
    const kernel_row *base = NULL;
    for (int i = 0; i < c.n_rows_out; ++i)
        if (!strcmp(rows[i].ops->name, BASELINE) && rows[i].status == 0) base = &rows[i];
    for (int i = 0; i < c.n_rows_out && base; ++i) {
        kernel_row *r = &rows[i];
        if (r->status != 0 || r == base) continue;
        r->alpha_gpu = alpha_of(r->identity ? 0.0 : r->g.reorder_s, r->g.spmv_s, base->g.spmv_s);
        r->alpha_cpu = alpha_of(r->identity ? 0.0 : r->reorder_cpu_s, r->g.spmv_s, base->g.spmv_s);
    }
    print_table(&c);
    fflush(stdout);
    if (fcsv) HS_CALL_GOTO(write_csv(&c, fcsv, o->csv), done);
    if (fjson) HS_CALL_GOTO(write_json(&c, fjson, o->json), done);

    /* a kernel that computes a wrong result is a bug: the command fails after printing everything */
    int failed = 0;
    char names[512] = "";
    size_t len = 0;
    for (int i = 0; i < c.n_rows_out; ++i)
        if (rows[i].status != 0) {
            ++failed;
            if (len < sizeof names)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", rows[i].ops->name);
        }
    HS_CHECK_GOTO(failed == 0, done, HS_ERR_INTERNAL,
                  "bench spmv: %d kernel(s) FAILED (%s): see the notes under the table", failed, names);
done:
    if (fcsv && fclose(fcsv) != 0 && st == HS_OK) st = HS_FAIL(HS_ERR_IO, "--csv: cannot write '%s'", o->csv);
    if (fjson && fclose(fjson) != 0 && st == HS_OK) st = HS_FAIL(HS_ERR_IO, "--json: cannot write '%s'", o->json);
    free(rows);
    free(x);
    free(ycsr);
    free(ab);
    hs_csr_destroy(&a);
    return st;
}

#else /* no CUDA in this build */

/* Select the kernels, read the matrix, then the CPU references (bench_spmv_cpu.c). */
static hs_status select_kernels(const char *list, char *want /* [hs_spmv_count()] */)
{
    const int nf = hs_spmv_count();
    memset(want, list ? 0 : 1, (size_t)nf);
    for (const char *p = list; p && *p;) {
        while (*p == ',' || *p == ' ') ++p;
        if (!*p) break;
        size_t len = strcspn(p, ", ");
        int found = 0;
        for (int f = 0; f < nf; ++f)
            if (strlen(hs_spmv_get(f)->name) == len && !strncmp(hs_spmv_get(f)->name, p, len)) want[f] = found = 1;
        HS_CHECK(found, HS_ERR_USAGE, "--kernels: unknown kernel \"%.*s\"; available: %s", (int)len, p,
                 hs_spmv_names());
        p += len;
    }
    return HS_OK;
}

hs_status hs_bench_spmv(const hs_bench_spmv_opts *o)
{
    char want[256];
    HS_CHECK(hs_spmv_count() <= (int)sizeof want, HS_ERR_INTERNAL, "too many SpMV formats (%d)", hs_spmv_count());
    HS_CALL(select_kernels(o->kernels, want));
    hs_csr *a = NULL;
    HS_CALL(hs_bench_spmv_matrix(o, &a));
    hs_status st = hs_bench_spmv_cpu(o, a, want, "this heartsim was built without CUDA (HS_HAS_CUDA = 0)");
    hs_csr_destroy(&a);
    return st;
}

#endif
