/**
 * @file vtk_xml.h
 * @brief Private to the VTK readers (mesh_read_vtu.c, surface_vtp.c, mesh_read_vtk.c): the XML VTK
 * file format ("VTK File Formats", XML file formats) read into a list of DataArrays (vtk_xml.c), and
 * their decoding (vtk_xml_decode.c); plus (vtk_names.c) what the legacy and XML readers share (cell type names, the names of the region and
 * fibre arrays).
 *
 *   <VTKFile type="UnstructuredGrid|PolyData" byte_order="LittleEndian|BigEndian"
 *            header_type="UInt32|UInt64" compressor="vtkZLibDataCompressor">
 *     <UnstructuredGrid> <Piece NumberOfPoints=".." NumberOfCells="..">     (PolyData: NumberOfPolys,
 *       <Points> <DataArray NumberOfComponents="3" .../> </Points>           NumberOfVerts, ...)
 *       <Cells> connectivity, offsets, types </Cells>         (PolyData: <Polys>, <Verts>, ...)
 *       <PointData> .. </PointData> <CellData> .. </CellData>
 *     </Piece> </UnstructuredGrid>
 *     <AppendedData encoding="raw|base64"> _ ... </AppendedData>
 *   </VTKFile>
 *
 * A DataArray has type (Int8 .. UInt64, Float32, Float64), Name, NumberOfComponents and format
 * (its own text only: child elements such as VTK's <InformationKey> ranges are skipped):
 *  - ascii: whitespace-separated numbers in the element's text;
 *  - binary: base64 in the element's text of [header][data] (header and data may be encoded as
 *    separate base64 runs, each padded: the decoder restarts after padding);
 *  - appended: the same bytes at `offset` after the '_' of AppendedData, raw or base64.
 * Header (header_type words, byte_order): uncompressed, one word = bytes of data; with
 * vtkZLibDataCompressor, [nblocks][blocksize][last block size (0: full)][compressed size of each
 * block], then the zlib streams. Raw appended data is not XML, so the XML parsed by expat ends at
 * the AppendedData start tag (closed by the reader); the bytes after '_' are read directly.
 * Sizes are checked against the bytes the file actually has before anything is allocated, so a
 * header announcing huge arrays ends in an error, not a giant allocation.
 */
#ifndef HS_VTK_XML_H
#define HS_VTK_XML_H

#include <stddef.h>
#include <stdint.h>

#include "hs_status.h"

/* ---- shared with the legacy reader (defined in vtk_names.c) -------------------------------- */

/** @brief Name of a VTK cell type (vtkCellType.h), or NULL when unknown. */
const char *hs_vtk_cell_type_name(long long t);
/** @brief 1 when a cell array of this name holds region markers (region, tag, material, ...). */
int hs_vtk_is_region_name(const char *s);
/** @brief Those names as one comma-separated list, for messages (static storage). */
const char *hs_vtk_region_names(void);
/** @brief 1 when a cell array of this name holds fibres (fiber, fibers, fibre, fibres). */
int hs_vtk_is_fiber_name(const char *s);

enum { HS_VTK_VERTEX = 1, HS_VTK_LINE = 3, HS_VTK_TRIANGLE = 5, HS_VTK_TETRA = 10,
       HS_VTK_QUADRATIC_TETRA = 24 };

/* ---- the XML file -------------------------------------------------------------------------- */

/** Which element a DataArray is a child of. */
typedef enum hs_vtkx_section {
    HS_VTKX_OTHER = 0,
    HS_VTKX_POINTS,
    HS_VTKX_CELLS,      /**< UnstructuredGrid */
    HS_VTKX_VERTS,      /**< PolyData */
    HS_VTKX_LINES,
    HS_VTKX_POLYS,
    HS_VTKX_STRIPS,
    HS_VTKX_POINT_DATA,
    HS_VTKX_CELL_DATA
} hs_vtkx_section;

