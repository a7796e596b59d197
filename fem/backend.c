/* What every backend shares: destruction through its ops table, and the solver check of the
 * partition ops (hs_backend.h). */
#include <stdlib.h>

#include "hs_backend.h"
#include "hs_precond.h"

void hs_backend_destroy(hs_backend **b)
{
    if (!b || !*b) return;
    if ((*b)->ops && (*b)->ops->destroy) (*b)->ops->destroy(*b);
    free(*b);
    *b = NULL;
}

hs_status hs_backend_part_require_jacobi_cg(const hs_problem_opts *po)
{
    HS_CHECK(po->pc.krylov == HS_KRYLOV_CG, HS_ERR_CONFIG,
             "solver.krylov: a distributed run solves with CG; \"%s\" runs on one rank only: use solver.krylov = "
             "\"cg\"", hs_krylov_name(po->pc.krylov));
    HS_CHECK(po->pc.precond == HS_PRECOND_JACOBI, HS_ERR_CONFIG,
             "solver.precond: a distributed run preconditions with \"jacobi\"; \"%s\" runs on one rank only: use "
             "solver.precond = \"jacobi\"", hs_precond_name(po->pc.precond));
    return HS_OK;
}
