/*
 * The backends: one line each, HS_BACKEND(id), for `const hs_backend_entry hs_backend_<id>`
 * defined in backends/<id>/. Expanded by backends/backends.c into the registry that
 * solver.backend names. Device backends are listed under their build switch, so a build without
 * them reports the name as unknown ("available: auto, cpu"), never falls back silently.
 * Include "hs_build_config.h" before expanding this list.
 */
#ifndef HS_HAS_CUDA
#error "include hs_build_config.h before expanding hs_backend_list.h"
#endif
HS_BACKEND(cpu)
#if HS_HAS_CUDA
HS_BACKEND(cuda)
#endif
