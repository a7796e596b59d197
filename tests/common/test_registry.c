/* hs_registry (common/hs_registry.h): lookup by name, the names list and its truncation, and the
 * error message of an unknown name. */
#include <string.h>

#include "hs_registry.h"
#include "hs_status.h"
#include "hs_test.h"

typedef struct fruit {
    const char *name; /* first member, as hs_registry requires */
    int weight;
} fruit;

static const fruit k_fruits[] = {{"apple", 1}, {"banana", 2}, {"cherry", 3}};

/* Lookup of `name` fails with HS_ERR_CONFIG and exactly the message `want`. */
static void expect_unknown(const hs_registry *r, const char *name, const char *extra, const char *want)
{
    hs_error_clear();
    const void *e = (const void *)1;
    const hs_status st = hs_registry_lookup(r, "fruit.kind", name, extra, &e);
    HS_TEST_CHECK(st == HS_ERR_CONFIG && e == NULL, "lookup(%s): status %d", name ? name : "NULL", (int)st);
    HS_TEST_CHECK(strcmp(hs_error_message(), want) == 0, "message \"%s\", want \"%s\"", hs_error_message(), want);
    hs_error_clear();
}

int main(void)
{
    const hs_registry r = HS_REGISTRY_INIT("fruit", k_fruits);
    HS_TEST_CHECK(r.count == 3 && r.stride == sizeof(fruit), "count %zu stride %zu", r.count, r.stride);
    HS_TEST_CHECK(strcmp(hs_registry_name(&r, 1), "banana") == 0, "name 1: %s", hs_registry_name(&r, 1));
    HS_TEST_CHECK(hs_registry_at(&r, 2) == &k_fruits[2], "at(2)");

    /* found / not found: exact and case-sensitive */
    const fruit *f = hs_registry_find(&r, "cherry");
    HS_TEST_CHECK(f == &k_fruits[2] && f->weight == 3, "find(cherry)");
    HS_TEST_CHECK(hs_registry_find(&r, "Cherry") == NULL, "find is case-sensitive");
    HS_TEST_CHECK(hs_registry_find(&r, "cher") == NULL, "a prefix is not a name");
    HS_TEST_CHECK(hs_registry_find(&r, "") == NULL && hs_registry_find(&r, NULL) == NULL, "empty/NULL name");

    const void *e = NULL;
    HS_TEST_OK(hs_registry_lookup(&r, "fruit.kind", "apple", NULL, &e));
    HS_TEST_CHECK(e == &k_fruits[0], "lookup(apple)");

    /* names, in table order; truncated with "..." when the buffer is short */
    char buf[64];
    HS_TEST_CHECK(hs_registry_names(&r, buf, sizeof buf) == buf, "names returns its buffer");
    HS_TEST_CHECK(strcmp(buf, "apple, banana, cherry") == 0, "names: \"%s\"", buf);
    char small[12]; /* room for 11 characters: "apple, bana" would be cut, so it ends in "..." */
    hs_registry_names(&r, small, sizeof small);
    const size_t n = strlen(small);
    HS_TEST_CHECK(n == sizeof small - 1 && strcmp(small + n - 3, "...") == 0 &&
                      strncmp(small, "apple, banana, cherry", n - 3) == 0,
                  "truncated names: \"%s\"", small);
    char exact[sizeof "apple, banana, cherry"]; /* just fits: no "..." */
    hs_registry_names(&r, exact, sizeof exact);
    HS_TEST_CHECK(strcmp(exact, "apple, banana, cherry") == 0, "names in an exact buffer: \"%s\"", exact);
    char one[1] = {'x'};
    hs_registry_names(&r, one, sizeof one);
    HS_TEST_CHECK(one[0] == '\0', "names in a 1-byte buffer");

    /* the error a user sees */
    expect_unknown(&r, "durian", NULL, "fruit.kind: unknown fruit \"durian\"; available: apple, banana, cherry");
    expect_unknown(&r, "Apple", "auto",
                   "fruit.kind: unknown fruit \"Apple\"; available: auto, apple, banana, cherry");
    expect_unknown(&r, NULL, NULL, "fruit.kind: unknown fruit \"(none)\"; available: apple, banana, cherry");
    const hs_registry none = {"fruit", k_fruits, 0, sizeof(fruit)};
    expect_unknown(&none, "apple", "auto", "fruit.kind: unknown fruit \"apple\"; available: auto");
    /* references: entries that name objects defined elsewhere */
    static const hs_registry_ref refs[] = {{"first", &k_fruits[0]}, {"third", &k_fruits[2]}};
    static const hs_registry rr = HS_REGISTRY_INIT("fruit", refs);
    HS_TEST_CHECK(hs_registry_find_ref(&rr, "third") == &k_fruits[2] && !hs_registry_find_ref(&rr, "second"), "find_ref");
    const void *obj = NULL;
    HS_TEST_OK(hs_registry_lookup_ref(&rr, "fruit.kind", "first", NULL, &obj));
    HS_TEST_CHECK(obj == &k_fruits[0], "lookup_ref");
    HS_TEST_CHECK(hs_registry_lookup_ref(&rr, "fruit.kind", "second", NULL, &obj) == HS_ERR_CONFIG && !obj,
                  "lookup_ref of an unknown name");
    HS_TEST_CHECK(!strcmp(hs_error_message(), "fruit.kind: unknown fruit \"second\"; available: first, third"),
                  "message %s", hs_error_message());
    hs_error_clear();
    HS_TEST_RETURN();
}
