/*
 * Helper for the ParaView and XML checks (pvpython_check.sh, xdmf_xml_check.sh): writes a series
 * of 4 frames of a 3x2x2-cube box in FORMAT (vtk: DIR/PREFIX.vtk.series, xdmf: DIR/PREFIX.xdmf)
 * and DIR/expected.json, which states what a reader must find: point and cell counts, the times,
 * the index file name, and per frame the range of every array. The ranges of phi, V, activation
 * and r change from frame to frame, so a reader that showed frame 0 at every time would be caught.
 * For xdmf and xdmf_h5 the field ranges are those of the float32 values the format stores. Each
 * frame also lists every value of phi, V, activation and r ("values", as the format stores them),
 * so a reader's arrays can be compared value by value.
 *
 * usage: output_write_series DIR [FORMAT [PREFIX]]   (defaults: vtk, heart)
 * Exit 77 when FORMAT is one this build does not have (xdmf_h5 without HDF5).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_series.h"
#include "output_test_frame.h"
#include "output_test_mesh.h"

enum { N_FRAMES = 4 };

static void range(const double *v, size_t n, size_t stride, double out[2])
{
    out[0] = out[1] = v[0];
    for (size_t i = stride; i < n * stride; i += stride) {
        if (v[i] < out[0]) out[0] = v[i];
        if (v[i] > out[1]) out[1] = v[i];
    }
}

/* Ranges of float32 fields are the float32 of the double ranges (rounding is monotonic). */
static void put_range(FILE *fp, const char *name, const double r[2], int f32, const char *sep)
{
    double lo = f32 ? (double)(float)r[0] : r[0], hi = f32 ? (double)(float)r[1] : r[1];
    fprintf(fp, "\"%s\" : [%.17g, %.17g]%s", name, lo, hi, sep);
}

/* "name" : [every value as stored: scale * x + shift, float32 when f32] */
static void put_values(FILE *fp, const char *name, const double *v, size_t n, double scale, double shift, int f32,
                       const char *sep)
{
    fprintf(fp, "\"%s\" : [", name);
    for (size_t i = 0; i < n; ++i) {
        double x = scale == 1.0 && shift == 0.0 ? v[i] : scale * v[i] + shift;
        fprintf(fp, "%.17g%s", f32 ? (double)(float)x : x, i + 1 < n ? ", " : "");
    }
    fprintf(fp, "]%s", sep);
}

/* JSON string body: the prefix may hold '"' or '\\'. */
static void put_json_string(FILE *fp, const char *str)
{
    for (const unsigned char *c = (const unsigned char *)str; *c; ++c) {
        if (*c == '"' || *c == '\\')
            fprintf(fp, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(fp, "\\u%04x", *c);
        else
            fputc(*c, fp);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s DIR [FORMAT [PREFIX]]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    const char *format = argc > 2 ? argv[2] : "vtk";
    const char *prefix = argc > 3 ? argv[3] : "heart";
    const int f32 = !strncmp(format, "xdmf", 4); /* xdmf, xdmf_h5: float32 fields */
    /* 0.1 + 0.2 prints as 0.30000000000000004: the index must carry all 17 digits. */
    const double times[N_FRAMES] = {0.0, 0.1, 0.1 + 0.2, 12.5};
    hs_mesh *m = NULL;
    hs_series *s = NULL;
    double *phi = NULL, *act = NULL, *r = NULL, *v = NULL;
    FILE *fp = NULL;
    int rc = 1;
    char path[4096];

    if (hs_series_format_check(format) != HS_OK && strstr(hs_error_message(), "built without")) {
        printf("write_series: %s\n", hs_error_message());
        return 77;
    }
    if (output_test_box(3, 2, 2, &m) != HS_OK || hs_series_create(format, dir, prefix, &s) != HS_OK)
        goto done;
    const size_t nn = (size_t)m->n_nodes, ne = (size_t)m->n_elems;
    phi = malloc(nn * sizeof *phi);
    act = malloc(nn * sizeof *act);
    v = malloc(nn * sizeof *v);
    r = malloc(ne * sizeof *r);
    snprintf(path, sizeof path, "%s/expected.json", dir);
    fp = fopen(path, "w");
    if (!phi || !act || !v || !r || !fp) {
        fprintf(stderr, "write_series: cannot allocate or open %s\n", path);
        goto done;
    }

    const char *idx = strrchr(hs_series_index_path(s), '/');
    fprintf(fp, "{\n  \"format\" : \"%s\",\n  \"index\" : \"", format);
    put_json_string(fp, idx ? idx + 1 : hs_series_index_path(s));
    fprintf(fp, "\",\n  \"n_points\" : %d,\n  \"n_cells\" : %d,\n  \"times\" : [", (int)nn, (int)ne);
    for (int k = 0; k < N_FRAMES; ++k) fprintf(fp, "%.17g%s", times[k], k + 1 < N_FRAMES ? ", " : "");
    fprintf(fp, "],\n  \"frames\" : [\n");
    for (int k = 0; k < N_FRAMES; ++k) {
        /* A plane wave along x at 1 mm/ms: activated where x <= t, -1 elsewhere. */
        for (size_t i = 0; i < nn; ++i) {
            const double x = m->xyz[3 * i];
            phi[i] = 0.01 * (double)i + 0.1 * k;
            v[i] = 100.0 * phi[i] - 80.0;
            act[i] = x <= times[k] ? x + 0.25 * k : -1.0;
        }
        for (size_t e = 0; e < ne; ++e) r[e] = 0.001 * (double)e + 0.5 * k;
        hs_frame fr = test_frame_of(times[k], TF_ALL, phi, act, r);
        if (hs_series_write(s, m, &fr) != HS_OK) goto done;

        double rg[2], region[2] = {m->region[0], m->region[0]};
        for (size_t e = 0; e < ne; ++e) {
            if (m->region[e] < region[0]) region[0] = m->region[e];
            if (m->region[e] > region[1]) region[1] = m->region[e];
        }
        fprintf(fp, "    { ");
        range(phi, nn, 1, rg);
        put_range(fp, "phi", rg, f32, ", ");
        range(v, nn, 1, rg);
        put_range(fp, "V", rg, f32, ", ");
        range(act, nn, 1, rg);
        put_range(fp, "activation", rg, f32, ", ");
        range(r, ne, 1, rg);
        put_range(fp, "r", rg, f32, ", ");
        put_range(fp, "region", region, 0, ", ");
        fprintf(fp, "\"fiber\" : [");
        for (int c = 0; c < 3; ++c) {
            range(m->fiber + c, ne, 3, rg);
            fprintf(fp, "[%.17g, %.17g]%s", rg[0], rg[1], c < 2 ? ", " : "");
        }
        fprintf(fp, "],\n      \"values\" : { ");
        put_values(fp, "phi", phi, nn, 1.0, 0.0, f32, ", ");
        put_values(fp, "V", phi, nn, 100.0, -80.0, f32, ", ");
        put_values(fp, "activation", act, nn, 1.0, 0.0, f32, ", ");
        put_values(fp, "r", r, ne, 1.0, 0.0, f32, "");
        fprintf(fp, " } }%s\n", k + 1 < N_FRAMES ? "," : "");
    }
    fprintf(fp, "  ]\n}\n");
    rc = 0;
done:
    if (rc) fprintf(stderr, "write_series: %s [%s]\n", hs_error_message(), hs_error_location());
    if (fp && fclose(fp) != 0) rc = 1;
    free(phi);
    free(act);
    free(v);
    free(r);
    hs_series_destroy(&s);
    hs_mesh_destroy(&m);
    return rc;
}
