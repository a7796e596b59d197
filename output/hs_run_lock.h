/**
 * @file hs_run_lock.h
 * @brief An output directory belongs to one run at a time: the run takes an exclusive lock on
 * DIR/.heartsim.lock before any work and keeps it to its end; a second run into DIR is refused at
 * once with the holder's pid, host, start time and command (written into the lock file).
 *
 * The lock is the kernel's (flock on an open file), not the file's existence: it ends with the
 * process that holds it, however that process ends (SIGKILL, a crash, a node lost), so a killed run
 * never leaves the directory locked; its lock file stays behind, unlocked, and the next run takes it.
 * On NFS, Linux carries flock as a whole-file POSIX lock to the server (NFSv4, or v3 with lockd),
 * so runs on different hosts sharing the directory exclude each other too. A file system that
 * refuses locks (ENOLCK, EOPNOTSUPP) gets a warning and no lock: it does not stop the run.
 *
 * Under mpirun only the rank that writes the output (rank 0) takes it: the other ranks never write
 * into the directory, and one lock per run (not per rank) is what tells two runs apart.
 */
#ifndef HS_RUN_LOCK_H
#define HS_RUN_LOCK_H

#include "hs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The lock file's name inside the output directory. */
#define HS_RUN_LOCK_NAME ".heartsim.lock"

typedef struct hs_run_lock hs_run_lock;

/**
 * @brief Take the lock of output directory @p dir (which must exist) for this process, without
 * waiting, and write this run's pid, host, start time and command line into the lock file.
 * @param[out] out the held lock; NULL (and HS_OK) where the file system has no locks (warned).
 * @return HS_ERR_IO naming the directory and the run that holds it ("output.dir D is in use by
 * another heartsim run: pid P on host H, started T, command: C"), or naming the lock file and
 * strerror where it cannot be created.
 */
hs_status hs_run_lock_acquire(const char *dir, hs_run_lock **out);

/** @brief Release the lock and remove the lock file; accepts NULL, sets *lock = NULL. */
void hs_run_lock_release(hs_run_lock **lock);

#ifdef __cplusplus
}
#endif

#endif
