/*
 * Two "xdmf_h5" files of the same run hold the same frames: usage
 *   h5_frames_close A.h5 B.h5 [NAME:TOL ...]
 * The mesh (/mesh/points, /mesh/cells, and /mesh/region, /mesh/fiber where A has them) equal
 * exactly, value by value at the same global index; the same frame groups /frames/NNNNNN, each with
 * the same time_ms, fields and mesh_arrays attributes, and each field dataset of the same size with
 * |a - b| <= TOL for the field NAME (0 for a field not named: exactly equal). Prints the first
 * difference and exits 1; exits 0 silently when they agree, 77 in a build without HDF5.
 */
#define _POSIX_C_SOURCE 200809L
#include "hs_build_config.h"

#include <stdio.h>

#if !HS_HAS_HDF5
int main(void)
{
    printf("skipped: no HDF5 in this build\n");
    return 77;
}
#else
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int fails = 0;

static void fail(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "h5_frames_close: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n");
    ++fails;
}

/* Dataset @p path as doubles; *n values, dims[0..1] (dims[1] = 1 for a 1-D one). NULL if absent. */
static double *read_all(hid_t f, const char *path, size_t *n, hsize_t dims[2])
{
    *n = 0;
    dims[0] = 0;
    dims[1] = 1;
    if (H5Lexists(f, path, H5P_DEFAULT) <= 0) return NULL;
    hid_t ds = H5Dopen2(f, path, H5P_DEFAULT);
    hid_t sp = H5Dget_space(ds);
    int rank = H5Sget_simple_extent_ndims(sp);
    H5Sget_simple_extent_dims(sp, dims, NULL);
    if (rank == 1) dims[1] = 1;
    *n = (size_t)(dims[0] * dims[1]);
    double *v = malloc((*n + 1) * sizeof *v);
    if (*n && H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
        free(v);
        v = NULL;
    }
    H5Sclose(sp);
    H5Dclose(ds);
    return v;
}

static void compare(hid_t fa, hid_t fb, const char *path, double tol, int optional)
{
    size_t na = 0, nb = 0;
    hsize_t da[2], db[2];
    double *a = read_all(fa, path, &na, da), *b = read_all(fb, path, &nb, db);
    if (!a && !b && optional) return;
    if (!a || !b || da[0] != db[0] || da[1] != db[1]) {
        fail("%s: missing or of another size in %s", path, !a ? "the first" : "the second");
    } else {
        for (size_t i = 0; i < na; ++i)
            if (!(fabs(a[i] - b[i]) <= tol)) {
                char where[256];
                snprintf(where, sizeof where, "row %zu: %.9g vs %.9g (tolerance %g)", i / (size_t)da[1], a[i], b[i], tol);
                fail("%s: %s", path, where);
                break;
            }
    }
    free(a);
    free(b);
}

static int read_attr_string(hid_t g, const char *name, char *buf, size_t size)
{
    hid_t a = H5Aopen(g, name, H5P_DEFAULT);
    if (a < 0) return 0;
    hid_t t = H5Aget_type(a);
    int ok = H5Tget_size(t) < size && H5Aread(a, t, memset(buf, 0, size)) >= 0;
    H5Tclose(t);
    H5Aclose(a);
    return ok;
}

static double read_attr_double(hid_t g, const char *name)
{
    double v = NAN;
    hid_t a = H5Aopen(g, name, H5P_DEFAULT);
    if (a >= 0) {
        H5Aread(a, H5T_NATIVE_DOUBLE, &v);
        H5Aclose(a);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: h5_frames_close A.h5 B.h5 [NAME:TOL ...]\n");
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t fa = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT), fb = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (fa < 0 || fb < 0) {
        fail("cannot open %s or %s", argv[1], argv[2]);
        return 1;
    }
    compare(fa, fb, "/mesh/points", 0.0, 0);
    compare(fa, fb, "/mesh/cells", 0.0, 0);
    compare(fa, fb, "/mesh/region", 0.0, 1);
    compare(fa, fb, "/mesh/fiber", 0.0, 1);
    int frames = 0;
    for (int i = 0;; ++i) {
        char g[32];
        snprintf(g, sizeof g, "/frames/%06d", i);
        const int ea = H5Lexists(fa, "/frames", H5P_DEFAULT) > 0 && H5Lexists(fa, g, H5P_DEFAULT) > 0;
        const int eb = H5Lexists(fb, "/frames", H5P_DEFAULT) > 0 && H5Lexists(fb, g, H5P_DEFAULT) > 0;
        if (ea != eb) fail("%s: in one file only (%s)", g, ea ? "the first" : "the second");
        if (!ea || !eb) break;
        ++frames;
        hid_t ga = H5Gopen2(fa, g, H5P_DEFAULT), gb = H5Gopen2(fb, g, H5P_DEFAULT);
        char la[4096], lb[4096];
        if (!read_attr_string(ga, "fields", la, sizeof la) || !read_attr_string(gb, "fields", lb, sizeof lb) ||
            strcmp(la, lb))
            fail("%s: the fields attributes differ or are missing (%s)", g, la);
        if (!(read_attr_double(ga, "time_ms") == read_attr_double(gb, "time_ms")))
            fail("%s: time_ms differs%s", g, "");
        if (!(read_attr_double(ga, "mesh_arrays") == read_attr_double(gb, "mesh_arrays")))
            fail("%s: mesh_arrays differs%s", g, "");
        H5Gclose(ga);
        H5Gclose(gb);
        for (char *save = NULL, *name = strtok_r(la, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
            double tol = 0.0;
            for (int k = 3; k < argc; ++k) {
                const char *c = strrchr(argv[k], ':');
                if (c && (size_t)(c - argv[k]) == strlen(name) && !strncmp(argv[k], name, strlen(name)))
                    tol = atof(c + 1);
            }
            char path[128];
            snprintf(path, sizeof path, "%s/%s", g, name);
            compare(fa, fb, path, tol, 0);
        }
    }
    if (frames == 0) fail("no frames in %s%s", argv[1], "");
    H5Fclose(fa);
    H5Fclose(fb);
    return fails ? 1 : 0;
}
#endif
