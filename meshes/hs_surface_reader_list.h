/*
 * The list of surface readers, one line per file extension, expanded into the table hs_surface_read
 * looks the extension up in (meshes/surface.c, via hs_registry) and into the readers' declarations
 * (meshes/surface_internal.h).
 *
 * HS_SURFACE_READER(ext, read, summary):
 *  - ext: the extension with its dot, lower case (file names match it in any case);
 *  - read: an hs_surface_reader_fn, `hs_status read(const char *path, double scale,
 *    double weld_tol, hs_surface **out)`, defined in the format's file (weld_tol is for formats
 *    that store each facet's corners separately, as STL does; others ignore it);
 *  - summary: the format, one line.
 * Adding a reader is its file plus one line here.
 */
HS_SURFACE_READER(".stl", hs_surface_read_stl, "STL, ASCII or binary (corners welded)")
HS_SURFACE_READER(".off", hs_surface_reader_off, "Geomview OFF")
HS_SURFACE_READER(".ply", hs_surface_reader_ply, "PLY, ascii or binary_little_endian")
HS_SURFACE_READER(".poly", hs_surface_reader_poly, "TetGen .poly (points inline or in a .node beside it)")
HS_SURFACE_READER(".smesh", hs_surface_reader_poly, "TetGen .smesh")
HS_SURFACE_READER(".vtp", hs_surface_reader_vtp, "XML VTK PolyData (ascii, binary, appended; zlib)")
