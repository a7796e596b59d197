/*
 * The list of node partitioners (config key parallel.partition): one line per partitioner, expanded
 * into the table behind hs_partitioners() (parallel/partition.c).
 * HS_PARTITIONER(id, name, summary, seed reference). Each id has a function
 * `static hs_status part_<id>(const hs_csr *pattern, int n_parts, int32_t *part)` in partition.c.
 * "metis" and "ptscotch" stay listed in builds without METIS or PT-Scotch and are refused there with
 * a message saying how to get them (HS_HAS_METIS, HS_HAS_PTSCOTCH, like output.format = "xdmf_h5"
 * without HDF5). "ptscotch" runs on every rank at once (hs_partitioner.parallel: its function is
 * hs_ptscotch_partition_root, parallel/partition_scotch.c; part_ptscotch refuses a lone process).
 */
HS_PARTITIONER(metis, "metis",
               "METIS k-way on the node graph (the CSR pattern), vertex weight = row nonzeros",
               "Karypis & Kumar, SIAM J. Sci. Comput. 20 (1998); METIS_PartGraphKway")
HS_PARTITIONER(rows, "rows",
               "equal blocks of consecutive rows (PCSR-I)",
               "seed 001 sec. 4, method (1)")
HS_PARTITIONER(nonzeros, "nonzeros",
               "blocks of consecutive rows with equal nonzeros (PCSR-II)",
               "seed 001 sec. 4, method (2)")
HS_PARTITIONER(ptscotch, "ptscotch",
               "PT-Scotch k-way on the node graph, in parallel on every rank (each a block of rows), vertex weight = row nonzeros",
               "Chevalier & Pellegrini, Parallel Computing 34 (2008); SCOTCH_dgraphPart")
HS_PARTITIONER(box, "box",
               "blocks of the structured box (mesh.source = \"box\"), each rank generating its own; fewest cut faces",
               "issue 26: a geometric partition of the lattice, no rank holds the global mesh")
