/* MPI_Wtime and MPI_Wtick, whichever clock PAMIR_WTIME chooses: every rank's MPI_Wtime never goes back
 * over a million calls, measures a sleep of 200 ms as CLOCK_MONOTONIC does (within 1 %, and within
 * 2 ms), and MPI_Wtick is a positive resolution finer than a microsecond. Run with PAMIR_WTIME=auto, tsc
 * and clock by run.sh. */
#include <time.h>

#include "check.h"

static double monotonic(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double prev = MPI_Wtime();
  int backwards = 0;
  for (int i = 0; i < 1000000; ++i) {
    const double now = MPI_Wtime();
    if (now < prev) ++backwards;
    prev = now;
  }
  CHECK(backwards == 0, "MPI_Wtime went back %d times in a million calls", backwards);

  const double m0 = monotonic(), w0 = MPI_Wtime();
  const struct timespec nap = {0, 200 * 1000 * 1000};
  nanosleep(&nap, NULL);
  const double m1 = monotonic(), w1 = MPI_Wtime();
  const double ref = m1 - m0, got = w1 - w0, diff = got > ref ? got - ref : ref - got;
  CHECK(ref >= 0.2 && diff <= 0.01 * ref && diff <= 2e-3,
        "MPI_Wtime measured %.6f s where CLOCK_MONOTONIC measured %.6f s", got, ref);

  const double tick = MPI_Wtick();
  CHECK(tick > 0 && tick < 1e-6, "MPI_Wtick is %g s", tick);
  return finish("wtime");
}
