/* XML VTK files (vtk_xml.h): the file parsed with expat into a list of DataArrays, and their
 * decoding (ascii, base64, appended raw or base64; zlib blocks via zlib's uncompress). The base64
 * decoder is written here (about 30 lines) rather than taken from a library: it must restart after
 * padding, since VTK encodes the header and the data of an array as two runs. Also the cell type
 * names and array names the legacy reader (mesh_read_vtk.c) shares. */
#define _POSIX_C_SOURCE 200809L
#include "vtk_xml.h"

#include <errno.h>
#include <expat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "hs_text_reader.h"
#include "hs_util.h"

/* Names of the VTK cell types (vtkCellType.h), for refusals. */
const char *hs_vtk_cell_type_name(long long t)
{
    static const struct {
        int type;
        const char *name;
    } names[] = {{1, "vertex"},
                 {2, "poly-vertex"},
                 {3, "line"},
                 {4, "polyline"},
                 {5, "triangle"},
                 {6, "triangle strip"},
                 {7, "polygon"},
                 {8, "pixel"},
                 {9, "quad"},
                 {10, "tetrahedron"},
                 {11, "voxel"},
                 {12, "hexahedron"},
                 {13, "wedge (prism)"},
                 {14, "pyramid"},
                 {15, "pentagonal prism"},
                 {16, "hexagonal prism"},
                 {21, "quadratic edge"},
                 {22, "quadratic triangle"},
                 {23, "quadratic quad"},
                 {24, "quadratic tetrahedron"},
                 {25, "quadratic hexahedron"},
                 {26, "quadratic wedge"},
                 {27, "quadratic pyramid"},
                 {28, "biquadratic quad"},
                 {29, "triquadratic hexahedron"},
                 {30, "quadratic-linear quad"},
                 {31, "quadratic-linear wedge"},
                 {32, "biquadratic-quadratic wedge"},
                 {33, "biquadratic-quadratic hexahedron"},
                 {34, "biquadratic triangle"},
                 {35, "cubic line"},
                 {36, "quadratic polygon"},
                 {41, "convex point set"},
                 {42, "polyhedron"},
                 {68, "Lagrange curve"},
                 {69, "Lagrange triangle"},
                 {70, "Lagrange quadrilateral"},
                 {71, "Lagrange tetrahedron"},
                 {72, "Lagrange hexahedron"},
                 {73, "Lagrange wedge"},
                 {74, "Lagrange pyramid"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (names[i].type == t) return names[i].name;
    return NULL;
}

/* Cell arrays kept, by name (case-insensitive). */
int hs_vtk_is_region_name(const char *s)
{
    static const char *names[] = {"region", "regions",      "tag",          "material",
                                  "elemTag", "gmsh:physical", "CellEntityIds"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (strcasecmp(s, names[i]) == 0) return 1;
    return 0;
}

int hs_vtk_is_fiber_name(const char *s)
{
    return strcasecmp(s, "fiber") == 0 || strcasecmp(s, "fibers") == 0 ||
           strcasecmp(s, "fibre") == 0 || strcasecmp(s, "fibres") == 0;
}


/* ---- value types ---------------------------------------------------------------------------- */

static const struct {
    const char *name;
    int size, is_int, is_signed;
} k_types[] = {{"Int8", 1, 1, 1},   {"UInt8", 1, 1, 0},  {"Int16", 2, 1, 1},
               {"UInt16", 2, 1, 0}, {"Int32", 4, 1, 1},  {"UInt32", 4, 1, 0},
               {"Int64", 8, 1, 1},  {"UInt64", 8, 1, 0}, {"Float32", 4, 0, 1},
               {"Float64", 8, 0, 1}};
enum { N_TYPES = sizeof k_types / sizeof k_types[0] };

const char *hs_vtkx_type_name(int type) { return type >= 0 && type < N_TYPES ? k_types[type].name : "?"; }
int hs_vtkx_type_is_int(int type) { return type >= 0 && type < N_TYPES && k_types[type].is_int; }

static int find_type(const char *s)
{
    for (int i = 0; i < N_TYPES; ++i)
        if (strcmp(s, k_types[i].name) == 0) return i;
    /* older writers: Int/UInt without size are not written by VTK; "Float" neither */
    return -1;
}

/* ---- parsing -------------------------------------------------------------------------------- */

typedef struct parse_ctx {
    hs_vtkx_file *f;
    XML_Parser xp;
    hs_status st;         /* first error; the parser is stopped on it */
    int depth;
    int in_file, in_piece;
    hs_vtkx_section section; /* of the element being inside */
    int section_depth;
    long array;           /* index of the DataArray being read, -1 none */
    int array_depth;
} parse_ctx;

static const char *attr(const XML_Char **a, const char *name)
{
    for (int i = 0; a[i]; i += 2)
        if (strcmp(a[i], name) == 0) return a[i + 1];
    return NULL;
}

static void stop(parse_ctx *c, hs_status st)
{
    if (c->st == HS_OK) c->st = st;
    XML_StopParser(c->xp, XML_FALSE);
}

static long cur_line(parse_ctx *c) { return (long)XML_GetCurrentLineNumber(c->xp); }

/* A count attribute of Piece: integer in 0..INT32_MAX, or absent (-1). */
static hs_status count_attr(parse_ctx *c, const XML_Char **a, const char *name, long long *v)
{
    const char *s = attr(a, name);
    *v = -1;
    if (!s) return HS_OK;
    char *end = NULL;
    errno = 0;
    const long long x = strtoll(s, &end, 10);
    while (end && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')) ++end;
    HS_CHECK(errno == 0 && end != s && *end == '\0' && x >= 0 && x <= INT32_MAX, HS_ERR_MESH,
             "%s:%ld: Piece %s=\"%.40s\" is not a count in 0..2147483647", c->f->path, cur_line(c),
             name, s);
    *v = x;
    return HS_OK;
}

static hs_status on_vtkfile(parse_ctx *c, const XML_Char **a)
{
    hs_vtkx_file *f = c->f;
    const char *type = attr(a, "type"), *bo = attr(a, "byte_order"), *ht = attr(a, "header_type");
    const char *comp = attr(a, "compressor");
    HS_CHECK(type != NULL, HS_ERR_MESH, "%s:%ld: VTKFile has no type attribute", f->path, cur_line(c));
    snprintf(f->dataset, sizeof f->dataset, "%s", type);
    if (bo) {
        HS_CHECK(strcmp(bo, "LittleEndian") == 0 || strcmp(bo, "BigEndian") == 0, HS_ERR_MESH,
                 "%s:%ld: byte_order=\"%.40s\"; expected LittleEndian or BigEndian", f->path,
                 cur_line(c), bo);
        f->big_endian = strcmp(bo, "BigEndian") == 0;
    }
    if (ht) {
        HS_CHECK(strcmp(ht, "UInt32") == 0 || strcmp(ht, "UInt64") == 0, HS_ERR_MESH,
                 "%s:%ld: header_type=\"%.40s\"; expected UInt32 or UInt64", f->path, cur_line(c), ht);
        f->header64 = strcmp(ht, "UInt64") == 0;
    }
    if (comp && comp[0]) {
        HS_CHECK(strcmp(comp, "vtkZLibDataCompressor") == 0, HS_ERR_MESH,
                 "%s:%ld: compressor=\"%.60s\" is not read; heartsim reads uncompressed files and "
                 "vtkZLibDataCompressor (ParaView: save with Data Mode Binary/Appended and "
                 "Compressor Type ZLib or None)",
                 f->path, cur_line(c), comp);
        f->zlib = 1;
    }
    return HS_OK;
}

static hs_status on_array(parse_ctx *c, const XML_Char **a)
{
    hs_vtkx_file *f = c->f;
    const long line = cur_line(c);
    HS_CALL(hs_grow_array((void **)&f->arr, &f->cap_arr, f->n_arr + 1, sizeof *f->arr, "DataArrays"));
    hs_vtkx_array *d = &f->arr[f->n_arr];
    memset(d, 0, sizeof *d);
    d->section = c->section;
    d->line = line;
    const char *name = attr(a, "Name"), *type = attr(a, "type"), *nc = attr(a, "NumberOfComponents");
    const char *fmt = attr(a, "format"), *off = attr(a, "offset");
    snprintf(d->name, sizeof d->name, "%s", name ? name : "");
    HS_CHECK(type != NULL, HS_ERR_MESH, "%s:%ld: DataArray \"%s\" has no type attribute", f->path, line,
             d->name);
    d->type = find_type(type);
    HS_CHECK(d->type >= 0, HS_ERR_MESH,
             "%s:%ld: DataArray \"%s\": type \"%.20s\" is not read (Int8..Int64, UInt8..UInt64, "
             "Float32, Float64 are)",
             f->path, line, d->name, type);
    d->ncomp = 1;
    if (nc) {
        char *end = NULL;
        const long v = strtol(nc, &end, 10);
        HS_CHECK(end != nc && *end == '\0' && v >= 1 && v <= 4096, HS_ERR_MESH,
                 "%s:%ld: DataArray \"%s\": NumberOfComponents=\"%.20s\"; expected 1 to 4096",
                 f->path, line, d->name, nc);
        d->ncomp = (int)v;
    }
    HS_CHECK(fmt != NULL, HS_ERR_MESH, "%s:%ld: DataArray \"%s\" has no format attribute", f->path,
             line, d->name);
    if (strcmp(fmt, "ascii") == 0)
        d->format = 0;
    else if (strcmp(fmt, "binary") == 0)
        d->format = 1;
    else if (strcmp(fmt, "appended") == 0)
        d->format = 2;
    else
        return HS_FAIL(HS_ERR_MESH,
                       "%s:%ld: DataArray \"%s\": format \"%.20s\"; expected ascii, binary or appended",
                       f->path, line, d->name, fmt);
    if (d->format == 2) {
        char *end = NULL;
        errno = 0;
        const unsigned long long v = off ? strtoull(off, &end, 10) : 0;
        HS_CHECK(off && errno == 0 && end != off && *end == '\0' && off[0] != '-', HS_ERR_MESH,
                 "%s:%ld: DataArray \"%s\" is appended but its offset=\"%.20s\" is not a number",
                 f->path, line, d->name, off ? off : "");
        d->offset = v;
    }
    ++f->n_arr;
    return HS_OK;
}

static hs_vtkx_section section_of(const char *el)
{
    static const struct { const char *name; hs_vtkx_section s; } k[] = {
        {"Points", HS_VTKX_POINTS}, {"Cells", HS_VTKX_CELLS},         {"Verts", HS_VTKX_VERTS},
        {"Lines", HS_VTKX_LINES},   {"Polys", HS_VTKX_POLYS},         {"Strips", HS_VTKX_STRIPS},
        {"PointData", HS_VTKX_POINT_DATA}, {"CellData", HS_VTKX_CELL_DATA}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; ++i)
        if (strcmp(el, k[i].name) == 0) return k[i].s;
    return HS_VTKX_OTHER;
}

static void XMLCALL on_start(void *ud, const XML_Char *el, const XML_Char **a)
{
    parse_ctx *c = ud;
    hs_vtkx_file *f = c->f;
    hs_status st = HS_OK;
    ++c->depth;
    if (c->depth == 1) {
        if (strcmp(el, "VTKFile") != 0) {
            st = HS_FAIL(HS_ERR_MESH, "%s:%ld: the root element is <%.40s>; an XML VTK file starts "
                         "with <VTKFile>", f->path, cur_line(c), el);
        } else {
            c->in_file = 1;
            st = on_vtkfile(c, a);
        }
    } else if (strcmp(el, "Piece") == 0) {
        ++f->n_pieces;
        if (f->n_pieces > 1) {
            st = HS_FAIL(HS_ERR_MESH, "%s:%ld: the file has several Pieces; heartsim reads one "
                         "(ParaView: Filters > Merge Blocks, then save again)", f->path, cur_line(c));
        } else {
            c->in_piece = 1;
            st = count_attr(c, a, "NumberOfPoints", &f->n_points);
            if (st == HS_OK) st = count_attr(c, a, "NumberOfCells", &f->n_cells);
            if (st == HS_OK) st = count_attr(c, a, "NumberOfVerts", &f->n_verts);
            if (st == HS_OK) st = count_attr(c, a, "NumberOfLines", &f->n_lines);
            if (st == HS_OK) st = count_attr(c, a, "NumberOfPolys", &f->n_polys);
            if (st == HS_OK) st = count_attr(c, a, "NumberOfStrips", &f->n_strips);
        }
    } else if (strcmp(el, "DataArray") == 0) {
        if (c->array < 0) {
            st = on_array(c, a);
            c->array = (long)f->n_arr - 1;
            c->array_depth = c->depth;
        }
    } else if (strcmp(el, "AppendedData") == 0) {
        const char *enc = attr(a, "encoding");
        if (enc && strcmp(enc, "raw") != 0 && strcmp(enc, "base64") != 0)
            st = HS_FAIL(HS_ERR_MESH, "%s:%ld: AppendedData encoding=\"%.20s\"; expected raw or base64",
                         f->path, cur_line(c), enc);
        f->appended_base64 = enc && strcmp(enc, "base64") == 0;
    } else if (c->in_piece && c->array < 0) {
        const hs_vtkx_section s = section_of(el);
        if (s != HS_VTKX_OTHER && c->section == HS_VTKX_OTHER) {
            c->section = s;
            c->section_depth = c->depth;
        }
    }
    if (st != HS_OK) stop(c, st);
}

static void XMLCALL on_end(void *ud, const XML_Char *el)
{
    parse_ctx *c = ud;
    (void)el;
    if (c->array >= 0 && c->depth == c->array_depth) c->array = -1;
    if (c->section != HS_VTKX_OTHER && c->depth == c->section_depth) c->section = HS_VTKX_OTHER;
    if (strcmp(el, "Piece") == 0) c->in_piece = 0;
    --c->depth;
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
    parse_ctx *c = ud;
    /* only the DataArray's own text: VTK writes <InformationKey> children (ranges) inside it */
    if (c->array < 0 || len <= 0 || c->depth != c->array_depth) return;
    hs_vtkx_array *d = &c->f->arr[c->array];
    if (d->len == 0) { /* leading whitespace of the text is not kept */
        while (len > 0 && (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')) ++s, --len;
        if (len == 0) return;
    }
    hs_status st = hs_grow_array((void **)&d->text, &d->cap, d->len + (size_t)len + 1, 1,
                                 "DataArray text");
    if (st != HS_OK) {
        stop(c, st);
        return;
    }
    memcpy(d->text + d->len, s, (size_t)len);
    d->len += (size_t)len;
    d->text[d->len] = '\0';
}

static hs_status slurp(const char *path, unsigned char **buf, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    HS_CHECK(fp != NULL, HS_ERR_MESH, "cannot open mesh file '%s': %s", path, strerror(errno));
    size_t cap = 0, n = 0;
    hs_status st = HS_OK;
    *buf = NULL;
    for (;;) {
        HS_CALL_GOTO(hs_grow_array((void **)buf, &cap, n + 65536 + 1, 1, "file contents"), done);
        const size_t got = fread(*buf + n, 1, cap - n - 1, fp);
        n += got;
        if (got == 0) break;
    }
    HS_CHECK_GOTO(!ferror(fp), done, HS_ERR_MESH, "%s: read error", path);
    (*buf)[n] = '\0';
    *size = n;
done:
    fclose(fp);
    if (st != HS_OK) {
        free(*buf);
        *buf = NULL;
    }
    return st;
}

/* First occurrence of needle in buf[from, to), or to. */
static size_t find(const unsigned char *buf, size_t from, size_t to, const char *needle)
{
    const size_t n = strlen(needle);
    for (size_t i = from; i + n <= to; ++i)
        if (buf[i] == (unsigned char)needle[0] && memcmp(buf + i, needle, n) == 0) return i;
    return to;
}

hs_status hs_vtkx_read(const char *path, const char *dataset, const char *hint, hs_vtkx_file **out)
{
    HS_CHECK(out != NULL, HS_ERR_INTERNAL, "hs_vtkx_read: out is NULL");
    *out = NULL;
    hs_vtkx_file *f = NULL;
    hs_status st = HS_OK;
    parse_ctx c;
    memset(&c, 0, sizeof c);
    c.array = -1;
    HS_CALL(HS_ALLOC(f, 1, "XML VTK file"));
    f->path = path;
    f->n_points = f->n_cells = f->n_verts = f->n_lines = f->n_polys = f->n_strips = -1;
    HS_CALL_GOTO(slurp(path, &f->buf, &f->size), done);

    /* The XML ends where appended data starts: its start tag, then '_' and raw bytes. */
    size_t xml_len = f->size;
    const size_t app = find(f->buf, 0, f->size, "<AppendedData");
    if (app < f->size) {
        size_t gt = app;
        while (gt < f->size && f->buf[gt] != '>') ++gt;
        HS_CHECK_GOTO(gt < f->size, done, HS_ERR_MESH, "%s: the AppendedData start tag is not closed",
                      path);
        size_t u = gt + 1;
        while (u < f->size && (f->buf[u] == ' ' || f->buf[u] == '\n' || f->buf[u] == '\r' || f->buf[u] == '\t'))
            ++u;
        HS_CHECK_GOTO(u < f->size && f->buf[u] == '_', done, HS_ERR_MESH,
                      "%s: AppendedData must start with '_' (the VTK marker before the data)", path);
        f->have_appended = 1;
        f->appended_start = u + 1;
        f->appended_end = f->size;
        xml_len = gt + 1;
    }

    c.f = f;
    c.xp = XML_ParserCreate(NULL);
    HS_CHECK_GOTO(c.xp != NULL, done, HS_ERR_MEMORY, "%s: cannot create the XML parser", path);
    XML_SetUserData(c.xp, &c);
    XML_SetElementHandler(c.xp, on_start, on_end);
    XML_SetCharacterDataHandler(c.xp, on_text);
    static const char close_tags[] = "</AppendedData></VTKFile>";
    int ok = xml_len <= INT32_MAX &&
             XML_Parse(c.xp, (const char *)f->buf, (int)xml_len, !f->have_appended) != XML_STATUS_ERROR;
    if (ok && f->have_appended)
        ok = XML_Parse(c.xp, close_tags, (int)strlen(close_tags), 1) != XML_STATUS_ERROR;
    if (c.st != HS_OK) {
        st = c.st;
        goto done;
    }
    HS_CHECK_GOTO(ok, done, HS_ERR_MESH, "%s:%lu: not a well-formed XML VTK file: %s", path,
                  (unsigned long)XML_GetCurrentLineNumber(c.xp), XML_ErrorString(XML_GetErrorCode(c.xp)));
    if (f->have_appended && f->appended_base64) {
        f->appended_end = find(f->buf, f->appended_start, f->size, "</AppendedData");
    }
    HS_CHECK_GOTO(c.in_file, done, HS_ERR_MESH, "%s: no <VTKFile> element", path);
    HS_CHECK_GOTO(strcmp(f->dataset, dataset) == 0, done, HS_ERR_MESH,
                  "%s: VTKFile type=\"%.30s\" is not read here; expected %s%s", path, f->dataset,
                  dataset, hint ? hint : "");
    HS_CHECK_GOTO(f->n_pieces == 1, done, HS_ERR_MESH, "%s: no <Piece> in the %s", path, dataset);
    HS_CHECK_GOTO(f->n_points >= 0, done, HS_ERR_MESH, "%s: Piece has no NumberOfPoints", path);
    *out = f;
    f = NULL;
done:
    if (c.xp) XML_ParserFree(c.xp);
    hs_vtkx_destroy(&f);
    return st;
}

void hs_vtkx_destroy(hs_vtkx_file **pf)
{
    if (!pf || !*pf) return;
    hs_vtkx_file *f = *pf;
    for (size_t i = 0; i < f->n_arr; ++i) free(f->arr[i].text);
    free(f->arr);
    free(f->buf);
    free(f);
    *pf = NULL;
}

const hs_vtkx_array *hs_vtkx_find(const hs_vtkx_file *f, hs_vtkx_section section,
                                  int (*pick)(const char *name))
{
    for (size_t i = 0; i < f->n_arr; ++i)
        if (f->arr[i].section == section && (!pick || pick(f->arr[i].name))) return &f->arr[i];
    return NULL;
}

const hs_vtkx_array *hs_vtkx_find_name(const hs_vtkx_file *f, hs_vtkx_section section,
                                       const char *name)
{
    for (size_t i = 0; i < f->n_arr; ++i)
        if (f->arr[i].section == section && strcmp(f->arr[i].name, name) == 0) return &f->arr[i];
    return NULL;
}

/* ---- byte sources: raw bytes, or base64 text --------------------------------------------- */

typedef struct source {
    const unsigned char *p, *end; /* raw bytes, or base64 characters */
    int base64;
    unsigned char pend[3];        /* decoded bytes not yet handed out */
    int n_pend, i_pend;
} source;

static int b64_value(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+') return 62;
    if (ch == '/') return 63;
    return -1;
}

/* Decode the next group of 4 base64 characters (whitespace skipped) into s->pend. Padding ('=')
 * ends a run; the next group starts a new one, as VTK writes header and data as separate runs.
 * 0 at the end of the text, -1 on a bad character. */
static int b64_group(source *s)
{
    int v[4], n = 0, pad = 0;
    while (n < 4) {
        while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t')) ++s->p;
        if (s->p >= s->end) return n == 0 ? 0 : -1;
        const unsigned char ch = *s->p++;
        if (ch == '=' && n >= 2) {
            v[n++] = 0;
            ++pad;
            continue;
        }
        if (pad) return -1; /* data after '=' inside a group */
        v[n] = b64_value(ch);
        if (v[n] < 0) return -1;
        ++n;
    }
    const uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
    s->pend[0] = (unsigned char)(w >> 16);
    s->pend[1] = (unsigned char)(w >> 8);
    s->pend[2] = (unsigned char)w;
    s->n_pend = 3 - pad;
    s->i_pend = 0;
    return 1;
}

/* Bytes the source can still give at most (exact for raw, an upper bound for base64). */
static size_t src_left(const source *s)
{
    const size_t chars = (size_t)(s->end - s->p);
    return (size_t)(s->n_pend - s->i_pend) + (s->base64 ? chars / 4 * 3 + 3 : chars);
}

/* Read n bytes; *got = how many were there (< n: the data ended). -1 on bad base64. */
static int src_read(source *s, unsigned char *out, size_t n, size_t *got)
{
    *got = 0;
    if (!s->base64) {
        const size_t k = (size_t)(s->end - s->p) < n ? (size_t)(s->end - s->p) : n;
        memcpy(out, s->p, k);
        s->p += k;
        *got = k;
        return 0;
    }
    while (*got < n) {
        if (s->i_pend == s->n_pend) {
            const int r = b64_group(s);
            if (r <= 0) return r;
        }
        out[(*got)++] = s->pend[s->i_pend++];
    }
    return 0;
}

/* ---- decoding -------------------------------------------------------------------------------- */

static uint64_t word(const unsigned char *b, int size, int big)
{
    uint64_t u = 0;
    for (int k = 0; k < size; ++k) u |= (uint64_t)b[big ? size - 1 - k : k] << (8 * k);
    return u;
}

/* Read one header word. */
static hs_status header_word(const hs_vtkx_file *f, const hs_vtkx_array *a, source *s,
                             const char *what, uint64_t *v)
{
    unsigned char b[8];
    const int size = f->header64 ? 8 : 4;
    size_t got;
    const int r = src_read(s, b, (size_t)size, &got);
    HS_CHECK(r == 0, HS_ERR_MESH, "%s:%ld: DataArray \"%s\": invalid base64 data", f->path, a->line,
             a->name);
    HS_CHECK(got == (size_t)size, HS_ERR_MESH,
             "%s:%ld: DataArray \"%s\": the data ends inside its header (%s)", f->path, a->line,
             a->name, what);
    *v = word(b, size, f->big_endian);
    return HS_OK;
}

/* The array's bytes (header read, blocks inflated): *bytes new buffer of *nbytes. */
static hs_status binary_bytes(const hs_vtkx_file *f, const hs_vtkx_array *a, unsigned char **bytes,
                              size_t *nbytes)
{
    source s;
    memset(&s, 0, sizeof s);
    *bytes = NULL;
    if (a->format == 1) {
        s.p = (const unsigned char *)(a->text ? a->text : "");
        s.end = s.p + a->len;
        s.base64 = 1;
    } else {
        HS_CHECK(f->have_appended, HS_ERR_MESH,
                 "%s:%ld: DataArray \"%s\" is appended but the file has no AppendedData", f->path,
                 a->line, a->name);
        const size_t avail = f->appended_end - f->appended_start;
        HS_CHECK(a->offset <= avail, HS_ERR_MESH,
                 "%s:%ld: DataArray \"%s\": offset %llu is past the end of the appended data (%zu "
                 "bytes)",
                 f->path, a->line, a->name, (unsigned long long)a->offset, avail);
        s.p = f->buf + f->appended_start + a->offset;
        s.end = f->buf + f->appended_end;
        s.base64 = f->appended_base64;
    }
    hs_status st = HS_OK;
    unsigned char *out = NULL, *zbuf = NULL;
    uint64_t *csize = NULL;
    if (!f->zlib) {
        uint64_t n;
        HS_CALL(header_word(f, a, &s, "number of bytes", &n));
        HS_CHECK(n <= src_left(&s), HS_ERR_MESH,
                 "%s:%ld: DataArray \"%s\": the header announces %llu bytes, but only %zu follow",
                 f->path, a->line, a->name, (unsigned long long)n, src_left(&s));
        HS_CALL(HS_ALLOC(out, n + 1, "DataArray bytes"));
        size_t got;
        const int r = src_read(&s, out, (size_t)n, &got);
        HS_CHECK_GOTO(r == 0, done, HS_ERR_MESH, "%s:%ld: DataArray \"%s\": invalid base64 data",
                      f->path, a->line, a->name);
        HS_CHECK_GOTO(got == n, done, HS_ERR_MESH,
                      "%s:%ld: DataArray \"%s\": the header announces %llu bytes, but only %zu follow",
                      f->path, a->line, a->name, (unsigned long long)n, got);
        *nbytes = (size_t)n;
    } else {
        uint64_t nb, bs, last;
        HS_CALL(header_word(f, a, &s, "number of blocks", &nb));
        HS_CALL(header_word(f, a, &s, "block size", &bs));
        HS_CALL(header_word(f, a, &s, "last block size", &last));
        /* every block costs at least one header word in the file */
        HS_CHECK(nb <= src_left(&s) / 4 + 1, HS_ERR_MESH,
                 "%s:%ld: DataArray \"%s\": %llu compressed blocks announced, more than the data holds",
                 f->path, a->line, a->name, (unsigned long long)nb);
        HS_CHECK(last <= bs && bs <= (UINT64_C(1) << 32) && (nb > 0 || last == 0), HS_ERR_MESH,
                 "%s:%ld: DataArray \"%s\": compression header: block size %llu, last block %llu "
                 "(expected last <= block size <= 2^32)",
                 f->path, a->line, a->name, (unsigned long long)bs, (unsigned long long)last);
        const uint64_t total = nb == 0 ? 0 : (nb - 1) * bs + (last ? last : bs);
        HS_CALL(HS_ALLOC(csize, nb + 1, "compressed block sizes"));
        uint64_t csum = 0;
        for (uint64_t k = 0; k < nb; ++k) {
            HS_CALL_GOTO(header_word(f, a, &s, "compressed block size", &csize[k]), done);
            csum += csize[k] < src_left(&s) ? csize[k] : src_left(&s) + 1;
        }
        HS_CHECK_GOTO(csum <= src_left(&s), done, HS_ERR_MESH,
                      "%s:%ld: DataArray \"%s\": the compressed blocks add up to more bytes than "
                      "follow (%zu)",
                      f->path, a->line, a->name, src_left(&s));
        /* zlib's ratio is at most about 1032:1: a larger total is a broken header */
        HS_CHECK_GOTO(total <= 1100 * (csum + 64), done, HS_ERR_MESH,
                      "%s:%ld: DataArray \"%s\": %llu bytes announced from %llu compressed ones",
                      f->path, a->line, a->name, (unsigned long long)total, (unsigned long long)csum);
        HS_CALL_GOTO(HS_ALLOC(out, total + 1, "DataArray bytes"), done);
        uint64_t pos = 0;
        for (uint64_t k = 0; k < nb; ++k) {
            const uint64_t want = k + 1 == nb && last ? last : bs;
            free(zbuf);
            zbuf = NULL;
            HS_CALL_GOTO(HS_ALLOC(zbuf, csize[k] + 1, "compressed block"), done);
            size_t got;
            const int r = src_read(&s, zbuf, (size_t)csize[k], &got);
            HS_CHECK_GOTO(r == 0 && got == csize[k], done, HS_ERR_MESH,
                          "%s:%ld: DataArray \"%s\": compressed block %llu is cut short or not "
                          "valid base64",
                          f->path, a->line, a->name, (unsigned long long)k);
            uLongf dlen = (uLongf)want;
            const int zr = uncompress(out + pos, &dlen, zbuf, (uLong)csize[k]);
            HS_CHECK_GOTO(zr == Z_OK && dlen == want, done, HS_ERR_MESH,
                          "%s:%ld: DataArray \"%s\": zlib block %llu of %llu does not inflate to "
                          "%llu bytes (%s)",
                          f->path, a->line, a->name, (unsigned long long)k, (unsigned long long)nb,
                          (unsigned long long)want, zr == Z_OK ? "size differs" : zError(zr));
            pos += want;
        }
        *nbytes = (size_t)total;
    }
    *bytes = out;
    out = NULL;
done:
    free(out);
    free(zbuf);
    free(csize);
    return st;
}

static hs_status decode(const hs_vtkx_file *f, const hs_vtkx_array *a, long long expect,
                        int want_int, hs_vtkx_values *v)
{
    memset(v, 0, sizeof *v);
    const int t = a->type, size = k_types[t].size;
    const int is_int = k_types[t].is_int;
    v->is_int = is_int || want_int;
    hs_status st = HS_OK;
    unsigned char *bytes = NULL;
    size_t n = 0;
    if (a->format == 0) {
        /* count the tokens first: never allocate more than the text holds */
        const char *p = a->text ? a->text : "";
        for (const char *q = p; *q;) {
            while (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t') ++q;
            if (!*q) break;
            ++n;
            while (*q && !(*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t')) ++q;
        }
    } else {
        HS_CALL(binary_bytes(f, a, &bytes, &n));
        HS_CHECK_GOTO(n % (size_t)size == 0, done, HS_ERR_MESH,
                      "%s:%ld: DataArray \"%s\": %zu bytes is not a whole number of %s values",
                      f->path, a->line, a->name, n, k_types[t].name);
        n /= (size_t)size;
    }
    HS_CHECK_GOTO(expect < 0 || n == (size_t)expect, done, HS_ERR_MESH,
                  "%s:%ld: DataArray \"%s\" holds %zu values; expected %lld", f->path, a->line,
                  a->name, n, expect);
    if (v->is_int)
        HS_CALL_GOTO(HS_ALLOC(v->i, n + 1, "DataArray values"), done);
    else
        HS_CALL_GOTO(HS_ALLOC(v->d, n + 1, "DataArray values"), done);
    v->n = n;
    char *q = a->text;
    for (size_t k = 0; k < n; ++k) {
        int64_t iv = 0;
        double dv = 0.0;
        if (a->format == 0) {
            while (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t') ++q;
            char *end = NULL;
            errno = 0;
            if (is_int && k_types[t].is_signed) {
                iv = strtoll(q, &end, 10);
            } else if (is_int) {
                if (*q == '-') end = q;
                else iv = (int64_t)strtoull(q, &end, 10);
                if (end != q && iv < 0) errno = ERANGE;
            } else {
                dv = strtod(q, &end);
            }
            const int bad = end == q || !(*end == '\0' || *end == ' ' || *end == '\n' ||
                                          *end == '\r' || *end == '\t');
            HS_CHECK_GOTO(!bad && (errno == 0 || !is_int), done, HS_ERR_MESH,
                          "%s:%ld: DataArray \"%s\": value %zu '%.30s' is not a%s %s", f->path,
                          a->line, a->name, k, q, is_int ? "n" : "", k_types[t].name);
            q = end;
        } else {
            const uint64_t u = word(bytes + k * (size_t)size, size, f->big_endian);
            if (!is_int) {
                if (size == 4) {
                    uint32_t w = (uint32_t)u;
                    float x;
                    memcpy(&x, &w, 4);
                    dv = x;
                } else {
                    memcpy(&dv, &u, 8);
                }
            } else if (k_types[t].is_signed) {
                const int sh = 64 - 8 * size;
                iv = sh ? (int64_t)(u << sh) >> sh : (int64_t)u;
            } else {
                HS_CHECK_GOTO(u <= (uint64_t)INT64_MAX, done, HS_ERR_MESH,
                              "%s:%ld: DataArray \"%s\": value %zu is too large", f->path, a->line,
                              a->name, k);
                iv = (int64_t)u;
            }
        }
        if (!is_int) {
            HS_CHECK_GOTO(isfinite(dv), done, HS_ERR_MESH,
                          "%s:%ld: DataArray \"%s\": value %zu is not finite", f->path, a->line,
                          a->name, k);
            if (want_int) {
                HS_CHECK_GOTO(dv == floor(dv) && fabs(dv) < 9.0e15, done, HS_ERR_MESH,
                              "%s:%ld: DataArray \"%s\": value %zu (%.17g) is not an integer",
                              f->path, a->line, a->name, k, dv);
                iv = (int64_t)dv;
            }
        }
        if (v->is_int)
            v->i[k] = iv;
        else
            v->d[k] = dv;
    }
done:
    free(bytes);
    if (st != HS_OK) hs_vtkx_values_free(v);
    return st;
}

hs_status hs_vtkx_decode(const hs_vtkx_file *f, const hs_vtkx_array *a, long long expect,
                         hs_vtkx_values *v)
{
    return decode(f, a, expect, 0, v);
}

hs_status hs_vtkx_decode_int(const hs_vtkx_file *f, const hs_vtkx_array *a, long long expect,
                             hs_vtkx_values *v)
{
    return decode(f, a, expect, 1, v);
}

void hs_vtkx_values_free(hs_vtkx_values *v)
{
    free(v->i);
    free(v->d);
    memset(v, 0, sizeof *v);
}

hs_status hs_vtkx_cells(const hs_vtkx_file *f, hs_vtkx_section section, const char *what,
                        long long n, hs_vtkx_values *conn, hs_vtkx_values *off)
{
    memset(conn, 0, sizeof *conn);
    memset(off, 0, sizeof *off);
    const hs_vtkx_array *ac = hs_vtkx_find_name(f, section, "connectivity");
    const hs_vtkx_array *ao = hs_vtkx_find_name(f, section, "offsets");
    HS_CHECK(ac && ao, HS_ERR_MESH, "%s: <%s> needs DataArrays \"connectivity\" and \"offsets\"",
             f->path, what);
    hs_status st = HS_OK;
    HS_CALL_GOTO(hs_vtkx_decode_int(f, ao, n, off), done);
    HS_CALL_GOTO(hs_vtkx_decode_int(f, ac, -1, conn), done);
    int64_t prev = 0;
    for (long long c = 0; c < n; ++c) {
        HS_CHECK_GOTO(off->i[c] >= prev && (uint64_t)off->i[c] <= conn->n, done, HS_ERR_MESH,
                      "%s:%ld: offsets: cell %lld ends at %lld, before the previous one (%lld) or "
                      "past the %zu connectivity entries",
                      f->path, ao->line, c, (long long)off->i[c], (long long)prev, conn->n);
        prev = off->i[c];
    }
    for (size_t k = 0; k < (size_t)prev; ++k)
        HS_CHECK_GOTO(conn->i[k] >= 0 && conn->i[k] < f->n_points, done, HS_ERR_MESH,
                      "%s:%ld: connectivity entry %zu is point %lld; the file has %lld points "
                      "(0-based: 0..%lld)",
                      f->path, ac->line, k, (long long)conn->i[k], f->n_points, f->n_points - 1);
done:
    if (st != HS_OK) {
        hs_vtkx_values_free(conn);
        hs_vtkx_values_free(off);
    }
    return st;
}
