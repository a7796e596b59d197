/* A line-based volume mesh read in blocks, each part of a run reading its own byte range of each
 * file (hs_mesh_block.h; issue 26: no rank holds the whole mesh).
 *
 * Phase 1 (hs_mesh_block_open), in every part: the headers are read with the whole-file readers'
 * parsers (mesh_read_lines.h), so a bad header fails every part with the whole reader's message;
 * for TetGen also the first point line, which sets the numbering base (0 or 1) the .ele lines are
 * checked against. Each file's data (the bytes after its header; for a .lon without header, from
 * its first data line) is cut into n_parts equal byte ranges, each start moved forward to the
 * next line start, so the ranges tile the data with no line split; every part finds both ends of
 * its own range the same way, so neighbours agree without talking. The part then counts, in
 * bounded chunks (pread, CHUNK bytes), the lines of its range and the data lines among them: a
 * line with a character that is not white space (before '#' in TetGen files), the lines
 * hs_text_reader_next returns.
 *
 * Phase 2 (hs_mesh_block_read): the caller's exclusive prefix sum of the counts gives each item's
 * index in the whole file and each line's number; the range is read with hs_text_reader (line by
 * line, through stdio's buffer) starting at that line number and every data line is parsed by the
 * whole reader's line parser with that index, so messages name the same file:line. Every line of
 * the range is read (blank and comment lines too: the NUL-byte check). An item past the header's
 * count is "unexpected data" in whichever part holds it; the last part also reads to the end of
 * the file and says when it ended early. Errors are checked file by file (nodes, elements,
 * fibres), as the whole reader does; across parts, the part holding the earliest bad line of the
 * first bad file reports what the whole reader would (the caller chooses which part's message to
 * show).
 *
 * Threads: a part's range of each file is cut again, the same way, into one piece per OpenMP thread
 * (omp_get_max_threads() at open: the rank's threads), each counted in phase 1 and parsed in phase 2
 * on a thread, with its own stream and its first item and line from the pieces before it. Every piece
 * stops at its first bad line and the first piece that failed is reported (its error moved from its
 * thread's record to the caller's): the range's first bad line, the message one thread would give.
 * The arrays do not depend on the number of pieces. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "hs_mesh_block.h"
#include "hs_surface.h"
#include "hs_text_reader.h"
#include "hs_util.h"
#include "mesh_path.h"
#include "mesh_read_internal.h"
#include "mesh_read_lines.h"

/* Bytes read at a time in phase 1 (counting, finding line starts; each thread its own buffer). */
#define CHUNK ((size_t)1 << 20)
/* stdio buffer of a phase-2 stream. */
#define STREAM_BUF ((size_t)1 << 20)

enum { FMT_OPENCARP, FMT_TETGEN };
enum { F_NODES, F_ELEMS, F_FIBERS, N_FILES };

typedef struct blk_file {
    char *path;        /* owned */
    int present;       /* the .lon may be absent; the others are always present */
    const char *what;  /* format name in the text reader's messages */
    char comment;      /* comment character, 0 for none */
    long head_lines;   /* lines before the data (header, leading blank or comment lines) */
    int64_t data0;     /* byte offset of the data */
    int64_t lo, hi;    /* this part's byte range of the file */
    int64_t items, lines; /* data lines and all lines in [lo, hi) */
    /* the range's pieces, one per thread, split at line starts as the parts split the file: piece j is
     * [slo[j], slo[j + 1]) with sitems[j] data lines of slines[j] lines */
    int64_t *slo, *sitems, *slines; /* [nsub + 1], [nsub], [nsub] */
} blk_file;

struct hs_mesh_block_reader {
    int fmt, part, n_parts;
    int nsub;                    /* pieces of each range, read by as many threads (the threads at open) */
    int linearize;               /* hs_mesh_read_opts */
    blk_file f[N_FILES];
    long long n_nodes, n_elems;  /* the headers' counts */
    long ndir;                   /* .lon: directions per line (1 or 2) */
    hs_tetgen_node_header nh;
    hs_tetgen_ele_header eh;
    int base;                    /* TetGen numbering base, from the first point line */
};

