/**
 * @file hs_step_trace.cuh
 * @brief Private to backends/cuda/ (CUDA-only header): a diagnostic timeline of the step graphs'
 * phases, for the question the graph's own events cannot answer (a conditional body records no
 * event): where a step's time goes inside one CUDA graph. Off unless the environment sets
 * HS_STEP_TRACE=1 (docs/benchmarks.md, "Where a distributed step's time goes"); then the graph holds
 * one single-thread kernel at each phase's end that stores the device's global timer (and, for a CG
 * solve, its iteration count), the host folds each step's stamps into per-phase sums after the step's
 * wait, and the run prints a table per rank when the backend is freed. Each stamp adds a kernel
 * boundary (~2 us) to the step it measures: the table says how many there were.
 */
#ifndef HS_STEP_TRACE_CUH
#define HS_STEP_TRACE_CUH

#include <cstdio>

#include <cuda_runtime.h>

#include "hs_status.h"

/** The phase a stamp ends (the time since the previous stamp is that phase's). */
enum hs_trace_tag {
    HS_TR_STEP0 = 0,  /**< the step graph begins (ends nothing) */
    HS_TR_FIRST_ASM,  /**< the first element pass and assembly */
    HS_TR_FIRST_TEST, /**< its residual test (the sum over the ranks on several) */
    HS_TR_BODY0,      /**< a Newton iteration's body begins: the loop's own cost since the last stamp */
    HS_TR_TANGENT,    /**< the tangent */
    HS_TR_CG,         /**< the whole CG solve (init and iterations; the stamp records its iterations) */
    HS_TR_UPDATE,     /**< phi -= du and phi's ghosts */
    HS_TR_ASM,        /**< element pass and assembly */
    HS_TR_TEST,       /**< the Newton test */
    HS_TR_STEP_END,   /**< the loop left (its last condition) */
    HS_TR_N
};

struct hs_step_trace;

/** @brief A tracer when HS_STEP_TRACE is set to a value other than "0" (NULL otherwise, or on failure to
 *  allocate: it is a diagnostic and never fails a run). @p who names the path in the report. */
hs_step_trace *hs_step_trace_from_env(const char *who);
/** @brief Enqueue a stamp ending phase @p tag on @p s (capturable); @p iters: a device int to record
 *  with it (a CG's iteration count) or NULL. HS_OK without doing anything when @p t is NULL. */
hs_status hs_step_trace_stamp(hs_step_trace *t, cudaStream_t s, hs_trace_tag tag, const int *iters);
/** @brief Call just before the step graph's launch on @p s: clears the stamps (a step that failed before
 *  its collect leaves its own), and the host's time since the previous step's collect returned counts
 *  as "host between steps". HS_OK when @p t is NULL. */
hs_status hs_step_trace_launch(hs_step_trace *t, cudaStream_t s);
/** @brief After the step's stream was waited for: fold its stamps into the sums. HS_OK when @p t is NULL. */
hs_status hs_step_trace_collect(hs_step_trace *t, cudaStream_t s);
/** @brief Steps folded so far (0 for NULL). */
long hs_step_trace_steps(const hs_step_trace *t);
/** @brief Phase @p tag's mean microseconds a step and per occurrence, and its occurrences a step (0 when
 *  it never ran). */
void hs_step_trace_phase(const hs_step_trace *t, hs_trace_tag tag, double *us_step, double *us_each, double *per_step);
/** @brief The CG solves' least-squares fit: time = a + b x iterations (microseconds); 0 when fewer than two
 *  solves or all of one iteration count. */
int hs_step_trace_cg_fit(const hs_step_trace *t, double *a_us, double *b_us);
/** @brief Print the per-phase table (rank @p rank) to @p f and free; accepts NULL. */
void hs_step_trace_finish(hs_step_trace **t, FILE *f, int rank);

#endif
