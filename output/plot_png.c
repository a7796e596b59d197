/* Line plots as PNG (hs_plot.h): drawn into an RGB buffer, encoded with zlib.
 *
 * Hand-written rather than a plotting library: heartsim already links zlib, and a PNG is four
 * chunks around one compressed block (PNG spec, ISO/IEC 15948: signature, IHDR, IDAT, IEND, each
 * with a CRC-32), so the encoder is a page of code. The labels use a built-in 5x7 bitmap font
 * (printable ASCII), which keeps the output byte-identical on every machine and needs no font
 * files at run time; Debian's libgd would draw text too but brings about 20 image libraries with it. */
#include "hs_plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hs_atomic_file.h"
#include "hs_util.h"

/* The 5x7 font: [95][7] rows of ASCII 32..126, top row first, bit 4 the leftmost column. */
static const unsigned char font5x7[95][7] = {
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, /* ' ' */
    {0x04, 0x04, 0x04, 0x04, 0x04, 0x00, 0x04}, /* '!' */
    {0x0a, 0x0a, 0x0a, 0x00, 0x00, 0x00, 0x00}, /* '"' */
    {0x0a, 0x0a, 0x1f, 0x0a, 0x1f, 0x0a, 0x0a}, /* '#' */
    {0x04, 0x0f, 0x14, 0x0e, 0x05, 0x1e, 0x04}, /* '$' */
    {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03}, /* '%' */
    {0x0c, 0x12, 0x14, 0x08, 0x15, 0x12, 0x0d}, /* '&' */
    {0x04, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00}, /* '\'' */
    {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}, /* '(' */
    {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}, /* ')' */
    {0x00, 0x04, 0x15, 0x0e, 0x15, 0x04, 0x00}, /* 'star' */
    {0x00, 0x04, 0x04, 0x1f, 0x04, 0x04, 0x00}, /* '+' */
    {0x00, 0x00, 0x00, 0x00, 0x0c, 0x04, 0x08}, /* ',' */
    {0x00, 0x00, 0x00, 0x1f, 0x00, 0x00, 0x00}, /* '-' */
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x0c}, /* '.' */
    {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00}, /* 'slash' */
    {0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e}, /* '0' */
    {0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e}, /* '1' */
    {0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f}, /* '2' */
    {0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e}, /* '3' */
    {0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02}, /* '4' */
    {0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e}, /* '5' */
    {0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e}, /* '6' */
    {0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}, /* '7' */
    {0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e}, /* '8' */
    {0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c}, /* '9' */
    {0x00, 0x0c, 0x0c, 0x00, 0x0c, 0x0c, 0x00}, /* ':' */
    {0x00, 0x0c, 0x0c, 0x00, 0x0c, 0x04, 0x08}, /* ';' */
    {0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02}, /* '<' */
    {0x00, 0x00, 0x1f, 0x00, 0x1f, 0x00, 0x00}, /* '=' */
    {0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08}, /* '>' */
    {0x0e, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04}, /* '?' */
    {0x0e, 0x11, 0x01, 0x0d, 0x15, 0x15, 0x0e}, /* '@' */
    {0x0e, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11}, /* 'A' */
    {0x1e, 0x11, 0x11, 0x1e, 0x11, 0x11, 0x1e}, /* 'B' */
    {0x0e, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0e}, /* 'C' */
    {0x1c, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1c}, /* 'D' */
    {0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x1f}, /* 'E' */
    {0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x10}, /* 'F' */
    {0x0e, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0f}, /* 'G' */
    {0x11, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11}, /* 'H' */
    {0x0e, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e}, /* 'I' */
    {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0c}, /* 'J' */
    {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11}, /* 'K' */
    {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1f}, /* 'L' */
    {0x11, 0x1b, 0x15, 0x15, 0x11, 0x11, 0x11}, /* 'M' */
    {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11}, /* 'N' */
    {0x0e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e}, /* 'O' */
    {0x1e, 0x11, 0x11, 0x1e, 0x10, 0x10, 0x10}, /* 'P' */
    {0x0e, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0d}, /* 'Q' */
    {0x1e, 0x11, 0x11, 0x1e, 0x14, 0x12, 0x11}, /* 'R' */
    {0x0f, 0x10, 0x10, 0x0e, 0x01, 0x01, 0x1e}, /* 'S' */
    {0x1f, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}, /* 'T' */
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e}, /* 'U' */
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x0a, 0x04}, /* 'V' */
    {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0a}, /* 'W' */
    {0x11, 0x11, 0x0a, 0x04, 0x0a, 0x11, 0x11}, /* 'X' */
    {0x11, 0x11, 0x0a, 0x04, 0x04, 0x04, 0x04}, /* 'Y' */
    {0x1f, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1f}, /* 'Z' */
    {0x0e, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0e}, /* '[' */
    {0x00, 0x10, 0x08, 0x04, 0x02, 0x01, 0x00}, /* '\\' */
    {0x0e, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0e}, /* ']' */
    {0x04, 0x0a, 0x11, 0x00, 0x00, 0x00, 0x00}, /* '^' */
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1f}, /* '_' */
    {0x08, 0x04, 0x02, 0x00, 0x00, 0x00, 0x00}, /* '`' */
    {0x00, 0x00, 0x0e, 0x01, 0x0f, 0x11, 0x0f}, /* 'a' */
    {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1e}, /* 'b' */
    {0x00, 0x00, 0x0e, 0x10, 0x10, 0x11, 0x0e}, /* 'c' */
    {0x01, 0x01, 0x0d, 0x13, 0x11, 0x11, 0x0f}, /* 'd' */
    {0x00, 0x00, 0x0e, 0x11, 0x1f, 0x10, 0x0e}, /* 'e' */
    {0x06, 0x09, 0x08, 0x1c, 0x08, 0x08, 0x08}, /* 'f' */
    {0x00, 0x0f, 0x11, 0x11, 0x0f, 0x01, 0x0e}, /* 'g' */
    {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11}, /* 'h' */
    {0x04, 0x00, 0x0c, 0x04, 0x04, 0x04, 0x0e}, /* 'i' */
    {0x02, 0x00, 0x06, 0x02, 0x02, 0x12, 0x0c}, /* 'j' */
    {0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12}, /* 'k' */
    {0x0c, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e}, /* 'l' */
    {0x00, 0x00, 0x1a, 0x15, 0x15, 0x11, 0x11}, /* 'm' */
    {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11}, /* 'n' */
    {0x00, 0x00, 0x0e, 0x11, 0x11, 0x11, 0x0e}, /* 'o' */
    {0x00, 0x00, 0x1e, 0x11, 0x1e, 0x10, 0x10}, /* 'p' */
    {0x00, 0x00, 0x0d, 0x13, 0x0f, 0x01, 0x01}, /* 'q' */
    {0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10}, /* 'r' */
    {0x00, 0x00, 0x0e, 0x10, 0x0e, 0x01, 0x1e}, /* 's' */
    {0x08, 0x08, 0x1c, 0x08, 0x08, 0x09, 0x06}, /* 't' */
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0d}, /* 'u' */
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x0a, 0x04}, /* 'v' */
    {0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0a}, /* 'w' */
    {0x00, 0x00, 0x11, 0x0a, 0x04, 0x0a, 0x11}, /* 'x' */
    {0x00, 0x00, 0x11, 0x11, 0x0f, 0x01, 0x0e}, /* 'y' */
    {0x00, 0x00, 0x1f, 0x02, 0x04, 0x08, 0x1f}, /* 'z' */
    {0x02, 0x04, 0x04, 0x08, 0x04, 0x04, 0x02}, /* '{' */
    {0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}, /* '|' */
    {0x08, 0x04, 0x04, 0x02, 0x04, 0x04, 0x08}, /* '}' */
    {0x00, 0x00, 0x08, 0x15, 0x02, 0x00, 0x00}, /* '~' */
};