/* ---- which files --------------------------------------------------------------------------- */

static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* The format hs_mesh_read_file would read @p path in, and the file name its listed reader would
 * get (a bare PREFIX probed as the list says): 1 for openCARP/TetGen (*name: new string), else 0.
 * Mirrors hs_mesh_read_file's choice (mesh_read_file.c) through the same list. */
static int resolve(const char *path, int *fmt, char **name)
{
    *name = NULL;
    if (!path || !path[0]) return 0;
    const hs_registry *reg = hs_mesh_readers();
    const hs_mesh_reader *e = hs_registry_find_ext(reg, path);
    char *probe = NULL;
    if (!e) {
        if (hs_path_ext(path) && hs_registry_find_ext(hs_surface_readers(), path)) return 0;
        const size_t len = strlen(path);
        for (size_t i = 0; i < reg->count && !e; ++i) {
            const hs_mesh_reader *c = hs_registry_at(reg, i);
            if (!c->prefix_probe) continue;
            if (hs_path_with_ext(path, len, c->name, &probe) != HS_OK) {
                hs_error_clear();
                return 0;
            }
            if (is_file(probe))
                e = c;
            else
                HS_FREE(probe);
        }
        if (!e) return 0;
    }
    if (e->read == hs_mesh_read_opencarp_file)
        *fmt = FMT_OPENCARP;
    else if (e->read == hs_mesh_read_tetgen_file)
        *fmt = FMT_TETGEN;
    else {
        free(probe);
        return 0;
    }
    if (!probe) {
        const size_t len = strlen(path) + 1;
        probe = malloc(len);
        if (!probe) return 0;
        memcpy(probe, path, len);
    }
    *name = probe;
    return 1;
}

int hs_mesh_block_supports(const char *path)
{
    int fmt;
    char *name = NULL;
    const int ok = resolve(path, &fmt, &name);
    free(name);
    return ok;
}

/* ---- phase 1: byte ranges and counts -------------------------------------------------------- */

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static hs_status pread_full(int fd, const char *path, char *buf, size_t n, int64_t off,
                            size_t *got)
{
    *got = 0;
    while (*got < n) {
        const ssize_t k = pread(fd, buf + *got, n - *got, (off_t)(off + (int64_t)*got));
        if (k < 0 && errno == EINTR) continue;
        HS_CHECK(k >= 0, HS_ERR_IO, "%s: read error at byte %lld: %s", path,
                 (long long)(off + (int64_t)*got), strerror(errno));
        if (k == 0) break;
        *got += (size_t)k;
    }
    return HS_OK;
}

/* The first line start at or after @p b in [data0, size]: b itself when the byte before it ends a
 * line (or b is the data's start), else the byte after the next '\n' (size when there is none). */
static hs_status line_start(int fd, const blk_file *f, int64_t size, int64_t b, char *buf,
                            int64_t *out)
{
    if (b <= f->data0 || b >= size) {
        *out = b <= f->data0 ? f->data0 : size;
        return HS_OK;
    }
    int64_t pos = b - 1;
    while (pos < size) {
        size_t got;
        const size_t want = (size_t)65536 < (size_t)(size - pos) ? (size_t)65536 : (size_t)(size - pos);
        HS_CALL(pread_full(fd, f->path, buf, want, pos, &got));
        HS_CHECK(got > 0, HS_ERR_IO, "%s: file shorter than %lld bytes while reading it", f->path,
                 (long long)size);
        const char *nl = memchr(buf, '\n', got);
        if (nl) {
            *out = pos + (int64_t)(nl - buf) + 1;
            return HS_OK;
        }
        pos += (int64_t)got;
    }
    *out = size;
    return HS_OK;
}

