/* Bytes each phase must move: the numerators of the bandwidth floors in `heartsim bench step`. */
#include "hs_backend_diag.h"
#include "hs_problem.h"

void hs_phase_bytes(const hs_problem *p, int64_t n_slots, hs_phase_bench *pb)
{
    double nn = p->mesh->n_nodes, ne = p->mesh->n_elems, nnz = p->pattern->nnz, ns = (double)n_slots;
    double nv = p->opt.model_prm.n_vars;
    double vb = hs_matrix_values_bytes(p->opt.exec.values); /* bytes per stored matrix value: 8, or 4 for float32 */
    if (p->split) {
        double np = p->split->n_pairs;
        /* element: tets 16, vol 8, stimulus 8, the model's variables (last step 8, iterate read + write
         * 16 each), km and rm 16; phi and phi_n read at least once per node */
        pb->bytes_element = ne * (16 + 8 + 8 + 24 * nv + 16) + nn * 16;
        /* K: per pair p_ptr 4, K_D 8, two 4-byte slots; per pair entry 4 (10 per element), km 8 per
         * element once; each nonzero written once (vb). R: row pointers 4, K_D 8 + column 4 per nonzero,
         * phi 8, R-list pointer 4, element 4 per entry (4 per element), rm 8 per element, diagonal
         * slot 8, K diagonal vb, inverse mass 8, R 8, D^-1 8 per node */
        pb->bytes_assembly = np * (4 + 8 + 8) + ne * (10 * 4 + 8) + nnz * vb + nnz * (8 + 4) +
                             nn * (4 + 8 + 4 + 8 + vb + 8 + 8 + 8) + ne * (4 * 4 + 8);
    } else {
        /* element: tets 16, vol 8, kd 80, stimulus 8, the model's variables 24 each, Ke 80, Re 32 per
         * element; phi and phi_n read at least once per node. Ke is symmetric: its 10 distinct entries
         * (80 bytes) are the least an element must write (the CPU reference writes all 16). */
        pb->bytes_element = ne * (16 + 8 + 80 + 8 + 24 * nv + 80 + 32) + nn * 16;
        /* K: k_ptr 4, slot 8, value vb per nonzero; k_src 4 per element entry, each distinct Ke entry once.
         * R: r_ptr 4, diag 4, K diagonal vb, inverse mass 8, R 8, D^-1 8 per node; r_src 4 and Re 8 per entry */
        pb->bytes_assembly = nnz * (4 + 8 + vb) + ne * 16 * 4 + ne * 10 * 8 + nn * (4 + 4 + vb + 8 + 8 + 8) +
                             ne * 4 * (4 + 8);
    }
    /* heterogeneous tissue: a 2-byte row index per element (the few table rows stay in cache) */
    if (p->opt.regions && p->opt.regions->elem_tab) pb->bytes_element += ne * 2;
    /* SpMV: values and column indices of every slot, row pointers, x and y once each */
    pb->bytes_spmv = ns * (vb + 4) + (nn + 1) * 4 + nn * 16;
    /* CG iteration: SpMV + dot(p,q) 16 + update (x,p,r,q,D^-1 read 40, x,r,z written 24) + p = z + beta p 24 */
    pb->bytes_cg_iter = pb->bytes_spmv + nn * (16 + 64 + 24);
}
