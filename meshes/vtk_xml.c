/* XML VTK files (vtk_xml.h): the file parsed with expat into a list of DataArrays (their decoding:
 * vtk_xml_decode.c). Raw appended data is not XML: expat parses up to the AppendedData start tag,
 * then the tags are closed for it, and the bytes after '_' are kept for the decoder. */
#define _POSIX_C_SOURCE 200809L
#include "vtk_xml.h"

#include <errno.h>
#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_text_reader.h"
#include "hs_util.h"

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
    d->type = hs_vtkx_type_find(type);
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
