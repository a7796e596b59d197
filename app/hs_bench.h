/**
 * @file hs_bench.h
 * @brief `heartsim bench step CONFIG`: per-phase medians (element, assembly, SpMV, CG iteration,
 * whole time step, output frame) on every available backend, each against its bandwidth floor
 * (bytes it must move / copy bandwidth measured in the same run).
 */
#ifndef HS_BENCH_H
#define HS_BENCH_H

#include "hs_config.h"

/**
 * @param[in] cfg resolved config (its mesh; its backend is ignored: cuda when available, then cpu)
 * @param[in] reps repetitions per phase; @param[in] warm_ms simulated time before measuring, so a
 * front is in the tissue; @param[in] cpu_too also measure the cpu backend.
 */
hs_status hs_bench_step(const hs_config *cfg, int reps, double warm_ms, int cpu_too);

#endif
