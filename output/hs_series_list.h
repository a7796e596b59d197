/*
 * The output formats (output.format): one line each, HS_SERIES_FORMAT(id), for
 * `const hs_series_format_ops hs_series_format_<id>` defined in output/format_<id>.c. Expanded by
 * output/series.c into the registry and the list of names ("vtk, xdmf"), in this order;
 * tests/output/test_xdmf_series.c writes, reads back the index of, and resumes every listed format.
 */
HS_SERIES_FORMAT(vtk)
HS_SERIES_FORMAT(xdmf)
