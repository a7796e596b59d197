/* One file written by every rank together (hs_part_file.h). */
#define _POSIX_C_SOURCE 200809L
#include "hs_gid_at.h"
#include "hs_part_file.h"

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include "hs_mpi_status.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_hash.h"
#include "hs_util.h"

struct hs_part_file {
    MPI_Comm comm;
    int rank, n_ranks;
    MPI_File fh;
    char *path, *tmp, *what;
};

/* Every rank returns the first failing rank's status and message. */
static hs_status agree(const hs_part_file *f, hs_status st)
{
    return hs_mpi_agree(f->comm, st, NULL);
}

static hs_status mpi_io(const hs_part_file *f, int rc, const char *step)
{
    if (rc == MPI_SUCCESS) return HS_OK;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    return HS_FAIL(HS_ERR_IO, "cannot write %s %s: %s (%s): %s", f->what, f->path, step, f->tmp, msg);
}

static char *copy(const char *s)
{
    char *c = malloc(strlen(s) + 1);
    if (c) memcpy(c, s, strlen(s) + 1);
    return c;
}

static void part_free(hs_part_file *f)
{
    if (f->comm != MPI_COMM_NULL) MPI_Comm_free(&f->comm);
    free(f->path);
    free(f->tmp);
    free(f->what);
    free(f);
}

hs_status hs_part_file_create(const void *comm, const char *path, const char *what, hs_part_file **out)
{
    *out = NULL;
    hs_part_file *f = calloc(1, sizeof *f);
    HS_CHECK(f, HS_ERR_MEMORY, "out of memory for %s %s", what, path);
    f->fh = MPI_FILE_NULL;
    if (MPI_Comm_dup(*(const MPI_Comm *)comm, &f->comm) != MPI_SUCCESS) {
        f->comm = MPI_COMM_NULL;
        part_free(f);
        return HS_FAIL(HS_ERR_INTERNAL, "%s %s: MPI_Comm_dup failed", what, path);
    }
    MPI_Comm_rank(f->comm, &f->rank);
    MPI_Comm_size(f->comm, &f->n_ranks);
    hs_status st = HS_OK;
    f->path = copy(path);
    f->what = copy(what);
    /* DIR/.NAME.tmp, as hs_atomic_file: hidden, and beside the file so that rename is atomic */
    const char *slash = strrchr(path, '/');
    const size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    f->tmp = malloc(strlen(path) + 6);
    if (!f->path || !f->what || !f->tmp) {
        st = HS_FAIL(HS_ERR_MEMORY, "out of memory for %s %s", what, path);
    } else {
        memcpy(f->tmp, path, dir_len);
        sprintf(f->tmp + dir_len, ".%s.tmp", path + dir_len);
        if (f->rank == 0) unlink(f->tmp); /* a leftover of an interrupted write */
        MPI_Barrier(f->comm);
        st = mpi_io(f, MPI_File_open(f->comm, f->tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &f->fh),
                    "open");
    }
    st = agree(f, st);
    if (st != HS_OK) {
        if (f->fh != MPI_FILE_NULL) MPI_File_close(&f->fh);
        if (f->rank == 0 && f->tmp) unlink(f->tmp);
        part_free(f);
        return st;
    }
    *out = f;
    return HS_OK;
}

hs_status hs_part_file_agree(hs_part_file *f, hs_status st) { return agree(f, st); }

hs_status hs_part_file_write_root(hs_part_file *f, int64_t offset, const void *data, int64_t n)
{
    hs_status st = HS_OK;
    if (f->rank == 0 && n > 0) {
        HS_CHECK(n <= INT32_MAX, HS_ERR_INTERNAL, "%s: %lld bytes in one piece", f->path, (long long)n);
        st = mpi_io(f, MPI_File_write_at(f->fh, (MPI_Offset)offset, data, (int)n, MPI_BYTE, MPI_STATUS_IGNORE),
                    "write");
    }
    return agree(f, st);
}

/* First segment of rank r's block, of n_seg segments over P ranks. */
static int64_t seg_start(int64_t n_seg, int r, int P) { return (int64_t)((__int128)n_seg * r / P); }

