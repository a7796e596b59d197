/* "xdmf_h5" in a build without HDF5 (HS_HAS_HDF5 = 0): listed, so the config's choices are the same
 * in every build, and refused by name (output/series.c) with the message below. */
#include <stddef.h>

#include "hs_series_format.h"

const hs_series_format_ops hs_series_format_xdmf_h5 = {
    .name = "xdmf_h5",
    .summary = "the mesh once and float32 fields per frame in one HDF5 file, an XDMF .xdmf index",
    .index_ext = ".xdmf",
    .frame_ext = NULL,
    .missing = "this heartsim was built without HDF5 (HS_HAS_HDF5 = 0); install libhdf5-dev "
               "(scripts/setup-debian.sh) and rebuild (cmake -DHS_USE_HDF5=ON makes a missing HDF5 "
               "an error), or use output.format = \"xdmf\" (raw binary, no library needed)",
};