/* Lines and data lines in [lo, hi) of @p f, which starts at a line start (see the file comment for what a data
 * line is). */
static hs_status count_range(int fd, const blk_file *f, int64_t lo, int64_t hi, char *buf, int64_t *n_items,
                             int64_t *n_lines)
{
    int64_t lines = 0, items = 0;
    int data = 0, skip = 0; /* the current line has data / its rest does not matter */
    unsigned char last = '\n';
    for (int64_t pos = lo; pos < hi;) {
        size_t got;
        const size_t want = CHUNK < (size_t)(hi - pos) ? CHUNK : (size_t)(hi - pos);
        HS_CALL(pread_full(fd, f->path, buf, want, pos, &got));
        HS_CHECK(got == want, HS_ERR_IO, "%s: file changed while it was read (ended at byte %lld)",
                 f->path, (long long)(pos + (int64_t)got));
        const char *p = buf, *end = buf + got;
        while (p < end) {
            if (skip) { /* data found or comment started: jump to the line's end */
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                if (!nl) {
                    p = end;
                    break;
                }
                p = nl;
            }
            const unsigned char c = (unsigned char)*p++;
            if (c == '\n') {
                ++lines;
                items += data;
                data = skip = 0;
            } else if (f->comment && c == (unsigned char)f->comment) {
                skip = 1;
            } else if (!is_space(c)) {
                data = skip = 1;
            }
        }
        last = (unsigned char)end[-1];
        pos += (int64_t)got;
    }
    if (last != '\n') { /* the file's last line has no '\n' */
        ++lines;
        items += data;
    }
    *n_lines = lines;
    *n_items = items;
    return HS_OK;
}

/* ---- threads: each piece's error kept, the first piece's reported ------------------------------- */

/* The error of one piece: recorded on its thread (hs_status keeps one per thread), moved here. */
typedef struct piece_err {
    hs_status st;
    char msg[2048];
} piece_err;

static void piece_keep(piece_err *e, hs_status st)
{
    e->st = st;
    if (st == HS_OK) return;
    snprintf(e->msg, sizeof e->msg, "%s", hs_error_message());
    hs_error_clear(); /* the message travels to the calling thread through e */
}

/* The error of the first piece that failed (pieces in file order: its first bad line is the range's), recorded
 * on the calling thread; HS_OK when none failed. */
static hs_status piece_first(const piece_err *e, int n)
{
    for (int j = 0; j < n; ++j)
        if (e[j].st != HS_OK) return HS_FAIL(e[j].st, "%s", e[j].msg);
    return HS_OK;
}

/* Byte offset of the start of line @p line (1-based) of the file. */
static hs_status line_offset(int fd, const blk_file *f, long line, char *buf, int64_t *out)
{
    int64_t pos = 0;
    long seen = 1;
    while (seen < line) {
        size_t got;
        HS_CALL(pread_full(fd, f->path, buf, CHUNK, pos, &got));
        HS_CHECK(got > 0, HS_ERR_IO, "%s: file changed while it was read", f->path);
        const char *p = buf, *end = buf + got;
        while (seen < line && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
            ++p;
            ++seen;
        }
        if (seen == line) {
            *out = pos + (int64_t)(p - buf);
            return HS_OK;
        }
        pos += (int64_t)got;
    }
    *out = pos;
    return HS_OK;
}

/* floor(len * p / n) without overflow: len = q n + m gives q p + floor(m p / n), m p < n^2. */
static int64_t split_point(int64_t len, int p, int n)
{
    return len / n * p + len % n * p / n;
}

