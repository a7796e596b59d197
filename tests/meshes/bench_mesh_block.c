/* Timing and memory of the block reader (hs_mesh_block.h) against the whole-file reader, on an
 * openCARP box written for the purpose (not a test: prints a table; docs/meshes.md has numbers).
 *
 *   bench_mesh_block DIR [cells_per_axis = 99]     (99: 1,000,000 nodes, 5,821,794 tets)
 *
 * Writes DIR/bench.pts/.elem/.lon from hs_mesh_create_box (coordinates in um as openCARP files
 * have them, a region per element, a fibre per element), then, each in its own process so that
 * its peak resident memory (VmHWM) is its own: the whole reader (hs_mesh_read_file), and for
 * 1, 2 and 4 parts each part p alone: phase 1 of part p (timed), phase 1 of the other parts for
 * the prefix sum (untimed: another rank's work), phase 2 of part p (timed). The files are removed
 * at the end. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hs_mesh.h"
#include "hs_mesh_block.h"
#include "hs_mesh_io.h"
#include "hs_util.h"

typedef struct result {
    double t1, t2;  /* phase 1, phase 2 (whole: t2 only), seconds */
    double rss;     /* peak resident bytes */
    int64_t items;  /* nodes + elements + fibres read */
    int ok;
} result;

static char g_prefix[1024], g_elem[1100];

static int write_files(int cells)
{
    const double h = 0.1; /* mm */
    const hs_box_params bp = {.lx = cells * h, .ly = cells * h, .lz = cells * h, .h = h};
    hs_mesh *m = NULL;
    if (hs_mesh_create_box(&bp, &m) != HS_OK) return 1;
    char name[1100];
    snprintf(name, sizeof name, "%s.pts", g_prefix);
    FILE *f = fopen(name, "w");
    if (!f) return 1;
    fprintf(f, "%d\n", m->n_nodes);
    for (int32_t i = 0; i < m->n_nodes; ++i)
        fprintf(f, "%.9g %.9g %.9g\n", 1000.0 * m->xyz[3 * i], 1000.0 * m->xyz[3 * i + 1],
                1000.0 * m->xyz[3 * i + 2]);
    fclose(f);
    f = fopen(g_elem, "w");
    if (!f) return 1;
    fprintf(f, "%d\n", m->n_elems);
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const int32_t *t = m->tets + 4 * (size_t)e;
        fprintf(f, "Tt %d %d %d %d %d\n", t[0], t[1], t[2], t[3], 1 + (int)(e % 3));
    }
    fclose(f);
    snprintf(name, sizeof name, "%s.lon", g_prefix);
    f = fopen(name, "w");
    if (!f) return 1;
    fprintf(f, "1\n");
    for (int32_t e = 0; e < m->n_elems; ++e) {
        const double a = 1e-4 * e;
        fprintf(f, "%.6f %.6f 0\n", cos(a), sin(a));
    }
    fclose(f);
    hs_mesh_destroy(&m);
    return 0;
}

static void run_whole(result *res)
{
    hs_mesh *m = NULL;
    const double t0 = hs_wtime();
    if (hs_mesh_read_file(g_elem, NULL, &m) != HS_OK) {
        fprintf(stderr, "whole read: %s\n", hs_error_message());
        return;
    }
    res->t2 = hs_wtime() - t0;
    res->items = (int64_t)m->n_nodes + 2 * (int64_t)m->n_elems;
    hs_mesh_destroy(&m);
    res->rss = hs_peak_rss_bytes();
    res->ok = 1;
}

static void run_part(int part, int n, result *res)
{
    int64_t counts[HS_MESH_BLOCK_COUNTS], c[HS_MESH_BLOCK_COUNTS];
    int64_t first[HS_MESH_BLOCK_COUNTS] = {0};
    hs_mesh_block_reader *r = NULL;
    double t0 = hs_wtime();
    if (hs_mesh_block_open(g_elem, NULL, part, n, &r, counts) != HS_OK) goto fail;
    res->t1 = hs_wtime() - t0;
    for (int q = 0; q < part; ++q) { /* MPI_Exscan's stand-in */
        hs_mesh_block_reader *o = NULL;
        if (hs_mesh_block_open(g_elem, NULL, q, n, &o, c) != HS_OK) goto fail;
        for (int k = 0; k < HS_MESH_BLOCK_COUNTS; ++k) first[k] += c[k];
        hs_mesh_block_reader_close(&o);
    }
    hs_mesh_block b;
    t0 = hs_wtime();
    if (hs_mesh_block_read(r, first, &b) != HS_OK) goto fail;
    res->t2 = hs_wtime() - t0;
    res->items = (int64_t)b.nb_nodes + b.nb_elems + b.nb_fibers;
    hs_mesh_block_free(&b);
    hs_mesh_block_reader_close(&r);
    res->rss = hs_peak_rss_bytes();
    res->ok = 1;
    return;
fail:
    fprintf(stderr, "part %d of %d: %s\n", part, n, hs_error_message());
    hs_mesh_block_reader_close(&r);
}

