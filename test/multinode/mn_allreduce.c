/* test/multinode/mn_allreduce.c - MPI_Allreduce of the ranks across emulated hosts.
 *
 *   mn_allreduce            one allreduce; prints one line per rank; exit 0 iff the sum is right
 *   mn_allreduce --hang S   after that, keep doing allreduces for S seconds (the kill test kills a
 *                           rank while the others are inside this loop)
 *
 * Plain MPI: builds with any mpicc (Debian's Open MPI for now, Pamir's later).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char host[256] = "";
  gethostname(host, sizeof host - 1);

  long mine = rank, sum = -1;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  long expect = (long)size * (size - 1) / 2;
  int ok = sum == expect;
  printf("rank %d/%d on %s pid %ld: sum=%ld expect=%ld %s\n", rank, size, host, (long)getpid(), sum, expect,
         ok ? "OK" : "WRONG");
  fflush(stdout);

  if (argc > 2 && strcmp(argv[1], "--hang") == 0) {
    time_t end = time(NULL) + atoi(argv[2]);
    while (time(NULL) < end) {
      MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
      usleep(100000);
    }
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
