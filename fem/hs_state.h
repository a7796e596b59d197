/**
 * @file hs_state.h
 * @brief The state of a simulation described by name: the fields a backend holds, a checkpoint
 * stores and a frame can show, instead of fixed (phi, r, activation) arguments.
 *
 * The fields, in this order (the order of checkpoint payloads and of every hs_state):
 *   [0]              the potential (the model's potential_name, "phi"), at the nodes
 *   [1 .. n_vars]    the model's own variables (hs_model.vars: "r" for Aliev-Panfilov), where the
 *                    scheme keeps them: at the integration points under solver.scheme = "newton"
 *                    (HS_AT_IP, the model descriptor's location: [n_vars][n_elems] in one block on a
 *                    backend), at the nodes under "splitting" (HS_AT_NODE: [n_vars][n_nodes])
 *   [n_vars + 1]     "activation": upward crossing of output.activation_threshold that started the
 *                    latest beat, ms, -1 before the first
 *   [n_vars + 2]     "repolarisation": the latest beat's downward crossing of output.repol_threshold,
 *                    ms, -1 until it repolarises
 *   [n_vars + 3]     "apd": repolarisation - activation of the latest beat, ms, -1 until then
 *   [n_vars + 4]     "beats": beats counted (an activation after a repolarisation starts a new one)
 * The last four (HS_STATE_READOUTS, from "activation" on) are the study read-outs: node fields a
 * backend keeps in one block [4][n_nodes] and updates pointwise at the end of every step
 * (hs_readout_update).
 * All float64. Location HS_AT_NODE has n_nodes values, HS_AT_IP n_elems (P1, one integration point).
 */
#ifndef HS_STATE_H
#define HS_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "hs_model.h"
#include "hs_scheme.h"
#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Node read-outs after the model's variables: activation, repolarisation, apd, beats. */
#define HS_STATE_READOUTS 4
/** Most fields of a state: the potential, HS_MODEL_MAX_VARS variables, the read-outs (69). */
#define HS_STATE_MAX_FIELDS (HS_MODEL_MAX_VARS + 1 + HS_STATE_READOUTS)
/** Index of the potential in every state. */
#define HS_STATE_POTENTIAL 0

/** One field of the state. */
typedef struct hs_field_desc {
    const char *name;  /**< "phi", "r", "activation" (borrowed from the model or a literal) */
    const char *unit;
    hs_location where;
    double initial;    /**< value at t = 0 */
} hs_field_desc;

/** What a state holds: its fields and their lengths. Plain value; build with hs_state_desc_init. */
typedef struct hs_state_desc {
    int n_fields;
    hs_field_desc f[HS_STATE_MAX_FIELDS];
    int32_t n_nodes, n_elems;
    int activation;    /**< index of "activation" (n_fields - HS_STATE_READOUTS), the first read-out */
} hs_state_desc;

/** Some fields of a state descriptor by index (what a frame shows): a list, not a bit mask, so any
 *  count of fields fits. Build with hs_field_list_add; indices stay increasing (descriptor order). */
typedef struct hs_field_list {
    int n;
    int16_t k[HS_STATE_MAX_FIELDS]; /**< [n] field indices, increasing, each once */
} hs_field_list;

/** @brief Whether field @p k is in @p l. */
static inline int hs_field_list_has(const hs_field_list *l, int k)
{
    for (int j = 0; j < l->n; ++j)
        if (l->k[j] == k) return 1;
    return 0;
}

/** @brief Add field @p k (0 <= k < HS_STATE_MAX_FIELDS) in its place; 0 when it was there already. */
static inline int hs_field_list_add(hs_field_list *l, int k)
{
    int j = l->n;
    if (hs_field_list_has(l, k) || j >= HS_STATE_MAX_FIELDS) return 0;
    for (; j > 0 && l->k[j - 1] > k; --j) l->k[j] = l->k[j - 1];
    l->k[j] = (int16_t)k;
    l->n++;
    return 1;
}

/** @brief The state of @p model on a mesh of @p n_nodes nodes and @p n_elems elements. The model's
 *  variables live at integration points (HS_AT_IP) and number at most HS_MODEL_MAX_VARS: every model
 *  of the list satisfies both (tests/fem/models/test_models.c). */
void hs_state_desc_init(hs_state_desc *d, const hs_model *model, int32_t n_nodes, int32_t n_elems);

/** @brief The state of @p model under @p scheme: hs_state_desc_init's for HS_SCHEME_NEWTON; under
 *  HS_SCHEME_SPLITTING the model's variables live at the nodes (HS_AT_NODE). What a backend holds
 *  (hs_backend.state) and a checkpoint stores. */
void hs_state_desc_init_scheme(hs_state_desc *d, const hs_model *model, hs_scheme_kind scheme, int32_t n_nodes,
                               int32_t n_elems);

/** @brief Values of field @p k: n_nodes or n_elems. */
size_t hs_state_field_len(const hs_state_desc *d, int k);

/** @brief Index of the field called @p name, or -1. */
int hs_state_find(const hs_state_desc *d, const char *name);

/** @brief Where the model's variables live (HS_AT_IP or HS_AT_NODE; HS_AT_IP for a model without). */
static inline hs_location hs_state_vars_at(const hs_state_desc *d) { return d->activation > 1 ? d->f[1].where : HS_AT_IP; }
/** @brief Values at each of the variables' locations: n_elems (HS_AT_IP) or n_nodes (HS_AT_NODE). */
static inline size_t hs_state_vars_stride(const hs_state_desc *d)
{
    return (size_t)(hs_state_vars_at(d) == HS_AT_NODE ? d->n_nodes : d->n_elems);
}
/** @brief The model's variables as one block [n_vars][hs_state_vars_stride]: its length. */
static inline size_t hs_state_vars_len(const hs_state_desc *d) { return (size_t)(d->activation - 1) * hs_state_vars_stride(d); }
/** @brief hs_state_vars_len of a Newton-scheme state (variables at the integration points). */
static inline size_t hs_state_ip_len(const hs_state_desc *d) { return hs_state_vars_len(d); }

/**
 * A state on the host: one array per field, in descriptor order. A NULL array means "not wanted"
 * (get_state skips it) or "leave as it is" (set_state). The arrays of hs_state_create are owned;
 * others may be borrowed (the frame writer's page-locked buffers), see each function.
 */
typedef struct hs_state {
    const hs_state_desc *desc; /**< borrowed */
    double *field[HS_STATE_MAX_FIELDS];
} hs_state;

/**
 * @brief Allocate every field of @p desc (malloc), filled with the fields' initial values.
 * @param[in] desc borrowed: must outlive the state. @param[out] s (hs_state_destroy).
 */
hs_status hs_state_create(const hs_state_desc *desc, hs_state *s);
/** @brief @p s's fields made as hs_state_create makes them (for s->desc) when it has none yet: a state
 *  whose arrays are made on first use (the run's host scratch copy, sim/sim_run.c). */
hs_status hs_state_ensure(hs_state *s);
/** @brief Free the arrays hs_state_create made; safe on a zeroed state. */
void hs_state_destroy(hs_state *s);
/**
 * @brief What a backend checks of a state it is given: its descriptor (when set) has the fields and
 * sizes of @p d. HS_ERR_INTERNAL otherwise (states are made by the program, never by the user).
 */
hs_status hs_state_check(const hs_state_desc *d, const hs_state *s);

#ifdef __cplusplus
}
#endif
#endif
