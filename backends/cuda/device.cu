// Device probing: tells the backend selection whether a usable GPU is present, and why not.
#include <cuda_runtime.h>
#include <stdio.h>

#include "hs_cuda.h"

extern "C" int hs_gpu_probe(char *name, size_t name_len, char *why, size_t why_len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        /* Without an NVIDIA driver the runtime answers cudaErrorInsufficientDriver ("CUDA driver
         * version is insufficient for CUDA runtime version"), which reads like a version mismatch on
         * a machine that has no GPU at all: say what it means, and keep the runtime's words. */
        if (e == cudaErrorInsufficientDriver)
            snprintf(why, why_len, "no usable GPU driver was found (the CUDA runtime says \"%s\"; with an NVIDIA "
                     "GPU, install or update its driver)", cudaGetErrorString(e));
        else if (e == cudaErrorNoDevice || (e == cudaSuccess && n == 0))
            snprintf(why, why_len, "no GPU was found (a GPU driver is installed, but it sees no CUDA device)");
        else
            snprintf(why, why_len, "the CUDA runtime cannot use a GPU: %s", cudaGetErrorString(e));
        cudaGetLastError(); /* clear the sticky-free error so later calls start clean */
        return 0;
    }
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
        snprintf(why, why_len, "cannot query device 0");
        return 0;
    }
    snprintf(name, name_len, "%s (sm_%d%d, %.0f GiB)", p.name, p.major, p.minor,
             (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    return n;
}

/* The device this process's backends use (hs_cuda.h): 0 unless a distributed run chose another. */
static int g_device = 0;

extern "C" void hs_gpu_set_device(int dev) { g_device = dev; }

extern "C" int hs_gpu_device(void) { return g_device; }
