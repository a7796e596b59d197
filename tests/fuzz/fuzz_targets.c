/* Fuzz entry points for the config loader and the Matrix Market reader (fuzz_targets.h); the
 * volume mesh readers' are in fuzz_targets_volume.c, the surface readers' in
 * fuzz_targets_surface.c. Scratch files: fuzz_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_targets.h"
#include "fuzz_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_config.h"
#include "hs_csr.h"
#include "hs_mtx.h"
#include "hs_status.h"

#define MAX_OVERRIDES 64

/* ---- config -------------------------------------------------------------------------------- */

int hs_fuzz_config(const uint8_t *data, size_t size)
{
    char cfg_path[HS_FUZZ_PATH_MAX], again_path[HS_FUZZ_PATH_MAX];
    hs_fuzz_path("fuzz.cfg", cfg_path);
    hs_fuzz_path("again.cfg", again_path);

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
    hs_fuzz_write(cfg_path, data, file_len);

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
        hs_fuzz_write(again_path, (const uint8_t *)p1, n1);
        hs_error_clear();
        hs_status st2 = hs_config_load(again_path, NULL, 0, cfg2);
        if (st2 != HS_OK) {
            fprintf(stderr, "reloading the printed config failed: %s\n--- printed:\n%s\n",
                    hs_error_message(), p1);
            hs_fuzz_fail("config", "hs_config_print output does not load again");
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
            hs_fuzz_fail("config", "printing the reloaded config gives different text");
        }
        free(p1);
        free(p2);
    } else if (hs_error_message()[0] == '\0') {
        hs_fuzz_fail("config", "an error was returned without a message");
    }
    hs_error_clear();
    free(cfg);
    free(cfg2);
    free(text);
    return 0;
}

/* ---- Matrix Market ------------------------------------------------------------------------- */

int hs_fuzz_mtx(const uint8_t *data, size_t size)
{
    char path[HS_FUZZ_PATH_MAX];
    hs_fuzz_path("fuzz.mtx", path);
    hs_fuzz_write(path, data, size);
    hs_csr *a = NULL;
    hs_error_clear();
    hs_status st = hs_mtx_read(path, &a);
    if (st == HS_OK) {
        if (!a || a->n_rows < 0 || a->n_cols < 0 || a->nnz < 0 || !a->row_ptr)
            hs_fuzz_fail("mtx", "accepted matrix has a bad shape");
        if (a->row_ptr[0] != 0 || a->row_ptr[a->n_rows] != a->nnz) hs_fuzz_fail("mtx", "row_ptr ends");
        for (int32_t i = 0; i < a->n_rows; ++i) {
            if (a->row_ptr[i + 1] < a->row_ptr[i]) hs_fuzz_fail("mtx", "row_ptr decreases");
            for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; ++k) {
                if (a->col[k] < 0 || a->col[k] >= a->n_cols) hs_fuzz_fail("mtx", "column out of range");
                if (k > a->row_ptr[i] && a->col[k] <= a->col[k - 1])
                    hs_fuzz_fail("mtx", "columns not strictly increasing (unsorted or duplicate)");
                if (a->val && a->val[k] != a->val[k]) hs_fuzz_fail("mtx", "NaN value accepted");
            }
        }
    } else {
        if (a) hs_fuzz_fail("mtx", "*out is not NULL after an error");
        if (hs_error_message()[0] == '\0') hs_fuzz_fail("mtx", "an error was returned without a message");
    }
    hs_csr_destroy(&a);
    hs_error_clear();
    return 0;
}
