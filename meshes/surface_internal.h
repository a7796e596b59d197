/* Private to the surface readers (meshes/surface*.c): their declarations as listed, and a growing
 * hs_surface that every reader fills point by point and facet by facet. Arrays grow as the file is
 * read (hs_grow_array), so a header that announces a huge count in a short file ends in "file
 * ended after ..." instead of a giant allocation. */
#ifndef HS_SURFACE_INTERNAL_H
#define HS_SURFACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hs_surface.h"

typedef struct hs_surface_builder {
    hs_surface s; /* counts are the used sizes; arrays owned until hs_surface_builder_finish */
    size_t cap_xyz, cap_ptr, cap_idx, cap_marker, cap_holes, cap_regions; /* in items */
    size_t n_idx;
} hs_surface_builder;

/* Start empty (facet_ptr gets its leading 0 on the first facet). */
void hs_surface_builder_init(hs_surface_builder *b);
/* Free everything not yet handed over; safe after finish. */
void hs_surface_builder_free(hs_surface_builder *b);
hs_status hs_surface_builder_point(hs_surface_builder *b, double x, double y, double z);
/* Append a facet of n >= 1 point indices (not checked here: the readers check ranges with the
 * file and line at hand). */
hs_status hs_surface_builder_facet(hs_surface_builder *b, const int32_t *v, int32_t n,
                                   int32_t marker);
hs_status hs_surface_builder_hole(hs_surface_builder *b, double x, double y, double z);
hs_status hs_surface_builder_region(hs_surface_builder *b, const double r[5]);
/* Hand the arrays over (shrunk to size) as a new surface; b is left empty. */
hs_status hs_surface_builder_finish(hs_surface_builder *b, hs_surface **out);

/* Every listed reader (meshes/hs_surface_reader_list.h), each defined in its format's file, wrapping
 * its public reader (which takes only the options its format uses). */
#define HS_SURFACE_READER(ext, read, label_arrays, summary) hs_surface_reader_fn read;
#include "hs_surface_reader_list.h"
#undef HS_SURFACE_READER

/* Shared check of the reader's scale argument: positive and finite. */
hs_status hs_surface_check_scale(const char *path, double scale);

#endif
