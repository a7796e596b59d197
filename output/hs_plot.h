/**
 * @file hs_plot.h
 * @brief Line plots written as PNG: one or more series (x, y arrays) with axes, ticks with numeric
 * labels, axis labels, a title and a legend. For traces a run writes beside its data (the 0D cell
 * trace of `heartsim cell`, probe traces, ECG leads), so a modeller sees the curve without a
 * plotting tool. The CSV written beside it stays the data; the PNG is a picture of it.
 *
 * The image is 8-bit RGB, drawn in memory (1-pixel lines, a built-in 5x7 bitmap font) and encoded
 * with zlib (output/plot_png.c); the file is written atomically (hs_atomic_file.h).
 * Axis ranges: the data's bounds (finite points only) widened to "nice" tick steps of 1, 2 or 5
 * times a power of ten, unless the caller fixes them. Non-finite points break a line.
 */
#ifndef HS_PLOT_H
#define HS_PLOT_H

#include <stdint.h>

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most series one plot draws (the palette's size). */
#define HS_PLOT_MAX_SERIES 8

/** One curve: points (x[i], y[i]), i < n, joined in order. Arrays and label are borrowed. */
typedef struct hs_plot_series {
    const double *x; /**< [n] */
    const double *y; /**< [n] */
    int64_t n;
    const char *label; /**< legend text; NULL or "" leaves the series out of the legend */
} hs_plot_series;

/** What the plot shows besides the curves. Zero-initialise, then set what you need. */
typedef struct hs_plot_opts {
    int width, height;  /**< pixels; 0: 800 x 500. At least 200 x 150. */
    const char *title;  /**< top line; NULL: none */
    const char *xlabel; /**< under the x axis; NULL: none */
    const char *ylabel; /**< left of the y axis, written upwards; NULL: none */
    int fix_x, fix_y;   /**< nonzero: use [xmin, xmax] / [ymin, ymax] as given instead of the data's */
    double xmin, xmax, ymin, ymax;
} hs_plot_opts;

/** Where the data went: the plot area in pixels (x right, y down; x0 < x1, y0 < y1) and the data
 *  range it spans. Data (x, y) is at column x0 + (x - xmin)/(xmax - xmin) (x1 - x0) and row
 *  y1 - (y - ymin)/(ymax - ymin) (y1 - y0), rounded to the nearest pixel. */
typedef struct hs_plot_frame {
    int x0, y0, x1, y1;
    double xmin, xmax, ymin, ymax;
} hs_plot_frame;

/** RGB of series k's line (k < HS_PLOT_MAX_SERIES); the background is white, axes and text black. */
void hs_plot_series_color(int k, unsigned char rgb[3]);

/**
 * @brief Draw the series and write the PNG to @p path atomically.
 * @param[in] path file name; @param[in] o options (NULL: defaults); @param[in] s [n_series] curves
 * (1 <= n_series <= HS_PLOT_MAX_SERIES); @param[out] frame where the data went (NULL: not wanted).
 * @return HS_ERR_INTERNAL for bad arguments (no series, too many, a size too small, a fixed range
 * that is empty), HS_ERR_IO when the file cannot be written.
 * A series without a finite point draws nothing; the ranges then come from the others (or [0, 1]).
 */
hs_status hs_plot_png(const char *path, const hs_plot_opts *o, const hs_plot_series *s, int n_series,
                      hs_plot_frame *frame);

#ifdef __cplusplus
}
#endif
#endif
