/**
 * @file hs_registry.h
 * @brief The one way heartsim chooses a variant by name: SpMV formats, CG variants, backends,
 * ionic models, mesh sources, mesh readers (by file extension) and output formats are each a table
 * of entries whose first member is `const char *name` (most tables are expanded from an X-macro
 * list header). A registry describes such a table; a lookup of an unknown name is an error that
 * lists the available names, e.g.
 *   solver.spmv: unknown kernel "ellwarp"; available: csr_scalar, csr_vector, ...
 * Config strings are resolved once, in app/, into pointers to entries (or their enums).
 */
#ifndef HS_REGISTRY_H
#define HS_REGISTRY_H

#include <stddef.h>

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A table of entries, each starting with `const char *name`. Borrowed; usually a static const. */
typedef struct hs_registry {
    const char *what;  /**< what an entry is, for messages: "kernel", "ionic model", "format" */
    const void *items; /**< first entry */
    size_t count;      /**< entries */
    size_t stride;     /**< sizeof one entry */
} hs_registry;

/** @brief Initialiser of a registry over a static array of entries (a struct whose first member is
 *  the name): `static const hs_registry reg = HS_REGISTRY_INIT("kernel", table);` (a constant
 *  initialiser, so the registry itself can be a static const that a function returns). */
#define HS_REGISTRY_INIT(what_, array_) \
    {(what_), (array_), sizeof(array_) / sizeof((array_)[0]), sizeof((array_)[0])}

/**
 * An entry naming an object defined elsewhere: for lists whose objects live in their own files
 * (`const hs_model hs_model_<id>` in fem/models/<id>.h, ...), which C cannot gather into one array
 * of the objects themselves. Expand the list into `{#id, &object_<id>}` rows.
 */
typedef struct hs_registry_ref {
    const char *name;
    const void *entry; /**< the object */
} hs_registry_ref;

/** @brief The object of the hs_registry_ref called @p name in @p r, or NULL. */
const void *hs_registry_find_ref(const hs_registry *r, const char *name);

/** @brief Like hs_registry_lookup, for a table of hs_registry_ref: *out = the object. */
hs_status hs_registry_lookup_ref(const hs_registry *r, const char *key, const char *name, const char *extra,
                                 const void **out);

/** @brief Name of entry @p i (i < count). */
const char *hs_registry_name(const hs_registry *r, size_t i);

/** @brief Entry @p i (i < count). */
const void *hs_registry_at(const hs_registry *r, size_t i);

/** @brief The entry called @p name, or NULL (no error recorded). Exact, case-sensitive match. */
const void *hs_registry_find(const hs_registry *r, const char *name);

/**
 * @brief The names, comma-separated, in table order ("csr_scalar, csr_vector, ..."), into @p buf
 * (truncated to @p len with "..." when it does not fit). @return buf.
 */
const char *hs_registry_names(const hs_registry *r, char *buf, size_t len);

/**
 * @brief The entry called @p name; an unknown name is HS_ERR_CONFIG reading
 * `<key>: unknown <what> "<name>"; available: <names>` (@p extra, when not NULL, is listed before
 * the table's names: e.g. "auto" for choices the caller resolves itself).
 * @param[out] out the entry (NULL on error).
 */
hs_status hs_registry_lookup(const hs_registry *r, const char *key, const char *name, const char *extra,
                             const void **out);

#ifdef __cplusplus
}
#endif
#endif
