/* The CG variant list (solvers/hs_cg_list.h): enum values, names, lookup and its error message. What
 * the list holds is read from the list itself, so a variant appended there needs no change here. */
#include <stdio.h>
#include <string.h>

#include "hs_cg.h"
#include "hs_registry.h"
#include "hs_test.h"

int main(void)
{
    /* Enum values stay as they were (other code and saved settings use the numbers). */
    HS_TEST_CHECK(HS_CG_CLASSIC == 0 && HS_CG_CHRONOPOULOS == 1 && HS_CG_SSTEP == 2 &&
                      HS_CG_PIPELINED == 3, "enum values changed");
    HS_TEST_CHECK(strcmp(hs_cg_variant_name(HS_CG_CLASSIC), "classic") == 0, "name of classic: %s",
                  hs_cg_variant_name(HS_CG_CLASSIC));
    HS_TEST_CHECK(strcmp(hs_cg_variant_name(HS_CG_CHRONOPOULOS), "chronopoulos") == 0,
                  "name of chronopoulos: %s", hs_cg_variant_name(HS_CG_CHRONOPOULOS));
    const hs_cg_variant past = (hs_cg_variant)hs_cg_variants()->count; /* one past the list's end */
    HS_TEST_CHECK(strcmp(hs_cg_variant_name(past), "(unknown)") == 0, "name of %d: %s", (int)past,
                  hs_cg_variant_name(past));

    /* Every entry: complete, at its enum's index, found by its name. */
    const hs_registry *r = hs_cg_variants();
    HS_TEST_CHECK(r->count > (size_t)HS_CG_SSTEP, "%zu variants: the ones code names are missing", r->count);
    char want_names[1024] = "";
    for (size_t i = 0; i < r->count; ++i) {
        const hs_cg_variant_info *v = hs_registry_at(r, i);
        HS_TEST_CHECK(v->name && v->summary && v->seed && (size_t)v->variant == i, "entry %zu", i);
        HS_TEST_CHECK(strcmp(hs_cg_variant_name(v->variant), v->name) == 0, "name(%d)", (int)v->variant);
        hs_cg_variant got = (hs_cg_variant)-1;
        HS_TEST_OK(hs_cg_variant_lookup("solver.cg", v->name, &got));
        HS_TEST_CHECK(got == v->variant, "lookup(%s) = %d", v->name, (int)got);
        for (size_t j = 0; j < i; ++j)
            HS_TEST_CHECK(strcmp(hs_registry_name(r, j), v->name) != 0, "two variants called %s", v->name);
        if (i) strncat(want_names, ", ", sizeof want_names - strlen(want_names) - 1);
        strncat(want_names, v->name, sizeof want_names - strlen(want_names) - 1);
    }
    HS_TEST_CHECK(strlen(want_names) < sizeof want_names - 1, "names longer than the test's buffer");
    char names[1024];
    HS_TEST_CHECK(strcmp(hs_registry_names(r, names, sizeof names), want_names) == 0, "names: %s, want %s (table order)",
                  names, want_names);

    /* Unknown names: an error listing the variants; out untouched. */
    hs_cg_variant out = HS_CG_CHRONOPOULOS;
    hs_error_clear();
    HS_TEST_CHECK(hs_cg_variant_lookup("solver.cg", "gmres", &out) == HS_ERR_CONFIG && out == HS_CG_CHRONOPOULOS,
                  "lookup(gmres)");
    char want[1200];
    snprintf(want, sizeof want, "solver.cg: unknown CG variant \"gmres\"; available: %s", want_names);
    HS_TEST_CHECK(strcmp(hs_error_message(), want) == 0, "message \"%s\", want \"%s\"", hs_error_message(), want);
    hs_error_clear();
    HS_TEST_CHECK(hs_cg_variant_lookup("solver.cg", "Classic", &out) == HS_ERR_CONFIG, "lookup is case-sensitive");
    hs_error_clear();
    HS_TEST_RETURN();
}
