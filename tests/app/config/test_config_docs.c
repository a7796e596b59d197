/* docs/config.md documents every key: it names each schema key, and its key table is exactly
 * what hs_config_print_reference prints (regenerate with `heartsim config-reference`).
 * Argument: the source directory. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_schema.h"
#include "hs_config.h"
#include "hs_test.h"

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[4096];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = 2 * (len + n + 1);
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    if (buf) buf[len] = '\0';
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s SOURCE_DIR\n", argv[0]);
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/docs/config.md", argv[1]);
    char *doc = read_all(path);
    if (!doc) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    for (int i = 0; i < hs_cfg_nkeys(); ++i) {
        char want[160];
        snprintf(want, sizeof want, "`%s`", hs_cfg_keys()[i].path);
        HS_TEST_CHECK(strstr(doc, want) != NULL, "%s does not document %s", path, want);
    }
    char *ref = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&ref, &len);
    if (m) {
        hs_config_print_reference(m);
        fclose(m);
        HS_TEST_CHECK(strstr(doc, ref) != NULL,
                      "the key table of %s is not the output of hs_config_print_reference; "
                      "regenerate it with `heartsim config-reference`", path);
        free(ref);
    }
    free(doc);
    HS_TEST_RETURN();
}
