/* Issue 30, item 10: on a machine without an NVIDIA driver the CUDA runtime answers "CUDA driver
 * version is insufficient for CUDA runtime version", which heartsim used to log as it was. The
 * probe must say that no usable GPU driver was found (keeping the runtime's words after it), or
 * that no GPU was found. Runs where there is no GPU (the case under test); skipped (77) where the
 * probe finds one. */
#include <stdio.h>
#include <string.h>

#include "hs_cuda.h"
#include "hs_test.h"

int main(void)
{
    char name[256] = "", why[512] = "";
    if (hs_gpu_probe(name, sizeof name, why, sizeof why) > 0) {
        printf("skipped: a GPU is present (%s)\n", name);
        return HS_TEST_SKIP;
    }
    HS_TEST_CHECK(strncmp(why, "no usable GPU driver was found", 30) == 0 || strncmp(why, "no GPU was found", 16) == 0 ||
                      strncmp(why, "the CUDA runtime cannot use a GPU: ", 35) == 0,
                  "probe's reason: %s", why);
    if (strstr(why, "insufficient"))
        HS_TEST_CHECK(strstr(why, "no usable GPU driver was found (the CUDA runtime says \"CUDA driver version") == why,
                      "probe's reason: %s", why);
    HS_TEST_RETURN();
}
