/*
 * MPI_Bcast latency, OSU osu_bcast compatible: size bytes of MPI_CHAR from root 0 to every rank
 * of MPI_COMM_WORLD (any number of ranks), sizes 1 byte to 1 MiB by default. As in OSU 7.4, each
 * call is timed on its own and followed by an MPI_Barrier (not timed). Reported value: each rank's
 * mean time per call in microseconds, averaged over the ranks; -f adds the lowest and highest of
 * the ranks' means and the iteration count.
 *
 * With -c the root fills the buffer with a pattern that depends on (size, iteration) and the other
 * ranks fill theirs with a different one before each call; after it every byte of every rank's
 * buffer is compared with the root's pattern (the root's own buffer must be unchanged).
 */
#include "common.h"

int main(int argc, char **argv) {
  const char *title = "Pamir MPI Broadcast Latency Test";
  const int root = 0;
  struct bench_options o;
  int rank, nranks, rc, failed_any = 0;
  unsigned char *buf;
  size_t size;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  rc = bench_parse_options(argc, argv, BENCH_BCAST, rank, title, &o);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }

  buf = bench_alloc(o.max_size);
  if (buf == NULL) {
    fprintf(stderr, "rank %d: cannot allocate %zu bytes\n", rank, o.max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(buf, 1, o.max_size); /* OSU's set_buffer(buffer, ..., 1, ...) */

  if (rank == 0) bench_coll_header(title, "MPI_CHAR", &o);

  for (size = o.min_size; size <= o.max_size; size = bench_next_size(size)) {
    const int large = size > BENCH_LARGE_SIZE;
    const long iters = large ? o.iterations_large : o.iterations;
    const long skip = large ? o.skip_large : o.skip;
    long i;
    int errors = 0;
    double timer = 0.0, t0, t1;

    if (size == 0) continue; /* OSU: no zero-byte collectives */

    MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < iters + skip; i++) {
      const uint32_t seed = bench_seed(size, i, 0, root);
      if (o.validate) {
        /* non-roots: the pattern of another "sender", so a call that moves nothing fails */
        bench_fill(buf, size, rank == root ? seed : bench_seed(size, i, 1, rank));
        MPI_Barrier(MPI_COMM_WORLD);
      }
      t0 = MPI_Wtime();
      MPI_Bcast(buf, (int)size, MPI_CHAR, root, MPI_COMM_WORLD);
      t1 = MPI_Wtime();
      MPI_Barrier(MPI_COMM_WORLD);
      if (i >= skip) timer += t1 - t0;
      if (o.validate && bench_check(buf, size, seed) != 0) errors++;
    }

    if (bench_coll_report(rank, nranks, 1, size, timer * 1e6 / (double)iters, iters, errors, &o))
      failed_any = 1;
  }

  free(buf);
  MPI_Finalize();
  return failed_any ? 1 : 0;
}