enum { GLYPH_W = 5, GLYPH_H = 7, ADVANCE = 6 };

typedef struct canvas {
    int w, h;
    unsigned char *rgb; /* [h][w][3] */
} canvas;

static const unsigned char palette[HS_PLOT_MAX_SERIES][3] = {
    {31, 119, 180}, {214, 39, 40},  {44, 160, 44},  {255, 127, 14},
    {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {23, 190, 207},
};
static const unsigned char black[3] = {0, 0, 0};
static const unsigned char grid[3] = {225, 225, 225};

void hs_plot_series_color(int k, unsigned char rgb[3])
{
    memcpy(rgb, palette[(k % HS_PLOT_MAX_SERIES + HS_PLOT_MAX_SERIES) % HS_PLOT_MAX_SERIES], 3);
}

static void put(canvas *c, int x, int y, const unsigned char col[3])
{
    if (x < 0 || y < 0 || x >= c->w || y >= c->h) return;
    memcpy(c->rgb + 3 * ((size_t)y * (size_t)c->w + (size_t)x), col, 3);
}

static void hline(canvas *c, int x0, int x1, int y, const unsigned char col[3])
{
    for (int x = x0; x <= x1; ++x) put(c, x, y, col);
}

static void vline(canvas *c, int x, int y0, int y1, const unsigned char col[3])
{
    for (int y = y0; y <= y1; ++y) put(c, x, y, col);
}

/* Bresenham's line, both ends drawn; pixels outside the clip box [cx0, cx1] x [cy0, cy1] skipped. */
static void line(canvas *c, int x0, int y0, int x1, int y1, const int clip[4], const unsigned char col[3])
{
    int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    int dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) {
        if (x0 >= clip[0] && x0 <= clip[2] && y0 >= clip[1] && y0 <= clip[3]) put(c, x0, y0, col);
        if (x0 == x1 && y0 == y1) break;
        int e2 = 2 * err;
        if (e2 >= dy) err += dy, x0 += sx;
        if (e2 <= dx) err += dx, y0 += sy;
    }
}

