/*
 * Benchmark, not a test: the time to write frames of an N x N x N-cube box (6 tets per cube;
 * N = 100: 1.03M nodes, 6M tets) in each output format, with the default output.fields
 * (phi, V, activation, r, fiber). Each frame goes through hs_series_write exactly as the frame
 * writer thread calls it, so it includes float conversion, fsync and the index rewrite.
 * Prints one row per format: the first frame (xdmf also writes the mesh files then), the median of
 * the following ones, and the bytes a frame adds. The files are removed afterwards.
 *
 * usage: output_bench_series DIR [N [FRAMES]]    (defaults: N = 100, FRAMES = 5)
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hs_series.h"
#include "hs_util.h"
#include "output_test_frame.h"
#include "output_test_fs.h"
#include "output_test_mesh.h"

/* Bytes under @p dir (du -sb), -1 when unknown. */
static long long dir_bytes(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "du -sb '%s' 2>/dev/null", dir);
    FILE *p = popen(cmd, "r");
    long long n = -1;
    if (p) {
        if (fscanf(p, "%lld", &n) != 1) n = -1;
        pclose(p);
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s DIR [N [FRAMES]]\n", argv[0]);
        return 2;
    }
    const char *root = argv[1];
    const int n = argc > 2 ? atoi(argv[2]) : 100;
    const int frames = argc > 3 ? atoi(argv[3]) : 5;
    if (n < 1 || frames < 2) {
        fprintf(stderr, "N >= 1 and FRAMES >= 2 please\n");
        return 2;
    }
    hs_mesh *m = NULL;
    if (output_test_box(n, n, n, &m) != HS_OK) {
        fprintf(stderr, "%s\n", hs_error_message());
        return 1;
    }
    const size_t nn = (size_t)m->n_nodes, ne = (size_t)m->n_elems;
    double *phi = malloc(nn * sizeof *phi), *act = malloc(nn * sizeof *act), *r = malloc(ne * sizeof *r);
    double *dt = malloc((size_t)frames * sizeof *dt);
    if (!phi || !act || !r || !dt) return 1;
    printf("mesh: %zu nodes, %zu tets; fields phi, V, activation, r, fiber; %d frames per format\n",
           nn, ne, frames);
    printf("%-6s %12s %14s %14s %12s\n", "format", "first (s)", "later med (s)", "per frame MB", "mesh MB");
    const char *formats[2] = {"vtk", "xdmf"};
    int rc = 0;
    for (int f = 0; f < 2 && rc == 0; ++f) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/bench_%s", root, formats[f]);
        hs_series *s = NULL;
        long long after_first = 0;
        if (hs_series_create(formats[f], dir, "b", &s) != HS_OK) {
            fprintf(stderr, "%s\n", hs_error_message());
            rc = 1;
            break;
        }
        for (int k = 0; k < frames && rc == 0; ++k) {
            for (size_t i = 0; i < nn; ++i) {
                phi[i] = 0.001 * (double)((i + (size_t)k) % 1000);
                act[i] = i % 3 ? 0.37 * (double)k + 1e-6 * (double)i : -1.0;
            }
            for (size_t e = 0; e < ne; ++e) r[e] = 1e-7 * (double)e + 0.1 * k;
            hs_frame fr = test_frame_of(1.0 * k, TF_PHI | TF_V | TF_ACT | TF_R | TF_FIBER, phi, act, r);
            double t0 = hs_wtime();
            if (hs_series_write(s, m, &fr) != HS_OK) {
                fprintf(stderr, "%s\n", hs_error_message());
                rc = 1;
            }
            dt[k] = hs_wtime() - t0;
            if (k == 0) after_first = dir_bytes(dir);
        }
        long long total = dir_bytes(dir);
        hs_series_destroy(&s);
        if (rc == 0) {
            double first = dt[0];
            double med = hs_median(dt + 1, frames - 1);
            double per_frame = (double)(total - after_first) / (frames - 1) / 1e6;
            double mesh = f == 1 ? (double)after_first / 1e6 - per_frame : 0.0;
            printf("%-6s %12.3f %14.3f %14.1f %12.1f\n", formats[f], first, med, per_frame, mesh);
        }
        rm_rf(dir);
    }
    free(phi);
    free(act);
    free(r);
    free(dt);
    hs_mesh_destroy(&m);
    return rc;
}
