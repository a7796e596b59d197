/**
 * @file hs_hd.h
 * @brief HS_HD marks small inline functions compiled for the host (C) and the device (CUDA), so the
 * GPU element kernel evaluates exactly the function of the CPU reference. Expands to nothing in C.
 */
#ifndef HS_HD_H
#define HS_HD_H
#ifdef __CUDACC__
#define HS_HD __host__ __device__ static inline
#else
#define HS_HD static inline
#endif
#endif
