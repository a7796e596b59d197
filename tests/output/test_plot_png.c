#define _POSIX_C_SOURCE 200809L
/* output/plot_png.c: the PNG decoded independently (chunk CRCs, IHDR, zlib uncompress, the five
 * PNG row filters) and the curves found where the data says. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "hs_plot.h"
#include "hs_test.h"
#include "hs_test_png.h"

static const unsigned char *px(const image *im, int x, int y) { return im->rgb + 3 * ((size_t)y * im->w + x); }

static int near_color(const image *im, int x, int y, const unsigned char c[3], int r)
{
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
            int qx = x + dx, qy = y + dy;
            if (qx >= 0 && qy >= 0 && qx < im->w && qy < im->h && !memcmp(px(im, qx, qy), c, 3)) return 1;
        }
    return 0;
}

int main(void)
{
    char path[] = "/tmp/hs_test_plot_XXXXXX";
    int fd = mkstemp(path);
    HS_TEST_CHECK(fd >= 0, "mkstemp");
    close(fd);
    enum { N = 201 };
    double x[N], ya[N], yb[N];
    for (int i = 0; i < N; ++i) {
        x[i] = 10.0 * i / (N - 1);
        ya[i] = sin(x[i]);
        yb[i] = -3.0 + 0.1 * x[i];
    }
    hs_plot_series s[2] = {{x, ya, N, "sin(x)"}, {x, yb, N, "line"}};
    hs_plot_opts o;
    memset(&o, 0, sizeof o);
    o.width = 640, o.height = 400, o.title = "Test plot", o.xlabel = "t (ms)", o.ylabel = "V (mV)";
    hs_plot_frame fr;
    HS_TEST_OK(hs_plot_png(path, &o, s, 2, &fr));
    image im = {0, 0, NULL};
    HS_TEST_CHECK(decode(path, &im) == 0, "read %s", path);
    HS_TEST_CHECK(im.w == 640 && im.h == 400, "size %d x %d", im.w, im.h);
    /* nice ranges cover the data: x [0, 10], y [-3, 1] */
    HS_TEST_CHECK(fr.xmin <= 0.0 && fr.xmax >= 10.0 && fr.ymin <= -3.0 && fr.ymax >= 1.0 &&
                      fr.xmax - fr.xmin < 12.5 && fr.ymax - fr.ymin < 6.0,
                  "range [%g, %g] x [%g, %g]", fr.xmin, fr.xmax, fr.ymin, fr.ymax);
    HS_TEST_CHECK(fr.x0 > 0 && fr.x1 < im.w && fr.y0 > 0 && fr.y1 < im.h, "frame inside the image");
    unsigned char ca[3], cb[3];
    hs_plot_series_color(0, ca);
    hs_plot_series_color(1, cb);
    int xmid = (fr.x0 + fr.x1) / 2, ymid = (fr.y0 + fr.y1) / 2;
    /* every data point is drawn exactly at its pixel (outside the top-right quarter: the legend) */
    int checked = 0;
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < N; ++i) {
            const double *y = k ? yb : ya;
            int qx = (int)lround(fr.x0 + (x[i] - fr.xmin) / (fr.xmax - fr.xmin) * (fr.x1 - fr.x0));
            int qy = (int)lround(fr.y1 - (y[i] - fr.ymin) / (fr.ymax - fr.ymin) * (fr.y1 - fr.y0));
            if (qx > xmid && qy < ymid) continue;
            if (qx <= fr.x0 || qx >= fr.x1 || qy <= fr.y0 || qy >= fr.y1) continue; /* on the frame */
            HS_TEST_CHECK(!memcmp(px(&im, qx, qy), k ? cb : ca, 3), "series %d point %d at pixel (%d, %d)", k,
                          i, qx, qy);
            ++checked;
        }
    HS_TEST_CHECK(checked > N, "only %d points checked", checked);
    /* and nowhere else: every pixel of series 0's colour (outside the legend) lies within 4 pixels of
     * sin at that column, every one of series 1's within 2 pixels of the line */
    int n_a = 0;
    for (int y = fr.y0 + 1; y < fr.y1; ++y)
        for (int xx = fr.x0 + 1; xx < fr.x1; ++xx) {
            if (xx > xmid && y < ymid) continue;
            double xd = fr.xmin + (double)(xx - fr.x0) / (fr.x1 - fr.x0) * (fr.xmax - fr.xmin);
            double ysin = fr.y1 - (sin(xd) - fr.ymin) / (fr.ymax - fr.ymin) * (fr.y1 - fr.y0);
            double ylin = fr.y1 - (-3.0 + 0.1 * xd - fr.ymin) / (fr.ymax - fr.ymin) * (fr.y1 - fr.y0);
            const unsigned char *p = px(&im, xx, y);
            if (!memcmp(p, ca, 3)) {
                ++n_a;
                HS_TEST_CHECK(fabs(y - ysin) <= 4.0, "stray sin pixel (%d, %d), curve at %.1f", xx, y, ysin);
            }
            if (!memcmp(p, cb, 3))
                HS_TEST_CHECK(fabs(y - ylin) <= 2.0, "stray line pixel (%d, %d), curve at %.1f", xx, y, ylin);
        }
    HS_TEST_CHECK(n_a > (fr.x1 - fr.x0) / 2, "sin drawn with %d pixels", n_a);
    /* the legend shows both colours in the top-right quarter; the title is black text at the top */
    int leg_a = 0, leg_b = 0, title = 0;
    for (int y = fr.y0 + 1; y < ymid; ++y)
        for (int xx = xmid; xx < fr.x1; ++xx) {
            leg_a |= near_color(&im, xx, y, ca, 0) && near_color(&im, xx + 1, y, ca, 0) &&
                     near_color(&im, xx, y + 1, ca, 0);
            leg_b |= near_color(&im, xx, y, cb, 0) && near_color(&im, xx, y + 1, cb, 0);
        }
    for (int y = 0; y < fr.y0 - 2; ++y)
        for (int xx = 0; xx < im.w; ++xx) title += !memcmp(px(&im, xx, y), (const unsigned char[3]){0, 0, 0}, 3);
    HS_TEST_CHECK(leg_a && leg_b, "legend swatches: %d %d", leg_a, leg_b);
    HS_TEST_CHECK(title > 50, "title pixels: %d", title);
    free(im.rgb);

    /* bad arguments are errors, not pictures */
    HS_TEST_CHECK(hs_plot_png(path, &o, s, 0, NULL) != HS_OK, "no series");
    hs_error_clear();
    o.width = 50;
    HS_TEST_CHECK(hs_plot_png(path, &o, s, 2, NULL) != HS_OK, "too small");
    hs_error_clear();
    /* an unwritable place is an I/O error naming the file */
    o.width = 640;
    HS_TEST_CHECK(hs_plot_png("/nonexistent-dir/x.png", &o, s, 2, NULL) == HS_ERR_IO, "unwritable");
    hs_error_clear();
    /* a fixed range and NaN gaps draw without error; a series of only NaN draws nothing */
    double nan_y[3] = {NAN, NAN, NAN};
    hs_plot_series s3[2] = {{x, ya, N, "sin"}, {x, nan_y, 3, NULL}};
    o.fix_y = 1, o.ymin = -0.5, o.ymax = 0.5;
    HS_TEST_OK(hs_plot_png(path, &o, s3, 2, &fr));
    HS_TEST_CHECK(fr.ymin == -0.5 && fr.ymax == 0.5, "fixed range kept");
    remove(path);
    HS_TEST_RETURN();
}