/* Split the data of @p f (from f->data0) and count this part's range. */
static hs_status split_and_count(hs_mesh_block_reader *r, blk_file *f, int fd, char *buf)
{
    struct stat sb;
    HS_CHECK(fstat(fd, &sb) == 0, HS_ERR_IO, "%s: cannot stat: %s", f->path, strerror(errno));
    const int64_t size = (int64_t)sb.st_size, len = size - f->data0;
    HS_CHECK(len >= 0, HS_ERR_IO, "%s: file changed while it was read", f->path);
    const int64_t b0 = f->data0 + split_point(len, r->part, r->n_parts);
    const int64_t b1 = f->data0 + split_point(len, r->part + 1, r->n_parts);
    HS_CALL(line_start(fd, f, size, b0, buf, &f->lo));
    if (r->part == r->n_parts - 1)
        f->hi = size;
    else
        HS_CALL(line_start(fd, f, size, b1, buf, &f->hi));
    /* the pieces: the range cut as the file is (each cut moved to the next line start, within the range: its
     * end is a line start or the file's end), counted each on a thread */
    const int ns = r->nsub;
    HS_CALL(HS_ALLOC(f->slo, (size_t)ns + 1, "mesh block pieces"));
    HS_CALL(HS_ALLOC(f->sitems, (size_t)ns, "mesh block pieces"));
    HS_CALL(HS_ALLOC(f->slines, (size_t)ns, "mesh block pieces"));
    f->slo[0] = f->lo;
    f->slo[ns] = f->hi;
    for (int j = 1; j < ns; ++j)
        HS_CALL(line_start(fd, f, size, f->lo + split_point(f->hi - f->lo, j, ns), buf, &f->slo[j]));
    piece_err *e = NULL;
    HS_CALL(HS_ALLOC(e, (size_t)ns, "mesh block pieces"));
#pragma omp parallel for schedule(dynamic, 1) num_threads(ns) if (ns > 1)
    for (int j = 0; j < ns; ++j) {
        char *own = NULL;
        hs_status sj = j == 0 ? HS_OK : HS_ALLOC(own, CHUNK, "mesh read buffer");
        if (sj == HS_OK)
            sj = count_range(fd, f, f->slo[j], f->slo[j + 1], j == 0 ? buf : own, &f->sitems[j], &f->slines[j]);
        free(own);
        piece_keep(&e[j], sj);
    }
    hs_status st = piece_first(e, ns);
    free(e);
    HS_CALL(st);
    f->items = f->lines = 0;
    for (int j = 0; j < ns; ++j) f->items += f->sitems[j], f->lines += f->slines[j];
    return HS_OK;
}

/* Phase 1 for file @p k: its header (the whole reader's parser), data start, range, counts. */
static hs_status open_file(hs_mesh_block_reader *r, int k, char *buf)
{
    blk_file *f = &r->f[k];
    hs_text_reader t;
    hs_status st = HS_OK;
    if (r->fmt == FMT_TETGEN) {
        HS_CALL(hs_tetgen_open(&t, f->path));
    } else {
        HS_CALL(hs_text_reader_open(&t, f->path, f->what, HS_ERR_MESH, 0));
    }
    int headerless = 0;
    if (r->fmt == FMT_OPENCARP && k == F_NODES) {
        HS_CALL_GOTO(hs_opencarp_read_count(&t, "<#points>", &r->n_nodes), done);
    } else if (r->fmt == FMT_OPENCARP && k == F_ELEMS) {
        HS_CALL_GOTO(hs_opencarp_read_count(&t, "<#elements>", &r->n_elems), done);
    } else if (r->fmt == FMT_OPENCARP) {
        HS_CALL_GOTO(hs_opencarp_lon_header(&t, r->f[F_ELEMS].path, &r->ndir, &headerless), done);
    } else if (k == F_NODES) {
        HS_CALL_GOTO(hs_tetgen_node_header_read(&t, &r->nh), done);
        r->n_nodes = r->nh.np;
    } else {
        HS_CALL_GOTO(hs_tetgen_ele_header_read(&t, r->linearize, &r->eh), done);
        r->n_elems = r->eh.ne;
    }
    const int fd = fileno(t.f);
    if (headerless) {
        f->head_lines = t.line - 1;
        HS_CALL_GOTO(line_offset(fd, f, t.line, buf, &f->data0), done);
    } else {
        f->head_lines = t.line;
        const off_t o = ftello(t.f);
        HS_CHECK_GOTO(o >= 0, done, HS_ERR_IO, "%s: cannot tell the read position: %s", f->path,
                      strerror(errno));
        f->data0 = (int64_t)o;
    }
    if (r->fmt == FMT_TETGEN && k == F_NODES) {
        /* The first point sets the base: every part reads and checks it, as the whole reader does
         * first of all the point lines. */
        int got = 0;
        double x[3];
        HS_CALL_GOTO(hs_text_reader_next(&t, &got), done);
        if (!got) {
            st = hs_tetgen_ended(&t, 0, r->nh.np, "points");
            goto done;
        }
        HS_CALL_GOTO(hs_tetgen_node_line(&t, &r->nh, 0, &r->base, x), done);
    }
    HS_CALL_GOTO(split_and_count(r, f, fd, buf), done);
done:
    hs_text_reader_close(&t);
    return st;
}

