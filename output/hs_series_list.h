/*
 * The output formats (output.format): one line each, HS_SERIES_FORMAT(id), for
 * `const hs_series_format_ops hs_series_format_<id>` defined in output/format_<id>.c. Expanded by
 * output/series.c into the registry and the list of names ("vtk, xdmf, xdmf_h5"), in this order;
 * tests/output/test_series.c writes, reads back the index of, and resumes every listed format
 * that this build has. A format that needs an optional library is listed in every build: without
 * the library its ops come from output/format_<id>_missing.c, whose `missing` message refuses the
 * name and says how to get it (so the config's choices and docs/config.md do not depend on the build).
 */
HS_SERIES_FORMAT(vtk)
HS_SERIES_FORMAT(xdmf)
HS_SERIES_FORMAT(xdmf_h5)
