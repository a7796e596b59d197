/*
 * How the ranks of a distributed run on a device backend exchange the halo and sum the CG's scalars
 * (config key parallel.transport): one line each, expanded into enum hs_transport (fem/hs_exec_plan.h,
 * values in list order from 1) and into the table behind hs_transport_lookup / hs_transport_name
 * (fem/exec_plan.c). "auto" (0) is no entry: the backend resolves it when it binds the partition, once,
 * on every rank alike (backends/cuda/cuda_comm.cu; docs/parallel.md). The cpu backend's ranks always
 * exchange through MPI. HS_TRANSPORT(enumerator, name, summary). Append new transports at the end.
 */
HS_TRANSPORT(HS_TRANSPORT_NCCL, "nccl",
             "NCCL: grouped ncclSend/ncclRecv for the halo, ncclAllReduce for the sums, enqueued on the streams "
             "(every rank on its own device, libnccl.so.2 loadable)")
HS_TRANSPORT(HS_TRANSPORT_IPC, "ipc",
             "CUDA IPC peer memory on one node: kernels store the halo and the partial sums straight into the "
             "peers' buffers and signal device flags (one kernel per halo side and per sum)")
HS_TRANSPORT(HS_TRANSPORT_MPI, "mpi",
             "MPI through pinned host buffers (the stream synchronised at each exchange and sum)")