hs_status hs_mesh_block_open(const char *path, const hs_mesh_read_opts *o, int part, int n_parts,
                             hs_mesh_block_reader **out, int64_t counts[HS_MESH_BLOCK_COUNTS])
{
    HS_CHECK(out != NULL && counts != NULL, HS_ERR_INTERNAL, "hs_mesh_block_open: NULL argument");
    *out = NULL;
    for (int k = 0; k < HS_MESH_BLOCK_COUNTS; ++k) counts[k] = 0;
    HS_CHECK(n_parts >= 1 && part >= 0 && part < n_parts, HS_ERR_INTERNAL,
             "hs_mesh_block_open: part %d of %d", part, n_parts);
    HS_CHECK(path != NULL && path[0] != '\0', HS_ERR_MESH, "mesh file name is empty");
    int fmt = 0;
    char *name = NULL;
    HS_CHECK(resolve(path, &fmt, &name), HS_ERR_MESH,
             "%s: not a mesh format read in parts%s; parallel reading takes openCARP "
             "(.pts/.elem/.lon, or a prefix PREFIX with PREFIX.elem present) and TetGen "
             "(.node/.ele, or a prefix with PREFIX.ele present) meshes",
             path, is_file(path) ? "" : " (or no such file)");
    hs_mesh_block_reader *r = NULL;
    char *buf = NULL;
    hs_status st = HS_OK;
    HS_CALL_GOTO(HS_ALLOC(r, 1, "mesh block reader"), done);
    r->fmt = fmt;
    r->part = part;
    r->n_parts = n_parts;
    r->nsub = omp_get_max_threads() > 0 ? omp_get_max_threads() : 1;
    r->linearize = o && o->linearize;
    const size_t stem = hs_path_stem_len(name);
    static const char *ext[2][N_FILES] = {{".pts", ".elem", ".lon"}, {".node", ".ele", NULL}};
    static const char *what[N_FILES] = {"openCARP .pts", "openCARP .elem", "openCARP .lon"};
    for (int k = 0; k < N_FILES; ++k) {
        if (!ext[fmt][k]) continue;
        HS_CALL_GOTO(hs_path_with_ext(name, stem, ext[fmt][k], &r->f[k].path), done);
        r->f[k].present = 1;
        r->f[k].what = fmt == FMT_TETGEN ? "TetGen" : what[k];
        r->f[k].comment = fmt == FMT_TETGEN ? '#' : 0;
    }
    if (fmt == FMT_OPENCARP) { /* the fibre file is optional, as for the whole reader */
        struct stat sb;
        if (stat(r->f[F_FIBERS].path, &sb) != 0) {
            HS_CHECK_GOTO(errno == ENOENT, done, HS_ERR_MESH, "cannot read fibre file %s: %s",
                          r->f[F_FIBERS].path, strerror(errno));
            r->f[F_FIBERS].present = 0;
        }
    }
    HS_CALL_GOTO(HS_ALLOC(buf, CHUNK, "mesh read buffer"), done);
    for (int k = 0; k < N_FILES; ++k)
        if (r->f[k].present) HS_CALL_GOTO(open_file(r, k, buf), done);
    /* the whole mesh's numbers are 32-bit (hs_mesh_parts_finish's limit), said before a line refers to a
     * node beyond it */
    HS_CHECK_GOTO(r->n_nodes <= INT32_MAX && r->n_elems <= INT32_MAX, done, HS_ERR_MESH,
                  "%s: %lld nodes and %lld tetrahedra; at most %d of each are supported", r->f[F_ELEMS].path,
                  r->n_nodes, r->n_elems, (int)INT32_MAX);
    counts[HS_MB_NODES] = r->f[F_NODES].items;
    counts[HS_MB_ELEMS] = r->f[F_ELEMS].items;
    counts[HS_MB_FIBERS] = r->f[F_FIBERS].items;
    counts[HS_MB_NODE_LINES] = r->f[F_NODES].lines;
    counts[HS_MB_ELEM_LINES] = r->f[F_ELEMS].lines;
    counts[HS_MB_FIBER_LINES] = r->f[F_FIBERS].lines;
    *out = r;
    r = NULL;
done:
    free(buf);
    free(name);
    hs_mesh_block_reader_close(&r);
    return st;
}

