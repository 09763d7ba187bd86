/* test/multinode/mn_tables.c - each peer's messages are selected by its own device's send table.
 *
 * Run with 2 ranks per host on 2 hosts (srun -N 2 -n 4 --mpi=pmix, block distribution: ranks 0 and 1 on
 * the first host, 2 and 3 on the second). Rank 0 sends the same two messages, 2 KiB and 48 KiB, to rank 1
 * (its host: shm) and to rank 2 (the other host: ofi); the receivers check every byte. With the default
 * tables (pami/send_tables.cc) shm sends both eagerly, while over tcp;ofi_rxm 2 KiB is immediate and
 * 48 KiB a rendezvous: run.sh reads that from rank 0's PAMIR_STATS lines. Exit 0 iff the placement is as
 * assumed and every byte arrived.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kNames = 64 };

static unsigned char expected(size_t i, int n) {
  return (unsigned char)(i * 13 + (size_t)n);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 4) {
    fprintf(stderr, "mn_tables: needs 4 ranks (2 per host), has %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char host[kNames] = "";
  gethostname(host, sizeof host - 1);
  const size_t sizes[2] = {2048, 49152};
  if (rank == 0) {
    char other[2][kNames];
    for (int k = 0; k < 2; ++k)
      MPI_Recv(other[k], kNames, MPI_CHAR, k + 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (strcmp(other[0], host) != 0 || strcmp(other[1], host) == 0) {
      fprintf(stderr, "mn_tables: ranks 0, 1, 2 on %s, %s, %s: not 2 per host in blocks\n", host, other[0],
              other[1]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    unsigned char *buf = malloc(sizes[1]);
    for (int dest = 1; dest <= 2; ++dest)
      for (int n = 0; n < 2; ++n) {
        for (size_t i = 0; i < sizes[n]; ++i) buf[i] = expected(i, n);
        MPI_Send(buf, (int)sizes[n], MPI_BYTE, dest, 10 + n, MPI_COMM_WORLD);
      }
    free(buf);
  } else if (rank <= 2) {
    MPI_Send(host, kNames, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    unsigned char *buf = malloc(sizes[1]);
    for (int n = 0; n < 2; ++n) {
      MPI_Status st;
      int count = -1;
      memset(buf, 0, sizes[n]);
      MPI_Recv(buf, (int)sizes[n], MPI_BYTE, 0, 10 + n, MPI_COMM_WORLD, &st);
      MPI_Get_count(&st, MPI_BYTE, &count);
      size_t wrong = 0;
      for (size_t i = 0; i < sizes[n]; ++i) wrong += buf[i] != expected(i, n);
      if (count != (int)sizes[n] || wrong) {
        fprintf(stderr, "mn_tables: rank %d: message of %zu bytes: count %d, %zu wrong bytes\n", rank,
                sizes[n], count, wrong);
        bad = 1;
      }
    }
    free(buf);
  }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    printf("mn_tables: %s\n",
           any ? "FAILED" : "2 KiB and 48 KiB to a shm peer and an ofi peer arrived intact");
  MPI_Finalize();
  return any;
}