/* Run fn in a child process writing *res (shared memory). */
static int in_child(void (*fn)(int, int, result *), int a, int b, result *res)
{
    const pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        fn(a, b, res);
        _exit(res->ok ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void whole_fn(int a, int b, result *res)
{
    (void)a;
    (void)b;
    run_whole(res);
}

static void write_fn(int cells, int b, result *res)
{
    (void)b;
    const double t0 = hs_wtime();
    res->ok = write_files(cells) == 0;
    res->t2 = hs_wtime() - t0;
}

static double file_mb(const char *ext)
{
    char name[1100];
    snprintf(name, sizeof name, "%s%s", g_prefix, ext);
    struct stat sb;
    return stat(name, &sb) == 0 ? (double)sb.st_size / 1e6 : 0.0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [cells_per_axis = 99]\n", argv[0]);
        return 2;
    }
    const int cells = argc > 2 ? atoi(argv[2]) : 99;
    snprintf(g_prefix, sizeof g_prefix, "%s/bench", argv[1]);
    snprintf(g_elem, sizeof g_elem, "%s.elem", g_prefix);
    hs_verbosity = 0;
    result *res = mmap(NULL, 16 * sizeof *res, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                       -1, 0);
    if (res == MAP_FAILED) return 1;
    memset(res, 0, 16 * sizeof *res);
    int fail = in_child(write_fn, cells, 0, &res[0]);
    if (fail) {
        fprintf(stderr, "cannot write the files in %s\n", argv[1]);
        return 1;
    }
    printf("openCARP box, %d^3 cells: %d nodes, %lld tets; .pts %.0f MB, .elem %.0f MB, .lon "
           "%.0f MB (written in %.1f s)\n",
           cells, (cells + 1) * (cells + 1) * (cells + 1), 6LL * cells * cells * cells,
           file_mb(".pts"), file_mb(".elem"), file_mb(".lon"), res[0].t2);
    printf("%-8s %5s %10s %10s %10s %10s %14s\n", "read", "parts", "sum s", "max s",
           "phase1 max", "phase2 max", "peak RSS MiB");
    memset(res, 0, sizeof *res);
    fail |= in_child(whole_fn, 0, 0, &res[0]);
    printf("%-8s %5d %10.2f %10.2f %10s %10s %14.0f\n", "whole", 1, res[0].t2, res[0].t2, "-", "-",
           res[0].rss / 1048576.0);
    const int64_t whole_items = res[0].items;
    static const int nparts[] = {1, 2, 4};
    for (size_t k = 0; k < sizeof nparts / sizeof *nparts; ++k) {
        const int n = nparts[k];
        memset(res, 0, 16 * sizeof *res);
        double sum = 0, mx = 0, m1 = 0, m2 = 0, rss = 0;
        int64_t items = 0;
        for (int p = 0; p < n; ++p) {
            fail |= in_child(run_part, p, n, &res[p]);
            const double t = res[p].t1 + res[p].t2;
            sum += t;
            mx = t > mx ? t : mx;
            m1 = res[p].t1 > m1 ? res[p].t1 : m1;
            m2 = res[p].t2 > m2 ? res[p].t2 : m2;
            rss = res[p].rss > rss ? res[p].rss : rss;
            items += res[p].items;
        }
        printf("%-8s %5d %10.2f %10.2f %10.2f %10.2f %14.0f\n", "blocks", n, sum, mx, m1, m2,
               rss / 1048576.0);
        if (items != whole_items) {
            fprintf(stderr, "%d parts read %lld items, the whole reader %lld\n", n,
                    (long long)items, (long long)whole_items);
            fail = 1;
        }
    }
    static const char *ext[] = {".pts", ".elem", ".lon"};
    for (int k = 0; k < 3; ++k) {
        char name[1100];
        snprintf(name, sizeof name, "%s%s", g_prefix, ext[k]);
        unlink(name);
    }
    return fail;
}
