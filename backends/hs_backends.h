/**
 * @file hs_backends.h
 * @brief The registry of backends (backends/hs_backend_list.h) and what sim/ asks of each: can it
 * run here, what do the "auto" choices of the execution plan (step mode, SpMV kernel, value precision,
 * persistent CG: fem/hs_exec_plan.h) mean on it, and create it for a problem.
 */
#ifndef HS_BACKENDS_H
#define HS_BACKENDS_H

#include <stddef.h>

#include "hs_backend.h"
#include "hs_registry.h"
#include "hs_spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One backend. First member the name (hs_registry). */
typedef struct hs_backend_entry {
    const char *name;    /**< solver.backend value: "cpu", "cuda" */
    const char *summary;
    int needs_device;    /**< 1: runs on an accelerator ("auto" prefers it when probe says yes) */
    /** 1 when it can run on this machine (desc: e.g. the GPU's name); 0 with the reason in why. */
    int (*probe)(char *desc, size_t desc_len, char *why, size_t why_len);
    /**
     * The backend's execution policy, asked once at set-up (hs_sim_create): resolve every "auto" of
     * @p plan (on entry the config's requests: fem/hs_exec_plan.h) for a system with pattern
     * @p pattern (the run's matrix before any format renumbers it), solved with the CG,
     * preconditioner, assembly and steps_hint of @p opt (its exec is not read); each choice it makes
     * gets its reason in plan->why_* (a trial's times, a rule). Named choices stay, or change only
     * where the backend cannot run them otherwise (then with the reason). sim/ checks the result
     * once (hs_spmv_check_values) and the backend then reads it from hs_problem_opts.exec.
     */
    hs_status (*resolve_plan)(const hs_csr *pattern, const hs_problem_opts *opt, hs_exec_plan *plan);
    /** Create it for @p prob (borrowed: must outlive the backend). */
    hs_status (*create)(const hs_problem *prob, hs_backend **out);
    /** Optional (NULL: nothing to do): start initialising the device in the background, so that it
     *  overlaps the host's set-up (meshing, maps); called once the backend is chosen. Errors are
     *  not reported here: create meets them. */
    void (*warm_up)(void);
    /** Optional (NULL: not in a distributed run): how it runs on one rank's partition (hs_backend.h;
     *  built with MPI). */
    const hs_backend_part_ops *part;
} hs_backend_entry;

/** @brief The backends as a registry (what = "backend"). */
const hs_registry *hs_backends_registry(void);

/** @brief The backend called @p name, or NULL ("auto" is not an entry: sim resolves it). */
const hs_backend_entry *hs_backends_find(const char *name);

/** @brief The backend called @p name; unknown: HS_ERR_CONFIG `<key>: unknown backend "x"; available: auto, cpu, ...`. */
hs_status hs_backends_lookup(const char *key, const char *name, const hs_backend_entry **out);

/**
 * @brief `solver.backend = "auto"`: the first device backend whose probe succeeds, else the host
 * backend (cpu); logs the choice and, for cpu, why no device backend was taken.
 */
hs_status hs_backends_auto(const hs_backend_entry **out);

#ifdef __cplusplus
}
#endif
#endif