/* ---- phase 2: parse the range ---------------------------------------------------------------- */

/* One file's range, item by item: an item_fn parses the current line as item g (global). */
typedef hs_status (*item_fn)(hs_mesh_block_reader *r, hs_text_reader *t, int64_t g, int64_t i,
                             hs_mesh_block *b);

static hs_status node_item(hs_mesh_block_reader *r, hs_text_reader *t, int64_t g, int64_t i,
                           hs_mesh_block *b)
{
    if (g >= r->n_nodes)
        return r->fmt == FMT_TETGEN ? hs_tetgen_extra(t, r->n_nodes, "points")
                                    : hs_opencarp_extra(t, r->n_nodes, "points");
    if (r->fmt == FMT_TETGEN) {
        int base = r->base;
        HS_CALL(hs_tetgen_node_line(t, &r->nh, g, &base, b->xyz + 3 * i));
        HS_CHECK(base == r->base, HS_ERR_INTERNAL, "%s: base changed", t->path);
        return HS_OK;
    }
    return hs_opencarp_pts_line(t, b->xyz + 3 * i);
}

static hs_status elem_item(hs_mesh_block_reader *r, hs_text_reader *t, int64_t g, int64_t i,
                           hs_mesh_block *b)
{
    int32_t v[4];
    if (g >= r->n_elems)
        return r->fmt == FMT_TETGEN ? hs_tetgen_extra(t, r->n_elems, "tetrahedra")
                                    : hs_opencarp_extra(t, r->n_elems, "elements");
    if (r->fmt == FMT_TETGEN)
        HS_CALL(hs_tetgen_ele_line(t, &r->eh, r->f[F_NODES].path, r->base, (int32_t)r->n_nodes, g,
                                   v, b->region + i));
    else
        HS_CALL(hs_opencarp_elem_line(t, r->f[F_NODES].path, g, (size_t)r->n_nodes, v,
                                      b->region + i));
    for (int k = 0; k < 4; ++k) b->tets[4 * i + k] = v[k];
    return HS_OK;
}

static hs_status fiber_item(hs_mesh_block_reader *r, hs_text_reader *t, int64_t g, int64_t i,
                            hs_mesh_block *b)
{
    if (g >= r->n_elems) return hs_opencarp_lon_extra(t, r->f[F_ELEMS].path, (size_t)r->n_elems);
    return hs_opencarp_lon_line(t, r->ndir, (size_t)g, b->fiber + 3 * i);
}

/* Read piece @p j of file @p k's range: items first_item.. (the block's from @p i0), lines numbered from
 * first_line + 1 after the header; the last piece of the last part reads to the end and checks the count
 * (@p n_expected). */
