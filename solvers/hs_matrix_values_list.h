/*
 * How the tangent matrix's values are stored (config key solver.matrix_values): one line each,
 * expanded into enum hs_matrix_values (solvers/hs_spmv.h, values in list order) and the table
 * behind hs_matrix_values_lookup / hs_matrix_values_name (solvers/matrix_values.c).
 * HS_MATRIX_VALUES(enumerator, name, bytes per value, summary). Append at the end.
 * Vectors, the residual, the Jacobi diagonal and the Newton test stay float64 with either: only the
 * CG's matrix is rounded, so the Newton fixed point (defined by the float64 residual) does not move.
 */
HS_MATRIX_VALUES(HS_VALUES_F64, "float64", 8,
                 "matrix values in double precision (the reference)")
HS_MATRIX_VALUES(HS_VALUES_F32, "float32", 4,
                 "matrix values rounded to single precision once assembled; vectors and products stay double")
