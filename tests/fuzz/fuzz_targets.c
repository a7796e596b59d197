/* Shared fuzz entry points (fuzz_targets.h). Temporary files live in one private directory per
 * process (mkdtemp under $TMPDIR or /tmp), rewritten for every input and removed at exit. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_targets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_config.h"
#include "hs_csr.h"
#include "hs_mesh.h"
#include "hs_mtx.h"
#include "hs_status.h"

#define MAX_OVERRIDES 64

static char g_dir[512];

static void remove_dir(void)
{
    static const char *const names[] = {"fuzz.cfg", "again.cfg", "fuzz.node", "fuzz.ele", "fuzz.mtx"};
    char p[600];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        snprintf(p, sizeof p, "%s/%s", g_dir, names[i]);
        unlink(p);
    }
    rmdir(g_dir);
}

/* Full path of a file in the private directory, creating the directory on first use. */
static const char *tmp_path(const char *name, char *buf, size_t n)
{
    if (!g_dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(g_dir, sizeof g_dir, "%s/hs_fuzz_XXXXXX", t && t[0] ? t : "/tmp");
        if (!mkdtemp(g_dir)) {
            perror("hs_fuzz: mkdtemp");
            abort();
        }
        atexit(remove_dir);
    }
    snprintf(buf, n, "%s/%s", g_dir, name);
    return buf;
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

static void fail(const char *target, const char *what)
{
    fprintf(stderr, "hs_fuzz %s: invariant broken: %s\n", target, what);
    abort();
}

/* ---- config -------------------------------------------------------------------------------- */

int hs_fuzz_config(const uint8_t *data, size_t size)
{
    char cfg_path[600], again_path[600];
    tmp_path("fuzz.cfg", cfg_path, sizeof cfg_path);
    tmp_path("again.cfg", again_path, sizeof again_path);

    /* Split: file text, then overrides one per line after the marker. */
    char *text = malloc(size + 1);
    if (!text) abort();
    memcpy(text, data, size);
    text[size] = '\0';
    size_t file_len = size;
    const char *ov[MAX_OVERRIDES];
    int n_ov = 0;
    /* memmem is a GNU extension; the search is short, do it by hand (the text may hold NULs). */
    const size_t ml = strlen(HS_FUZZ_SET_MARKER);
    for (size_t i = 0; i + ml <= size; ++i) {
        if (memcmp(text + i, HS_FUZZ_SET_MARKER, ml) == 0) {
            file_len = i + 1; /* keep the newline ending the file's last line */
            char *p = text + i + ml;
            while (n_ov < MAX_OVERRIDES && p <= text + size) {
                char *nl = memchr(p, '\n', (size_t)(text + size - p));
                if (nl) *nl = '\0';
                ov[n_ov++] = p; /* an embedded NUL just shortens the override */
                if (!nl) break;
                p = nl + 1;
            }
            break;
        }
    }
    write_file(cfg_path, data, file_len);

    hs_config *cfg = malloc(sizeof *cfg);
    hs_config *cfg2 = malloc(sizeof *cfg2);
    if (!cfg || !cfg2) abort();
    hs_error_clear();
    hs_status st = hs_config_load(cfg_path, ov, n_ov, cfg);
    if (st == HS_OK) {
        /* hs_config_print is documented as loadable again: check that it is, and that it yields
         * the same configuration printed the same way. */
        char *p1 = NULL, *p2 = NULL;
        size_t n1 = 0, n2 = 0;
        FILE *m = open_memstream(&p1, &n1);
        if (!m) abort();
        hs_config_print(cfg, m);
        fclose(m);
        write_file(again_path, (const uint8_t *)p1, n1);
        hs_error_clear();
        hs_status st2 = hs_config_load(again_path, NULL, 0, cfg2);
        if (st2 != HS_OK) {
            fprintf(stderr, "reloading the printed config failed: %s\n--- printed:\n%s\n",
                    hs_error_message(), p1);
            fail("config", "hs_config_print output does not load again");
        }
        m = open_memstream(&p2, &n2);
        if (!m) abort();
        hs_config_print(cfg2, m);
        fclose(m);
        /* The first line names the file printed from; compare what follows it. */
        const char *b1 = strchr(p1, '\n'), *b2 = strchr(p2, '\n');
        b1 = b1 ? b1 : p1;
        b2 = b2 ? b2 : p2;
        if (strcmp(b1, b2) != 0) {
            fprintf(stderr, "--- first:\n%s\n--- reloaded:\n%s\n", p1, p2);
            fail("config", "printing the reloaded config gives different text");
        }
        free(p1);
        free(p2);
    } else if (hs_error_message()[0] == '\0') {
        fail("config", "an error was returned without a message");
    }
    hs_error_clear();
    free(cfg);
    free(cfg2);
    free(text);
    return 0;
}

/* ---- TetGen .node/.ele --------------------------------------------------------------------- */

int hs_fuzz_tetgen(const uint8_t *data, size_t size)
{
    char node_path[600], ele_path[600];
    tmp_path("fuzz.node", node_path, sizeof node_path);
    tmp_path("fuzz.ele", ele_path, sizeof ele_path);
    const uint8_t *sep = memchr(data, HS_FUZZ_TETGEN_SEP, size);
    size_t n_node = sep ? (size_t)(sep - data) : size;
    write_file(node_path, data, n_node);
    write_file(ele_path, sep ? sep + 1 : data, sep ? size - n_node - 1 : 0);

    hs_mesh *m = NULL;
    hs_error_clear();
    hs_status st = hs_mesh_read_tetgen(node_path, ele_path, &m);
    if (st == HS_OK) {
        if (!m || m->n_nodes < 4 || m->n_elems < 1 || !m->xyz || !m->tets || !m->region)
            fail("tetgen", "accepted mesh is empty or incomplete");
        for (int64_t i = 0; i < 4 * (int64_t)m->n_elems; ++i)
            if (m->tets[i] < 0 || m->tets[i] >= m->n_nodes) fail("tetgen", "node index out of range");
        /* What the run does next with a mesh it read (app/run.c): check it, then renumber it. */
        if (hs_mesh_check(m) == HS_OK) {
            hs_reorder_report rep;
            if (hs_mesh_reorder(m, HS_REORDER_RCM, &rep) != HS_OK)
                fail("tetgen", "RCM renumbering failed on a mesh that passed hs_mesh_check");
        }
    } else {
        if (m) fail("tetgen", "*out is not NULL after an error");
        if (hs_error_message()[0] == '\0') fail("tetgen", "an error was returned without a message");
    }
    hs_mesh_destroy(&m);
    hs_error_clear();
    return 0;
}

/* ---- Matrix Market ------------------------------------------------------------------------- */

int hs_fuzz_mtx(const uint8_t *data, size_t size)
{
    char path[600];
    tmp_path("fuzz.mtx", path, sizeof path);
    write_file(path, data, size);
    hs_csr *a = NULL;
    hs_error_clear();
    hs_status st = hs_mtx_read(path, &a);
    if (st == HS_OK) {
        if (!a || a->n_rows < 0 || a->n_cols < 0 || a->nnz < 0 || !a->row_ptr)
            fail("mtx", "accepted matrix has a bad shape");
        if (a->row_ptr[0] != 0 || a->row_ptr[a->n_rows] != a->nnz) fail("mtx", "row_ptr ends");
        for (int32_t i = 0; i < a->n_rows; ++i) {
            if (a->row_ptr[i + 1] < a->row_ptr[i]) fail("mtx", "row_ptr decreases");
            for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) {
                if (a->col[k] < 0 || a->col[k] >= a->n_cols) fail("mtx", "column out of range");
                if (k > a->row_ptr[i] && a->col[k] <= a->col[k - 1])
                    fail("mtx", "columns not strictly increasing (unsorted or duplicate)");
                if (a->val && a->val[k] != a->val[k]) fail("mtx", "NaN value accepted");
            }
        }
    } else {
        if (a) fail("mtx", "*out is not NULL after an error");
        if (hs_error_message()[0] == '\0') fail("mtx", "an error was returned without a message");
    }
    hs_csr_destroy(&a);
    hs_error_clear();
    return 0;
}