static hs_status read_piece(hs_mesh_block_reader *r, int k, int j, int64_t first_item, int64_t i0,
                            int64_t first_line, long long n_expected, item_fn fn, hs_mesh_block *b)
{
    const blk_file *f = &r->f[k];
    const int64_t lo = f->slo[j], n_items = f->sitems[j];
    hs_text_reader t;
    memset(&t, 0, sizeof t);
    hs_status st = HS_OK;
    FILE *fp = fopen(f->path, "rb");
    HS_CHECK(fp != NULL, HS_ERR_MESH, "cannot open %s file '%s': %s",
             r->fmt == FMT_TETGEN ? "mesh" : f->what, f->path, strerror(errno));
    setvbuf(fp, NULL, _IOFBF, STREAM_BUF);
    HS_CHECK_GOTO(fseeko(fp, (off_t)lo, SEEK_SET) == 0, done, HS_ERR_IO, "%s: cannot seek: %s",
                  f->path, strerror(errno));
    hs_text_reader_attach(&t, fp, f->path, f->what, HS_ERR_MESH, f->comment);
    t.line = f->head_lines + (long)first_line;
    const long line_end = t.line + (long)f->slines[j];
    int got = 0;
    for (int64_t i = 0; i < n_items; ++i) {
        HS_CALL_GOTO(hs_text_reader_next(&t, &got), done);
        HS_CHECK_GOTO(got && t.line <= line_end, done, HS_ERR_IO,
                      "%s: file changed while it was read (line %ld)", f->path, t.line);
        HS_CALL_GOTO(fn(r, &t, first_item + i, i0 + i, b), done);
    }
    /* The rest of the range is blank or comment lines: read them for the checks of every line. */
    while (t.line < line_end) {
        HS_CALL_GOTO(hs_text_reader_raw(&t, &got), done);
        if (!got) break;
    }
    if (r->part == r->n_parts - 1 && j == r->nsub - 1) {
        HS_CALL_GOTO(hs_text_reader_next(&t, &got), done); /* at the end: nothing left */
        HS_CHECK_GOTO(!got, done, HS_ERR_IO, "%s: file changed while it was read (line %ld)",
                      f->path, t.line);
        const long long n_read = (long long)(first_item + n_items);
        if (n_read < n_expected) {
            if (k == F_FIBERS)
                st = hs_opencarp_lon_ended(&t, r->f[F_ELEMS].path, (size_t)n_read,
                                           (size_t)n_expected);
            else if (r->fmt == FMT_TETGEN)
                st = hs_tetgen_ended(&t, n_read, n_expected, k == F_NODES ? "points" : "tetrahedra");
            else
                st = hs_opencarp_ended(&t, n_read, n_expected, k == F_NODES ? "points" : "elements");
        }
    }
done:
    hs_text_reader_close(&t);
    fclose(fp);
    return st;
}

/* Read file @p k's range, its pieces on as many threads: items first_item.., lines numbered from
 * first_line + 1 after the header. A bad line is reported as one thread reading the range would: the
 * first piece that fails has the range's first bad line (each piece stops at its first). */
static hs_status read_range(hs_mesh_block_reader *r, int k, int64_t first_item, int64_t first_line,
                            long long n_expected, item_fn fn, hs_mesh_block *b)
{
    const blk_file *f = &r->f[k];
    const int ns = r->nsub;
    piece_err *e = NULL;
    HS_CALL(HS_ALLOC(e, (size_t)ns, "mesh block pieces"));
#pragma omp parallel for schedule(dynamic, 1) num_threads(ns) if (ns > 1)
    for (int j = 0; j < ns; ++j) {
        int64_t i0 = 0, l0 = 0; /* the pieces before this one */
        for (int q = 0; q < j; ++q) i0 += f->sitems[q], l0 += f->slines[q];
        piece_keep(&e[j], read_piece(r, k, j, first_item + i0, i0, first_line + l0, n_expected, fn, b));
    }
    const hs_status st = piece_first(e, ns);
    free(e);
    return st;
}

