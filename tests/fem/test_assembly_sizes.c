/*
 * The index arithmetic of the gather maps at sizes past 2^31 entries, without allocating them (issue
 * 26, the largest slab): the bounds of hs_assembly_map_check and the sizes of hs_split_map_sizes in
 * 64-bit arithmetic, at the edges where a 32-bit entry stops holding them.
 */
#include <stdint.h>
#include <string.h>

#include "hs_assembly.h"
#include "hs_fem.h"
#include "hs_test.h"

int main(void)
{
    /* the K lists (full assembly): 16 e + 4 a + b < 2^31 */
    HS_TEST_CHECK(HS_ASSEMBLY_MAX_ELEMS_K == 134217727 && HS_ASSEMBLY_MAX_ELEMS_R == 536870911, "bounds %lld %lld",
                  (long long)HS_ASSEMBLY_MAX_ELEMS_K, (long long)HS_ASSEMBLY_MAX_ELEMS_R);
    HS_TEST_OK(hs_assembly_map_check(134217727, 1));
    HS_TEST_CHECK(hs_assembly_map_check(134217728, 1) == HS_ERR_MESH, "full: 2^27 elements accepted");
    HS_TEST_CHECK(strstr(hs_error_message(), "solver.assembly") && strstr(hs_error_message(), "split"),
                  "the refusal should name the split assembly: %s", hs_error_message());
    hs_error_clear();
    /* the split assembly reads the R lists only: 300M tets (~50M nodes of a box) on one rank */
    HS_TEST_OK(hs_assembly_map_check(300000000, 0));
    HS_TEST_OK(hs_assembly_map_check(536870911, 0));
    HS_TEST_CHECK(hs_assembly_map_check(536870912, 0) == HS_ERR_MESH, "R lists: 2^29 elements accepted");
    hs_error_clear();

    /* 50M nodes, 15 nonzeros a row, 300M elements: 3e9 list entries, 64-bit pointers */
    hs_split_sizes z;
    HS_TEST_OK(hs_split_map_sizes(50000000, 750000000, 300000000, &z));
    HS_TEST_CHECK(z.n_pairs == 400000000 && z.n_off == 350000000, "pairs %lld off %lld", (long long)z.n_pairs,
                  (long long)z.n_off);
    HS_TEST_CHECK(z.n_entries == 3000000000LL && z.ptr64 == 1, "entries %lld ptr64 %d", (long long)z.n_entries, z.ptr64);
    /* p_ptr 8 (np + 1), p_elem 4 x 10 ne, p_pos 8 np, kd_pair 8 np, kd_csr 8 nnz */
    const int64_t want = 8 * (400000000LL + 1) + 4 * 3000000000LL + 8 * 400000000LL + 8 * 400000000LL + 8 * 750000000LL;
    HS_TEST_CHECK(z.host_bytes == want, "host bytes %lld, expected %lld", (long long)z.host_bytes, (long long)want);
    /* the edge of 32-bit pointers: 10 n_elems <= 2^31 - 1 */
    HS_TEST_OK(hs_split_map_sizes(36000000, 540000000, 214748364, &z));
    HS_TEST_CHECK(z.n_entries == 2147483640LL && z.ptr64 == 0, "214748364 elements: entries %lld ptr64 %d",
                  (long long)z.n_entries, z.ptr64);
    HS_TEST_OK(hs_split_map_sizes(36000000, 540000000, 214748365, &z));
    HS_TEST_CHECK(z.n_entries == 2147483650LL && z.ptr64 == 1, "214748365 elements: entries %lld ptr64 %d",
                  (long long)z.n_entries, z.ptr64);
    /* refused: nonzeros past a 32-bit CSR pattern, elements past the R lists, no symmetric pattern */
    HS_TEST_CHECK(hs_split_map_sizes(150000000, 2250000000LL, 300000000, &z) == HS_ERR_MESH, "2.25e9 nonzeros accepted");
    hs_error_clear();
    HS_TEST_CHECK(hs_split_map_sizes(100000000, 1500000000, 600000000, &z) == HS_ERR_MESH, "6e8 elements accepted");
    hs_error_clear();
    HS_TEST_CHECK(hs_split_map_sizes(10, 13, 8, &z) == HS_ERR_INTERNAL, "an odd off-diagonal count accepted");
    hs_error_clear();
    HS_TEST_RETURN();
}
