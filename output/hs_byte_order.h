/**
 * @file hs_byte_order.h
 * @brief Encoding host numbers as big-endian bytes, as legacy VTK binary files require, and as
 * little-endian bytes, as heartsim's XDMF files declare.
 *
 * The bytes are built with shifts from the value itself, so the code is the same on little- and
 * big-endian hosts (no byte-order detection to get wrong); compilers turn the loop into bswap.
 */
#ifndef HS_BYTE_ORDER_H
#define HS_BYTE_ORDER_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Store @p v as 4 big-endian bytes at @p dst. */
static inline void hs_be_put_u32(unsigned char *dst, uint32_t v)
{
    dst[0] = (unsigned char)(v >> 24);
    dst[1] = (unsigned char)(v >> 16);
    dst[2] = (unsigned char)(v >> 8);
    dst[3] = (unsigned char)v;
}

/** @brief Store @p v as 8 big-endian bytes at @p dst. */
static inline void hs_be_put_u64(unsigned char *dst, uint64_t v)
{
    hs_be_put_u32(dst, (uint32_t)(v >> 32));
    hs_be_put_u32(dst + 4, (uint32_t)v);
}

/** @brief Store int32 @p v big-endian (two's complement bits kept). */
static inline void hs_be_put_i32(unsigned char *dst, int32_t v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u); /* bit copy: conversion of negative values would be implementation-defined */
    hs_be_put_u32(dst, u);
}

/** @brief Store IEEE-754 double @p v big-endian (bits kept exactly, NaN payloads included). */
static inline void hs_be_put_f64(unsigned char *dst, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    hs_be_put_u64(dst, u);
}

/** @brief Read 4 big-endian bytes. */
static inline uint32_t hs_be_get_u32(const unsigned char *src)
{
    return ((uint32_t)src[0] << 24) | ((uint32_t)src[1] << 16) | ((uint32_t)src[2] << 8) |
           (uint32_t)src[3];
}

/** @brief Read a big-endian int32. */
static inline int32_t hs_be_get_i32(const unsigned char *src)
{
    uint32_t u = hs_be_get_u32(src);
    int32_t v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/** @brief Read a big-endian IEEE-754 double. */
static inline double hs_be_get_f64(const unsigned char *src)
{
    uint64_t u = ((uint64_t)hs_be_get_u32(src) << 32) | hs_be_get_u32(src + 4);
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/** @brief Store @p v as 4 little-endian bytes at @p dst. */
static inline void hs_le_put_u32(unsigned char *dst, uint32_t v)
{
    dst[0] = (unsigned char)v;
    dst[1] = (unsigned char)(v >> 8);
    dst[2] = (unsigned char)(v >> 16);
    dst[3] = (unsigned char)(v >> 24);
}

/** @brief Store IEEE-754 double @p v little-endian (bits kept exactly). */
static inline void hs_le_put_f64(unsigned char *dst, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    hs_le_put_u32(dst, (uint32_t)u);
    hs_le_put_u32(dst + 4, (uint32_t)(u >> 32));
}

/** @brief Store int32 @p v little-endian (two's complement bits kept). */
static inline void hs_le_put_i32(unsigned char *dst, int32_t v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    hs_le_put_u32(dst, u);
}

/** @brief Store the float nearest to @p x little-endian; beyond float's range C leaves the
 * conversion undefined, so out-of-range values are stored as +-inf explicitly. */
static inline void hs_le_put_f32(unsigned char *dst, double x)
{
    float f = x > FLT_MAX ? INFINITY : x < -FLT_MAX ? -INFINITY : (float)x;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    hs_le_put_u32(dst, u);
}

#ifdef __cplusplus
}
#endif
#endif