/* Text with its top-left corner at (x, y), each font pixel a scale x scale block; up != 0 writes
 * it rotated a quarter turn counter-clockwise (reading upwards), starting at (x, y) = bottom-left. */
static void text(canvas *c, int x, int y, const char *s, int scale, int up, const unsigned char col[3])
{
    for (int i = 0; s && s[i]; ++i) {
        unsigned char ch = (unsigned char)s[i];
        const unsigned char *g = font5x7[(ch >= 32 && ch <= 126 ? ch : '?') - 32];
        for (int r = 0; r < GLYPH_H; ++r)
            for (int q = 0; q < GLYPH_W; ++q) {
                if (!(g[r] & (0x10 >> q))) continue;
                for (int a = 0; a < scale; ++a)
                    for (int b = 0; b < scale; ++b) {
                        int gx = (i * ADVANCE + q) * scale + a, gy = r * scale + b;
                        if (up) put(c, x + gy, y - gx, col);
                        else put(c, x + gx, y + gy, col);
                    }
            }
    }
}

static int text_width(const char *s, int scale) { return s ? (int)strlen(s) * ADVANCE * scale : 0; }

/* A "nice" tick step (1, 2 or 5 times a power of ten) giving at most about @p n intervals. */
static double nice_step(double span, int n)
{
    double raw = span / n, p = pow(10.0, floor(log10(raw))), f = raw / p;
    return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * p;
}

/* Widen [lo, hi] to multiples of a nice step; a degenerate range is opened around its value. */
static void nice_range(double *lo, double *hi, int n)
{
    if (!(*hi > *lo)) {
        double d = *lo != 0.0 ? 0.5 * fabs(*lo) : 0.5;
        *lo -= d;
        *hi += d;
    }
    double st = nice_step(*hi - *lo, n);
    *lo = floor(*lo / st + 1e-9) * st;
    *hi = ceil(*hi / st - 1e-9) * st;
}

