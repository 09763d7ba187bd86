/* Rank 0 sends rank 1 one message of each size named on the command line, each checked byte by byte,
 * so that run.sh can compare the PAMIR_STATS protocol counts with the send table around its bounds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "needs 2 ranks, has %d", size);
  for (int i = 1; i < argc && size == 2; ++i) {
    const size_t n = (size_t)strtoull(argv[i], NULL, 0);
    unsigned char *b = malloc(n ? n : 1);
    if (rank == 0) {
      for (size_t k = 0; k < n; ++k) b[k] = (unsigned char)(k * 7 + (size_t)i);
      MPI_Send(b, (int)n, MPI_BYTE, 1, i, MPI_COMM_WORLD);
    } else {
      MPI_Status st;
      memset(b, 0, n);
      MPI_Recv(b, (int)n, MPI_BYTE, 0, i, MPI_COMM_WORLD, &st);
      int count = -1;
      MPI_Get_count(&st, MPI_BYTE, &count);
      size_t bad = n;
      for (size_t k = 0; k < n && bad == n; ++k)
        if (b[k] != (unsigned char)(k * 7 + (size_t)i)) bad = k;
      CHECK(count == (int)n && bad == n, "message of %zu bytes: count %d, first bad byte %zu", n, count, bad);
    }
    free(b);
  }
  return finish("sizes");
}