typedef struct hs_vtkx_array {
    hs_vtkx_section section;
    char name[64];       /**< Name (may be empty) */
    int type;            /**< index into the type table of vtk_xml.c; see hs_vtkx_type_name */
    int ncomp;           /**< NumberOfComponents, 1 when absent */
    int format;          /**< 0 ascii, 1 binary, 2 appended */
    uint64_t offset;     /**< appended: offset after '_' */
    long line;           /**< line of the DataArray start tag */
    char *text;          /**< its character data (ascii, binary), NUL-terminated; NULL if none */
    size_t len, cap;
} hs_vtkx_array;

typedef struct hs_vtkx_file {
    const char *path;    /**< borrowed, named in messages */
    char dataset[32];    /**< "UnstructuredGrid" or "PolyData" */
    int big_endian, header64, zlib;
    long long n_points, n_cells, n_verts, n_lines, n_polys, n_strips; /**< -1: not given */
    int n_pieces;
    hs_vtkx_array *arr;
    size_t n_arr, cap_arr;
    unsigned char *buf;  /**< the whole file */
    size_t size;
    int have_appended, appended_base64;
    size_t appended_start; /**< index in buf of the first byte after '_' */
    size_t appended_end;   /**< end of appended bytes (raw: the file's end; base64: its close tag) */
} hs_vtkx_file;

/** Decoded values: integer arrays in i (int64), floating-point ones in d. */
typedef struct hs_vtkx_values {
    size_t n;            /**< number of values (tuples x components) */
    int is_int;
    int64_t *i;
    double *d;
} hs_vtkx_values;

/**
 * @brief Read and parse @p path; @p dataset is the type the caller reads ("UnstructuredGrid" or
 * "PolyData"): another one is refused with @p hint appended. One Piece is read; several are
 * refused (merge them first). @param[out] out new file (hs_vtkx_destroy).
 */
hs_status hs_vtkx_read(const char *path, const char *dataset, const char *hint, hs_vtkx_file **out);

/** @brief Free; accepts NULL and sets *f = NULL. */
void hs_vtkx_destroy(hs_vtkx_file **f);

/** @brief The first array of @p section whose name satisfies @p pick (NULL: any), or NULL. */
const hs_vtkx_array *hs_vtkx_find(const hs_vtkx_file *f, hs_vtkx_section section,
                                  int (*pick)(const char *name));

/** @brief The first array of @p section named exactly @p name, or NULL. */
const hs_vtkx_array *hs_vtkx_find_name(const hs_vtkx_file *f, hs_vtkx_section section,
                                       const char *name);

/** @brief Index of a DataArray type name ("Int8" .. "UInt64", "Float32", "Float64"), or -1. */
int hs_vtkx_type_find(const char *s);
/** @brief "Int32", "Float64", ... */
const char *hs_vtkx_type_name(int type);
/** @brief 1 for the integer types. */
int hs_vtkx_type_is_int(int type);

/**
 * @brief Decode array @p a. @p expect is the number of values it must hold (tuples x components),
 * or -1 when any number is fine (connectivity). Errors name the file, the line of the DataArray and
 * its name. Floating-point values must be finite. @param[out] v values (hs_vtkx_values_free).
 */
hs_status hs_vtkx_decode(const hs_vtkx_file *f, const hs_vtkx_array *a, long long expect,
                         hs_vtkx_values *v);

/** @brief Value k as a double. */
static inline double hs_vtkx_get(const hs_vtkx_values *v, size_t k)
{
    return v->is_int ? (double)v->i[k] : v->d[k];
}

void hs_vtkx_values_free(hs_vtkx_values *v);

/**
 * @brief Decode an integer array (connectivity, offsets, types, markers) into int64; a float array
 * is accepted when every value is integral. Same as hs_vtkx_decode otherwise.
 */
hs_status hs_vtkx_decode_int(const hs_vtkx_file *f, const hs_vtkx_array *a, long long expect,
                             hs_vtkx_values *v);

/**
 * @brief The cells of a connectivity/offsets pair (Cells of a grid, Polys of PolyData) under
 * @p section: @p n cells, checked: offsets non-decreasing, within connectivity, point indices in
 * 0..n_points-1. @param[out] conn, off decoded (off->i[c] = end of cell c).
 */
hs_status hs_vtkx_cells(const hs_vtkx_file *f, hs_vtkx_section section, const char *what,
                        long long n, hs_vtkx_values *conn, hs_vtkx_values *off);

#endif
