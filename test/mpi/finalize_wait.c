/* A large send freed with MPI_Request_free before anyone receives it: MPI_Finalize must keep its data
 * readable until the receive comes (here 12 s later), say after 10 s what it waits for, and then end
 * normally with the data delivered intact. */
#include <unistd.h>

#include "check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 1 << 20; /* above every eager range: a rendezvous */
  unsigned char *buf = malloc(n);
  if (rank == 0) {
    for (int i = 0; i < n; ++i) buf[i] = (unsigned char)(i * 7 + 3);
    MPI_Request r;
    MPI_Isend(buf, n, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &r);
    MPI_Request_free(&r);
    CHECK(r == MPI_REQUEST_NULL, "request_free leaves MPI_REQUEST_NULL");
  } else if (rank == 1) {
    sleep(12);
    memset(buf, 0, n);
    MPI_Recv(buf, n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += buf[i] != (unsigned char)(i * 7 + 3);
    CHECK(bad == 0, "%d bytes differ", bad);
  }
  /* Straight into MPI_Finalize, rank 0 with its send unmatched for 12 s. The buffer stays allocated:
   * the freed send may be read until MPI_Finalize returns. */
  MPI_Finalize();
  free(buf);
  if (rank == 1) printf("finalize_wait: %d checks passed, %d failed\n", checks_passed, checks_failed);
  return checks_failed ? 1 : 0;
}
