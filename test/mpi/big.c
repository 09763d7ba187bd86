/* One message larger than 2 GiB between two ranks, sent with the large-count interface and checked. */
#include <stdint.h>
#include <string.h>

#include "check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const MPI_Count n = ((MPI_Count)1 << 31) + 4099; /* bytes */
  if (size >= 2 && rank < 2) {
    unsigned char *buf = malloc((size_t)n);
    if (rank == 0) {
      for (MPI_Count i = 0; i < n; i += 4096) buf[i] = (unsigned char)(i >> 12);
      buf[n - 1] = 0xAB;
      MPI_Send_c(buf, n, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
    } else {
      memset(buf, 0, (size_t)n);
      MPI_Status st;
      MPI_Recv_c(buf, n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &st);
      int ok = buf[n - 1] == 0xAB;
      for (MPI_Count i = 0; ok && i < n - 1; i += 4096) ok = buf[i] == (unsigned char)(i >> 12);
      CHECK(ok, "payload of the 2 GiB+ message");
      MPI_Count count = 0;
      MPI_Get_count_c(&st, MPI_BYTE, &count);
      CHECK(count == n, "count %lld", (long long)count);
      int small;
      MPI_Get_count(&st, MPI_BYTE, &small);
      CHECK(small == MPI_UNDEFINED, "MPI_Get_count of > INT_MAX elements is MPI_UNDEFINED (%d)", small);
    }
    free(buf);
  }
  return finish("big");
}
