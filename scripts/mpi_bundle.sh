#!/usr/bin/env bash
# Copy Debian's Open MPI runtime (launcher, daemon, libraries, plugins, help texts) into DEST so that
# `mpirun` works on a machine without MPI installed (the lent GPU machines): relocated through
# OPAL_PREFIX. Usage:
#   scripts/mpi_bundle.sh DEST [BINARY ...]   the libraries BINARY (e.g. build/bin/heartsim) loads
#                                             from the system go into DEST/lib as well
#   then on the other machine:  source DEST/env.sh && mpirun -np 1 ./heartsim run CONFIG
# docs/parallel.md ("Launching where MPI is not installed").
set -euo pipefail
dest=${1:?usage: scripts/mpi_bundle.sh DEST [BINARY ...]}
shift
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
ompi=/usr/lib/$arch/openmpi
pmix=/usr/lib/$arch/pmix2
[ -d "$ompi/lib/openmpi3" ] || { echo "mpi_bundle: no Open MPI under $ompi (apt-get install openmpi-bin libopenmpi-dev)"; exit 2; }
mkdir -p "$dest/bin" "$dest/lib" "$dest/lib/$arch/openmpi/lib" "$dest/share"
# launcher and daemon (mpirun is orterun in Open MPI 4)
cp -L /usr/bin/orterun "$dest/bin/orterun"
ln -sf orterun "$dest/bin/mpirun"
ln -sf orterun "$dest/bin/mpiexec"
cp -L /usr/bin/orted "$dest/bin/orted"
# plugins (MCA components) of Open MPI and PMIx, at the paths OPAL_PREFIX relocates
cp -rL "$ompi/lib/openmpi3" "$dest/lib/$arch/openmpi/lib/"
if [ -d "$pmix/lib/pmix" ]; then
  mkdir -p "$dest/lib/$arch/pmix2/lib" && cp -rL "$pmix/lib/pmix" "$dest/lib/$arch/pmix2/lib/"
  [ -d "$pmix/share" ] && cp -rL "$pmix/share" "$dest/lib/$arch/pmix2/"
fi
# help texts (the messages mpirun prints) and default MCA parameters
cp -rL /usr/share/openmpi "$dest/share/"
[ -d /usr/share/pmix ] && cp -rL /usr/share/pmix "$dest/share/" || true
mkdir -p "$dest/etc" && cp -L /etc/openmpi/openmpi-mca-params.conf "$dest/etc/" 2>/dev/null || true
# every library the launcher, the plugins and the given binaries load from the system, except the
# C runtime the other machine has
{ ldd "$dest/bin/orterun" "$dest/bin/orted" "$@"; find "$dest/lib/$arch" -name '*.so' -exec ldd {} \; ; } 2>/dev/null |
  awk '$3 ~ /^\/(usr\/)?lib/ {print $3}' | sort -u |
  grep -vE '/(libc|libm|libpthread|libdl|librt|libresolv|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$dest/lib/"; done
cat > "$dest/env.sh" <<'ENV'
# source this: the bundled Open MPI, relocated
_b=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX="$_b"
export PATH="$_b/bin:$PATH"
export LD_LIBRARY_PATH="$_b/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PMIX_INSTALL_PREFIX="$(ls -d "$_b"/lib/*/pmix2 2>/dev/null | head -1)"  # PMIx's own prefix, relocated
export OMPI_MCA_mca_base_param_files="$_b/etc/openmpi-mca-params.conf"
# containers: no ptrace between ranks (shared-memory single copy off); root allowed
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset _b
ENV
du -sh "$dest"