hs_status hs_mesh_block_read(hs_mesh_block_reader *r, const int64_t first[HS_MESH_BLOCK_COUNTS],
                             hs_mesh_block *out)
{
    HS_CHECK(r != NULL && first != NULL && out != NULL, HS_ERR_INTERNAL,
             "hs_mesh_block_read: NULL argument");
    memset(out, 0, sizeof *out);
    for (int k = 0; k < HS_MESH_BLOCK_COUNTS; ++k)
        HS_CHECK(first[k] >= 0, HS_ERR_INTERNAL, "hs_mesh_block_read: first[%d] = %lld", k,
                 (long long)first[k]);
    for (int k = 0; k < N_FILES; ++k)
        HS_CHECK(r->f[k].items <= INT32_MAX, HS_ERR_MESH, "%s: %lld data lines in one part; at most %d are supported",
                 r->f[k].path, (long long)r->f[k].items, (int)INT32_MAX);
    hs_mesh_block b;
    memset(&b, 0, sizeof b);
    hs_status st = HS_OK;
    b.n_nodes = r->n_nodes;
    b.n_elems = r->n_elems;
    b.node0 = first[HS_MB_NODES];
    b.nb_nodes = (int32_t)r->f[F_NODES].items;
    b.elem0 = first[HS_MB_ELEMS];
    b.nb_elems = (int32_t)r->f[F_ELEMS].items;
    b.has_fibers = r->f[F_FIBERS].present;
    b.fiber0 = b.has_fibers ? first[HS_MB_FIBERS] : 0;
    b.nb_fibers = b.has_fibers ? (int32_t)r->f[F_FIBERS].items : 0;
    HS_CALL_GOTO(HS_ALLOC(b.xyz, 3 * (size_t)b.nb_nodes, "node coordinates"), done);
    HS_CALL_GOTO(HS_ALLOC(b.tets, 4 * (size_t)b.nb_elems, "tetrahedra"), done);
    HS_CALL_GOTO(HS_ALLOC(b.region, (size_t)b.nb_elems, "region markers"), done);
    if (b.has_fibers) HS_CALL_GOTO(HS_ALLOC(b.fiber, 3 * (size_t)b.nb_fibers, "fibres"), done);

    HS_CALL_GOTO(read_range(r, F_NODES, first[HS_MB_NODES], first[HS_MB_NODE_LINES], r->n_nodes,
                            node_item, &b),
                 done);
    HS_CALL_GOTO(read_range(r, F_ELEMS, first[HS_MB_ELEMS], first[HS_MB_ELEM_LINES], r->n_elems,
                            elem_item, &b),
                 done);
    if (b.has_fibers) {
        HS_CALL_GOTO(read_range(r, F_FIBERS, first[HS_MB_FIBERS], first[HS_MB_FIBER_LINES],
                                r->n_elems, fiber_item, &b),
                     done);
        if (r->ndir == 2 && r->part == 0)
            hs_log(2, "%s: sheet directions are not used\n", r->f[F_FIBERS].path);
    }
    *out = b;
    memset(&b, 0, sizeof b);
done:
    hs_mesh_block_free(&b);
    return st;
}

void hs_mesh_block_reader_close(hs_mesh_block_reader **r)
{
    if (!r || !*r) return;
    for (int k = 0; k < N_FILES; ++k) {
        free((*r)->f[k].path);
        free((*r)->f[k].slo);
        free((*r)->f[k].sitems);
        free((*r)->f[k].slines);
    }
    free(*r);
    *r = NULL;
}

void hs_mesh_block_free(hs_mesh_block *b)
{
    if (!b) return;
    free(b->xyz);
    free(b->tets);
    free(b->region);
    free(b->fiber);
    memset(b, 0, sizeof *b);
}
