/*
 * The list of volume mesh readers, one line per file extension, expanded into the table
 * hs_mesh_read_file looks the extension up in (meshes/mesh_read_file.c, via hs_registry) and into
 * the readers' declarations (meshes/mesh_read_internal.h).
 *
 * HS_MESH_READER(ext, read, prefix_probe, summary):
 *  - ext: the extension with its dot, lower case (file names match it in any case);
 *  - read: an hs_mesh_reader_fn, `hs_status read(const char *path, const hs_mesh_read_opts *o,
 *    hs_mesh **out)`, defined in the format's file; it gets the file name as given (formats of
 *    several files derive the others from it);
 *  - prefix_probe: 1 when a bare PREFIX (a name without a listed extension) is read by this reader
 *    if PREFIX<ext> exists; probed in list order, and read is then given PREFIX<ext>;
 *  - summary: the format, as error messages name it; lines of one format share it and are listed
 *    together (".pts/.elem/.lon (openCARP)"), so keep them adjacent.
 * Adding a reader is its file plus one line here.
 */
HS_MESH_READER(".vtk", hs_mesh_read_vtk, 0, "legacy VTK unstructured grid")
HS_MESH_READER(".vtu", hs_mesh_read_vtu, 0, "XML VTK unstructured grid")
HS_MESH_READER(".msh", hs_mesh_read_gmsh, 0, "Gmsh 2.2/4.x ASCII")
HS_MESH_READER(".pts", hs_mesh_read_opencarp_file, 0, "openCARP")
HS_MESH_READER(".elem", hs_mesh_read_opencarp_file, 1, "openCARP")
HS_MESH_READER(".lon", hs_mesh_read_opencarp_file, 0, "openCARP")
HS_MESH_READER(".node", hs_mesh_read_tetgen_file, 0, "TetGen")
HS_MESH_READER(".ele", hs_mesh_read_tetgen_file, 1, "TetGen")
