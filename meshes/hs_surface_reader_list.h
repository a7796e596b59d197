/*
 * The list of surface readers, one line per file extension, expanded into the table hs_surface_read
 * looks the extension up in (meshes/surface.c, via hs_registry) and into the readers' declarations
 * (meshes/surface_internal.h).
 *
 * HS_SURFACE_READER(ext, read, label_arrays, summary):
 *  - ext: the extension with its dot, lower case (file names match it in any case);
 *  - read: an hs_surface_reader_fn, `hs_status read(const char *path, double scale,
 *    const hs_surface_read_opts *o, hs_surface **out)`, defined in the format's file (o->weld_tol
 *    is for formats that store each facet's corners separately, as STL does; others ignore it);
 *  - label_arrays: 1 when the format keeps named cell arrays and the reader takes its facet labels
 *    from the one o->label_array names (mesh.label_array); 0: hs_surface_read_with refuses a name;
 *  - summary: the format, one line.
 * Adding a reader is its file plus one line here.
 */
HS_SURFACE_READER(".stl", hs_surface_reader_stl, 0, "STL, ASCII or binary (corners welded)")
HS_SURFACE_READER(".off", hs_surface_reader_off, 0, "Geomview OFF")
HS_SURFACE_READER(".ply", hs_surface_reader_ply, 0, "PLY, ascii or binary_little_endian")
HS_SURFACE_READER(".poly", hs_surface_reader_poly, 0, "TetGen .poly (points inline or in a .node beside it)")
HS_SURFACE_READER(".smesh", hs_surface_reader_poly, 0, "TetGen .smesh")
HS_SURFACE_READER(".vtp", hs_surface_reader_vtp, 1, "XML VTK PolyData (ascii, binary, appended; zlib)")
