/* What every backend shares: destruction through its ops table (hs_backend.h). */
#include <stdlib.h>

#include "hs_backend.h"

void hs_backend_destroy(hs_backend **b)
{
    if (!b || !*b) return;
    if ((*b)->ops && (*b)->ops->destroy) (*b)->ops->destroy(*b);
    free(*b);
    *b = NULL;
}