/* Tick label: fixed-point with as many decimals as the step needs (steps are 1, 2 or 5 times a
 * power of ten), %g for very large or small magnitudes; exact zero printed as "0". */
static void tick_label(double v, double step, char *buf, size_t n)
{
    if (fabs(v) < 1e-9 * step) v = 0.0;
    double mag = fmax(fabs(v), step);
    if (mag >= 1e7 || step < 1e-5) {
        snprintf(buf, n, "%.3g", v);
        return;
    }
    int dec = (int)-floor(log10(step) + 1e-9);
    snprintf(buf, n, "%.*f", dec > 0 ? dec : 0, v);
}

static int to_px(double v, double lo, double hi, int p0, int p1)
{
    return (int)lround(p0 + (v - lo) / (hi - lo) * (p1 - p0));
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* One chunk: length, type, data, CRC-32 over type and data. */
static hs_status write_chunk(hs_atomic_file *f, const char *type, const unsigned char *data, size_t n)
{
    unsigned char hdr[8], crc[4];
    HS_CHECK(n <= 0x7fffffffu, HS_ERR_INTERNAL, "PNG chunk of %zu bytes", n);
    put_be32(hdr, (uint32_t)n);
    memcpy(hdr + 4, type, 4);
    uLong c = crc32(0L, Z_NULL, 0);
    c = crc32(c, (const Bytef *)type, 4);
    if (n) c = crc32(c, data, (uInt)n);
    put_be32(crc, (uint32_t)c);
    HS_CALL(hs_atomic_file_write(f, hdr, 8));
    if (n) HS_CALL(hs_atomic_file_write(f, data, n));
    return hs_atomic_file_write(f, crc, 4);
}

/* The PNG of an RGB canvas: filter type 0 on every row, one zlib stream in one IDAT. */
static hs_status write_png(const char *path, const canvas *c)
{
    hs_status st = HS_OK;
    size_t row = 1 + 3 * (size_t)c->w, raw_n = row * (size_t)c->h;
    unsigned char *raw = NULL, *z = NULL;
    hs_atomic_file *f = NULL;
    uLongf zn = compressBound((uLong)raw_n);
    HS_CALL(HS_ALLOC(raw, raw_n, "PNG rows"));
    HS_CALL_GOTO(HS_ALLOC(z, zn, "PNG compressed data"), done);
    for (int y = 0; y < c->h; ++y) {
        raw[row * (size_t)y] = 0;
        memcpy(raw + row * (size_t)y + 1, c->rgb + 3 * (size_t)c->w * (size_t)y, 3 * (size_t)c->w);
    }
    int zr = compress2(z, &zn, raw, (uLong)raw_n, 6);
    HS_CHECK_GOTO(zr == Z_OK, done, HS_ERR_MEMORY, "%s: zlib compress2 failed (%d)", path, zr);
    static const unsigned char sig[8] = {137, 'P', 'N', 'G', 13, 10, 26, 10};
    unsigned char ihdr[13];
    put_be32(ihdr, (uint32_t)c->w);
    put_be32(ihdr + 4, (uint32_t)c->h);
    ihdr[8] = 8;  /* bit depth */
    ihdr[9] = 2;  /* colour type: RGB */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* adaptive filtering, type per row */
    ihdr[12] = 0; /* no interlace */
    HS_CALL_GOTO(hs_atomic_file_create(path, "PNG plot", &f), done);
    HS_CALL_GOTO(hs_atomic_file_write(f, sig, 8), done);
    HS_CALL_GOTO(write_chunk(f, "IHDR", ihdr, 13), done);
    HS_CALL_GOTO(write_chunk(f, "IDAT", z, zn), done);
    HS_CALL_GOTO(write_chunk(f, "IEND", NULL, 0), done);
    st = hs_atomic_file_commit(&f);
done:
    hs_atomic_file_destroy(&f);
    free(raw);
    free(z);
    return st;
}

hs_status hs_plot_png(const char *path, const hs_plot_opts *o, const hs_plot_series *s, int n_series,
                      hs_plot_frame *frame)
{
    hs_plot_opts def;
    memset(&def, 0, sizeof def);
    if (!o) o = &def;
    int w = o->width ? o->width : 800, h = o->height ? o->height : 500;
    HS_CHECK(n_series >= 1 && n_series <= HS_PLOT_MAX_SERIES, HS_ERR_INTERNAL,
             "%s: a plot takes 1 to %d series, not %d", path, HS_PLOT_MAX_SERIES, n_series);
    HS_CHECK(w >= 200 && h >= 150 && w <= 20000 && h <= 20000, HS_ERR_INTERNAL,
             "%s: plot size %d x %d pixels; at least 200 x 150, at most 20000 x 20000", path, w, h);
    HS_CHECK(!o->fix_x || o->xmax > o->xmin, HS_ERR_INTERNAL, "%s: empty x range [%g, %g]", path, o->xmin, o->xmax);
    HS_CHECK(!o->fix_y || o->ymax > o->ymin, HS_ERR_INTERNAL, "%s: empty y range [%g, %g]", path, o->ymin, o->ymax);

    /* data bounds over the finite points */
    double xl = INFINITY, xh = -INFINITY, yl = INFINITY, yh = -INFINITY;
    for (int k = 0; k < n_series; ++k)
        for (int64_t i = 0; i < s[k].n; ++i)
            if (isfinite(s[k].x[i]) && isfinite(s[k].y[i])) {
                xl = fmin(xl, s[k].x[i]), xh = fmax(xh, s[k].x[i]);
                yl = fmin(yl, s[k].y[i]), yh = fmax(yh, s[k].y[i]);
            }
    if (!(xh >= xl)) xl = 0.0, xh = 1.0;
    if (!(yh >= yl)) yl = 0.0, yh = 1.0;
    if (o->fix_x) xl = o->xmin, xh = o->xmax;
    else nice_range(&xl, &xh, 8);
    if (o->fix_y) yl = o->ymin, yh = o->ymax;
    else nice_range(&yl, &yh, 6);
    double xst = nice_step(xh - xl, 8), yst = nice_step(yh - yl, 6);

    /* tick labels decide the left margin */
    char buf[64];
    int ylab_w = 0;
    for (double v = ceil(yl / yst - 1e-9) * yst; v <= yh + 1e-9 * yst; v += yst) {
        tick_label(v, yst, buf, sizeof buf);
        int tw = text_width(buf, 1);
        ylab_w = tw > ylab_w ? tw : ylab_w;
    }
    hs_plot_frame fr;
    fr.x0 = 10 + (o->ylabel ? GLYPH_H + 8 : 0) + ylab_w + 8;
    fr.x1 = w - 20;
    fr.y0 = o->title ? 2 * GLYPH_H + 18 : 14;
    fr.y1 = h - (GLYPH_H + 14) - (o->xlabel ? GLYPH_H + 8 : 0);
    fr.xmin = xl, fr.xmax = xh, fr.ymin = yl, fr.ymax = yh;
    HS_CHECK(fr.x1 - fr.x0 >= 40 && fr.y1 - fr.y0 >= 40, HS_ERR_INTERNAL,
             "%s: plot size %d x %d pixels leaves no room for the data", path, w, h);

    canvas c = {w, h, NULL};
    HS_CALL(HS_ALLOC(c.rgb, 3 * (size_t)w * (size_t)h, "plot image"));
    memset(c.rgb, 255, 3 * (size_t)w * (size_t)h);

    /* grid and ticks */
    for (double v = ceil(xl / xst - 1e-9) * xst; v <= xh + 1e-9 * xst; v += xst) {
        int px = to_px(v, xl, xh, fr.x0, fr.x1);
        vline(&c, px, fr.y0, fr.y1, grid);
        vline(&c, px, fr.y1, fr.y1 + 4, black);
        tick_label(v, xst, buf, sizeof buf);
        text(&c, px - text_width(buf, 1) / 2, fr.y1 + 7, buf, 1, 0, black);
    }
    for (double v = ceil(yl / yst - 1e-9) * yst; v <= yh + 1e-9 * yst; v += yst) {
        int py = to_px(v, yl, yh, fr.y1, fr.y0);
        hline(&c, fr.x0, fr.x1, py, grid);
        hline(&c, fr.x0 - 4, fr.x0, py, black);
        tick_label(v, yst, buf, sizeof buf);
        text(&c, fr.x0 - 7 - text_width(buf, 1), py - GLYPH_H / 2, buf, 1, 0, black);
    }
    /* the frame */
    hline(&c, fr.x0, fr.x1, fr.y0, black);
    hline(&c, fr.x0, fr.x1, fr.y1, black);
    vline(&c, fr.x0, fr.y0, fr.y1, black);
    vline(&c, fr.x1, fr.y0, fr.y1, black);
    if (o->title) text(&c, (w - text_width(o->title, 2)) / 2, 6, o->title, 2, 0, black);
    if (o->xlabel)
        text(&c, (fr.x0 + fr.x1 - text_width(o->xlabel, 1)) / 2, h - GLYPH_H - 6, o->xlabel, 1, 0, black);
    if (o->ylabel)
        text(&c, 8, (fr.y0 + fr.y1 + text_width(o->ylabel, 1)) / 2, o->ylabel, 1, 1, black);

    /* the curves, clipped to the plot area (inside the frame) */
    const int clip[4] = {fr.x0 + 1, fr.y0 + 1, fr.x1 - 1, fr.y1 - 1};
    for (int k = 0; k < n_series; ++k) {
        int have = 0, px = 0, py = 0;
        for (int64_t i = 0; i < s[k].n; ++i) {
            double x = s[k].x[i], y = s[k].y[i];
            if (!isfinite(x) || !isfinite(y)) {
                have = 0;
                continue;
            }
            /* far outside a fixed range: clamp so the integer arithmetic stays bounded */
            double fx = fmin(fmax((x - xl) / (xh - xl), -4.0), 5.0);
            double fy = fmin(fmax((y - yl) / (yh - yl), -4.0), 5.0);
            int qx = (int)lround(fr.x0 + fx * (fr.x1 - fr.x0)), qy = (int)lround(fr.y1 - fy * (fr.y1 - fr.y0));
            if (have) line(&c, px, py, qx, qy, clip, palette[k]);
            else line(&c, qx, qy, qx, qy, clip, palette[k]);
            px = qx, py = qy, have = 1;
        }
    }

    /* legend, top right inside the plot area */
    int n_leg = 0, leg_w = 0;
    for (int k = 0; k < n_series; ++k)
        if (s[k].label && s[k].label[0]) {
            ++n_leg;
            int tw = text_width(s[k].label, 1);
            leg_w = tw > leg_w ? tw : leg_w;
        }
    if (n_leg) {
        int bw = leg_w + 34, bh = n_leg * (GLYPH_H + 6) + 6;
        int bx = fr.x1 - 8 - bw, by = fr.y0 + 8;
        for (int y = by; y <= by + bh; ++y) hline(&c, bx, bx + bw, y, (const unsigned char[3]){255, 255, 255});
        hline(&c, bx, bx + bw, by, black);
        hline(&c, bx, bx + bw, by + bh, black);
        vline(&c, bx, by, by + bh, black);
        vline(&c, bx + bw, by, by + bh, black);
        int row = 0;
        for (int k = 0; k < n_series; ++k) {
            if (!s[k].label || !s[k].label[0]) continue;
            int ty = by + 6 + row * (GLYPH_H + 6);
            hline(&c, bx + 6, bx + 24, ty + GLYPH_H / 2, palette[k]);
            hline(&c, bx + 6, bx + 24, ty + GLYPH_H / 2 + 1, palette[k]);
            text(&c, bx + 28, ty, s[k].label, 1, 0, black);
            ++row;
        }
    }
    hs_status st = write_png(path, &c);
    free(c.rgb);
    if (st == HS_OK && frame) *frame = fr;
    return st;
}
