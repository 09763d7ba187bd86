/* A nonblocking call that finds nothing done gives the core away where blocked calls do
 * (PAMIR_YIELD_WHEN_IDLE: yes, or auto with more ranks than CPUs): a loop of MPI_Test may wait for a peer
 * that needs this very core. This program counts the library's sched_yield calls (its own definition
 * takes the place of the C library's) while each polling call, 100 times over, finds an MPI_Irecv not yet
 * matched; then it sends the message to itself and checks it arrives. Usage: poll_yield yes|no (what
 * PAMIR_YIELD_WHEN_IDLE is): with yes every call yields each time, with no none does. One rank. */
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

static long yields;

int sched_yield(void) {
  ++yields;
  return (int)syscall(SYS_sched_yield);
}

enum { kPolls = 100, kTag = 7 };

/* Each polling call once on the pending receive r: whether it found it done (or a message to probe). */
static int test(MPI_Request *r) {
  int flag = -1;
  MPI_Test(r, &flag, MPI_STATUS_IGNORE);
  return flag;
}
static int testany(MPI_Request *r) {
  int flag = -1, index;
  MPI_Testany(1, r, &index, &flag, MPI_STATUS_IGNORE);
  return flag;
}
static int testall(MPI_Request *r) {
  int flag = -1;
  MPI_Testall(1, r, &flag, MPI_STATUSES_IGNORE);
  return flag;
}
static int testsome(MPI_Request *r) {
  int outcount = -1, index;
  MPI_Testsome(1, r, &outcount, &index, MPI_STATUSES_IGNORE);
  return outcount != 0;
}
static int get_status(MPI_Request *r) {
  int flag = -1;
  MPI_Request_get_status(*r, &flag, MPI_STATUS_IGNORE);
  return flag;
}
static int get_status_any(MPI_Request *r) {
  int flag = -1, index;
  MPI_Request_get_status_any(1, r, &index, &flag, MPI_STATUS_IGNORE);
  return flag;
}
static int get_status_all(MPI_Request *r) {
  int flag = -1;
  MPI_Request_get_status_all(1, r, &flag, MPI_STATUSES_IGNORE);
  return flag;
}
static int get_status_some(MPI_Request *r) {
  int outcount = -1, index;
  MPI_Request_get_status_some(1, r, &outcount, &index, MPI_STATUSES_IGNORE);
  return outcount != 0;
}
static int iprobe(MPI_Request *r) {
  (void)r;
  int flag = -1;
  MPI_Iprobe(0, kTag, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
  return flag;
}
static int improbe(MPI_Request *r) {
  (void)r;
  int flag = -1;
  MPI_Message msg;
  MPI_Improbe(0, kTag, MPI_COMM_SELF, &flag, &msg, MPI_STATUS_IGNORE);
  return flag;
}

static const struct {
  const char *name;
  int (*poll)(MPI_Request *);
} calls[] = {
    {"MPI_Test", test},
    {"MPI_Testany", testany},
    {"MPI_Testall", testall},
    {"MPI_Testsome", testsome},
    {"MPI_Request_get_status", get_status},
    {"MPI_Request_get_status_any", get_status_any},
    {"MPI_Request_get_status_all", get_status_all},
    {"MPI_Request_get_status_some", get_status_some},
    {"MPI_Iprobe", iprobe},
    {"MPI_Improbe", improbe},
};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int expect_yields = argc > 1 && strcmp(argv[1], "yes") == 0;
  int got = -1;
  MPI_Request r;
  MPI_Irecv(&got, 1, MPI_INT, 0, kTag, MPI_COMM_SELF, &r);
  for (size_t c = 0; c < sizeof calls / sizeof calls[0]; ++c) {
    const long before = yields;
    int misses = 0;
    for (int i = 0; i < kPolls; ++i) misses += calls[c].poll(&r) == 0;
    const long n = yields - before;
    CHECK(misses == kPolls, "%s found something done %d times of %d", calls[c].name, kPolls - misses, kPolls);
    if (expect_yields)
      CHECK(n >= kPolls, "%s found nothing %d times and yielded %ld times", calls[c].name, misses, n);
    else
      CHECK(n == 0, "%s yielded %ld times with PAMIR_YIELD_WHEN_IDLE=no", calls[c].name, n);
  }
  const int sent = 42;
  MPI_Send(&sent, 1, MPI_INT, 0, kTag, MPI_COMM_SELF);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  CHECK(got == sent, "received %d, sent %d", got, sent);
  return finish("poll_yield");
}