hs_status hs_part_file_write_array(hs_part_file *f, int64_t offset, int64_t n_global, int32_t n, const int64_t *gid,
                                   const double *v, uint64_t *seg_hash)
{
    const int P = f->n_ranks;
    const int64_t n_seg = (n_global + HS_PART_SEGMENT - 1) / HS_PART_SEGMENT;
    const int64_t s0 = seg_start(n_seg, f->rank, P), s1 = seg_start(n_seg, f->rank + 1, P);
    const int64_t b0 = s0 * HS_PART_SEGMENT, b1 = s1 * HS_PART_SEGMENT < n_global ? s1 * HS_PART_SEGMENT : n_global;
    const int64_t blen = b1 > b0 ? b1 - b0 : 0;
    hs_status st = HS_OK;
    hs_gid_at *srt = calloc((size_t)n + 1, sizeof *srt);
    int64_t *sg = malloc(sizeof *sg * ((size_t)n + 1)), *rg = malloc(sizeof *rg * ((size_t)blen + 1));
    double *sv = malloc(sizeof *sv * ((size_t)n + 1)), *rv = malloc(sizeof *rv * ((size_t)blen + 1));
    double *blk = malloc(sizeof *blk * ((size_t)blen + 1));
    uint64_t *mine = malloc(sizeof *mine * ((size_t)(s1 - s0) + 1));
    int *sc = calloc((size_t)P, sizeof(int)), *sd = calloc((size_t)P, sizeof(int));
    int *rc = calloc((size_t)P, sizeof(int)), *rd = calloc((size_t)P, sizeof(int));
    if (!srt || !sg || !rg || !sv || !rv || !blk || !mine || !sc || !sd || !rc || !rd || blen > INT32_MAX)
        st = HS_FAIL(HS_ERR_MEMORY, "%s %s: out of memory for %lld values", f->what, f->path, (long long)blen);
    for (int32_t i = 0; i < n && st == HS_OK; ++i) {
        if (gid[i] < 0 || gid[i] >= n_global)
            st = HS_FAIL(HS_ERR_INTERNAL, "%s %s: global index %lld outside [0, %lld)", f->what, f->path,
                         (long long)gid[i], (long long)n_global);
        else
            srt[i] = (hs_gid_at){gid[i], i};
    }
    st = agree(f, st);
    if (st == HS_OK) {
        qsort(srt, (size_t)n, sizeof *srt, hs_gid_at_cmp);
        for (int32_t k = 0, r = 0; k < n; ++k) {
            const int64_t seg = srt[k].gid / HS_PART_SEGMENT;
            while (r + 1 < P && seg >= seg_start(n_seg, r + 1, P)) ++r;
            sc[r]++;
            sg[k] = srt[k].gid;
            sv[k] = v[srt[k].i];
        }
        for (int r = 1; r < P; ++r) sd[r] = sd[r - 1] + sc[r - 1];
        MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, f->comm);
        int64_t got = 0;
        for (int r = 0; r < P; ++r) rd[r] = (int)got, got += rc[r];
        if (got != blen)
            st = HS_FAIL(HS_ERR_INTERNAL, "%s %s: rank %d receives %lld values for its block of %lld (the ranks' "
                         "global indices do not partition the array)", f->what, f->path, f->rank, (long long)got,
                         (long long)blen);
        st = agree(f, st);
    }
    if (st == HS_OK) {
        MPI_Alltoallv(sg, sc, sd, MPI_INT64_T, rg, rc, rd, MPI_INT64_T, f->comm);
        MPI_Alltoallv(sv, sc, sd, MPI_DOUBLE, rv, rc, rd, MPI_DOUBLE, f->comm);
        char *seen = calloc((size_t)blen + 1, 1);
        if (!seen) st = HS_FAIL(HS_ERR_MEMORY, "%s %s: out of memory", f->what, f->path);
        for (int64_t k = 0; k < blen && st == HS_OK; ++k) {
            const int64_t p = rg[k] - b0;
            if (p < 0 || p >= blen || seen[p])
                st = HS_FAIL(HS_ERR_INTERNAL, "%s %s: global index %lld given twice or to the wrong rank", f->what,
                             f->path, (long long)rg[k]);
            else
                seen[p] = 1, blk[p] = rv[k];
        }
        free(seen);
        st = agree(f, st);
    }
    if (st == HS_OK) {
        st = mpi_io(f, MPI_File_write_at_all(f->fh, (MPI_Offset)(offset + 8 * b0), blk, (int)blen, MPI_DOUBLE,
                                             MPI_STATUS_IGNORE), "write");
        for (int64_t s = s0; s < s1; ++s) {
            const int64_t a = s * HS_PART_SEGMENT - b0, e = (s + 1) * HS_PART_SEGMENT < n_global ? (s + 1) * HS_PART_SEGMENT : n_global;
            mine[s - s0] = hs_fnv1a64(HS_FNV_OFFSET, blk + a, sizeof(double) * (size_t)(e - s * HS_PART_SEGMENT));
        }
        /* the segment hashes onto rank 0, in order (rank r's segments are [s0, s1)) */
        int cnt = (int)(s1 - s0);
        MPI_Gather(&cnt, 1, MPI_INT, rc, 1, MPI_INT, 0, f->comm);
        for (int r = 0, o = 0; f->rank == 0 && r < P; ++r) rd[r] = o, o += rc[r];
        MPI_Gatherv(mine, cnt, MPI_UINT64_T, seg_hash, rc, rd, MPI_UINT64_T, 0, f->comm);
        st = agree(f, st);
    }
    free(srt);
    free(sg);
    free(rg);
    free(sv);
    free(rv);
    free(blk);
    free(mine);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    return st;
}

hs_status hs_part_file_commit(hs_part_file **fp)
{
    hs_part_file *f = *fp;
    *fp = NULL;
    hs_status st = mpi_io(f, MPI_File_sync(f->fh), "sync");
    hs_status s2 = mpi_io(f, MPI_File_close(&f->fh), "close");
    if (st == HS_OK) st = s2;
    st = agree(f, st);
    if (st == HS_OK && f->rank == 0 && rename(f->tmp, f->path) != 0) {
        const int err = errno;
        st = HS_FAIL(HS_ERR_IO, "cannot write %s %s: rename (%s): %s", f->what, f->path, f->tmp, strerror(err));
    }
    if (st == HS_OK && f->rank == 0) { /* the rename itself on the disk: fsync the directory */
        char *dir = copy(f->path);
        char *slash = dir ? strrchr(dir, '/') : NULL;
        if (slash) *slash = '\0';
        int fd = dir ? open(slash ? dir : ".", O_RDONLY) : -1;
        if (fd >= 0) {
            (void)fsync(fd);
            close(fd);
        }
        free(dir);
    }
    st = agree(f, st);
    if (st != HS_OK && f->rank == 0) unlink(f->tmp);
    part_free(f);
    return st;
}

void hs_part_file_destroy(hs_part_file **fp)
{
    if (!fp || !*fp) return;
    hs_part_file *f = *fp;
    if (f->fh != MPI_FILE_NULL) MPI_File_close(&f->fh);
    if (f->rank == 0) unlink(f->tmp);
    part_free(f);
    *fp = NULL;
}
