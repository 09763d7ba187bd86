/* A large non-contiguous message moves with no pack buffer on either side (seed 003): this program
 * counts every heap allocation of the process (it interposes malloc and its relatives over glibc's), and
 * checks that a rendezvous of 8 MiB from a vector into an indexed type (and back; with "indexed-origin"
 * from the indexed type into the vector) allocates nothing of even 64 KiB on either rank once the first
 * transfer each way has warmed the library's scratch. run.sh also checks PAMIR_STATS: which path moved
 * the data (chunk reads, or packets packed and unpacked). */
#include <stdint.h>

#include "check.h"
#include "count_allocs.h"

enum { kBlocks = 2048, kBlock = 512 }; /* 2048 blocks of 512 doubles: 8 MiB of data */

int main(int argc, char **argv) {
  count_min = 64 * 1024; /* scratch below that is the library's own business */
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* Sender: a vector with a gap of 3 doubles after every block; receiver: the blocks 8 doubles apart. */
  MPI_Datatype vec, idx;
  MPI_Type_vector(kBlocks, kBlock, kBlock + 3, MPI_DOUBLE, &vec);
  MPI_Type_commit(&vec);
  enum { kRecvBlocks = kBlocks, kRecvBlock = kBlock }; /* 4 KiB pieces too, with other gaps */
  int *bl = malloc(sizeof(int) * kRecvBlocks), *d = malloc(sizeof(int) * kRecvBlocks);
  for (int i = 0; i < kRecvBlocks; ++i) {
    bl[i] = kRecvBlock;
    d[i] = i * (kRecvBlock + 8);
  }
  MPI_Type_indexed(kRecvBlocks, bl, d, MPI_DOUBLE, &idx);
  MPI_Type_commit(&idx);
  const size_t send_n = (size_t)kBlocks * (kBlock + 3), recv_n = (size_t)kRecvBlocks * (kRecvBlock + 8);
  double *a = malloc(sizeof(double) * send_n), *b = malloc(sizeof(double) * recv_n);
  if (argc > 1 && strcmp(argv[1], "fault") == 0 && size >= 2) {
    /* PAMIR_FAULT=rdma-read: the receiver's reads of the shared copy fail; both ends report it. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_SUCCESS;
    if (rank == 0) rc = MPI_Send(a, 1, vec, 1, 9, MPI_COMM_WORLD);
    if (rank == 1) rc = MPI_Recv(b, 1, idx, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank < 2)
      CHECK(err_class(rc) == MPI_ERR_OTHER, "rank %d: a failed shared copy gives class %d", rank,
            err_class(rc));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
    free(a);
    free(b);
    free(bl);
    free(d);
    return finish("dt_zero_copy fault");
  }
  /* "indexed-origin": the indexed type sends and the vector receives. Its 2048 segments (32 KiB) are
   * more than a request-to-send carries where the target cannot read the origin's metadata (ofi), so
   * there the data comes in packets, still with no buffer. */
  const int swap = argc > 1 && strcmp(argv[1], "indexed-origin") == 0;
  for (int round = 0; round < 4 && size >= 2; ++round) {
    const int from = round % 2, to = 1 - from;
    if (swap) {
      for (size_t i = 0; i < recv_n; ++i) b[i] = -2;
      for (size_t k = 0; k < (size_t)kBlocks * kBlock; ++k)
        b[(k / kRecvBlock) * (kRecvBlock + 8) + k % kRecvBlock] = (double)(k * 3 + (size_t)round);
      for (size_t i = 0; i < send_n; ++i) a[i] = -1;
    } else {
      for (size_t i = 0; i < send_n; ++i) a[i] = (double)(i * 3 + (size_t)round);
      for (size_t i = 0; i < recv_n; ++i) b[i] = -1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* The first round each way warms the scratch that holds the peer's segment list. */
    counting = round > 1;
    if (rank == from) MPI_Send(swap ? b : a, 1, swap ? idx : vec, to, round, MPI_COMM_WORLD);
    if (rank == to)
      MPI_Recv(swap ? a : b, 1, swap ? vec : idx, from, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    counting = 0;
    if (rank == to && swap) {
      long bad = 0;
      for (size_t k = 0; k < (size_t)kBlocks * kBlock; ++k)
        bad += a[(k / kBlock) * (kBlock + 3) + k % kBlock] != (double)(k * 3 + (size_t)round);
      for (size_t blk = 0; blk < kBlocks; ++blk)
        for (size_t j = kBlock; j < kBlock + 3; ++j) bad += a[blk * (kBlock + 3) + j] != -1;
      CHECK(bad == 0, "round %d: %ld doubles wrong or gaps written", round, bad);
    } else if (rank == to) {
      long bad = 0;
      size_t k = 0; /* the k-th double of the message */
      for (int blk = 0; blk < kRecvBlocks; ++blk)
        for (int j = 0; j < kRecvBlock; ++j, ++k) {
          const size_t src = (k / kBlock) * (kBlock + 3) + k % kBlock;
          bad += b[(size_t)blk * (kRecvBlock + 8) + (size_t)j] != (double)(src * 3 + (size_t)round);
        }
      for (int blk = 0; blk < kRecvBlocks; ++blk)
        for (int j = kRecvBlock; j < kRecvBlock + 8; ++j)
          bad += b[(size_t)blk * (kRecvBlock + 8) + (size_t)j] != -1;
      CHECK(bad == 0, "round %d: %ld doubles wrong or gaps written", round, bad);
    }
    if (round > 1)
      CHECK(allocations == 0, "round %d: rank %d made %ld allocations of 64 KiB or more", round, rank,
            (long)allocations);
  }
  MPI_Type_free(&vec);
  MPI_Type_free(&idx);
  free(a);
  free(b);
  free(bl);
  free(d);
  return finish("dt_zero_copy");
}
