/* A nonblocking call that finds nothing done gives the core away where blocked calls do
 * (PAMIR_YIELD_WHEN_IDLE: yes, or auto with more ranks than CPUs): a loop of MPI_Test may wait for a peer
 * that needs this very core. This program counts the library's sched_yield calls (its own definition
 * takes the place of the C library's) while each polling call, 100 times over, finds nothing: an
 * MPI_Irecv not yet matched, an exposure epoch no access epoch has completed (MPI_Win_test), a partitioned
 * receive whose send has not started (MPI_Parrived); then it completes each and checks the data. Usage:
 * poll_yield yes|no (what PAMIR_YIELD_WHEN_IDLE is): with yes every call yields each time, with no none
 * does. Each rank works on MPI_COMM_SELF. */
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
static int test(void *arg) {
  MPI_Request *r = arg;
  int flag = -1;
  MPI_Test(r, &flag, MPI_STATUS_IGNORE);
  return flag;
}
static int testany(void *arg) {
  MPI_Request *r = arg;
  int flag = -1, index;
  MPI_Testany(1, r, &index, &flag, MPI_STATUS_IGNORE);
  return flag;
}
static int testall(void *arg) {
  MPI_Request *r = arg;
  int flag = -1;
  MPI_Testall(1, r, &flag, MPI_STATUSES_IGNORE);
  return flag;
}
static int testsome(void *arg) {
  MPI_Request *r = arg;
  int outcount = -1, index;
  MPI_Testsome(1, r, &outcount, &index, MPI_STATUSES_IGNORE);
  return outcount != 0;
}
static int get_status(void *arg) {
  MPI_Request *r = arg;
  int flag = -1;
  MPI_Request_get_status(*r, &flag, MPI_STATUS_IGNORE);
  return flag;
}
static int get_status_any(void *arg) {
  MPI_Request *r = arg;
  int flag = -1, index;
  MPI_Request_get_status_any(1, r, &index, &flag, MPI_STATUS_IGNORE);
  return flag;
}
static int get_status_all(void *arg) {
  MPI_Request *r = arg;
  int flag = -1;
  MPI_Request_get_status_all(1, r, &flag, MPI_STATUSES_IGNORE);
  return flag;
}
static int get_status_some(void *arg) {
  MPI_Request *r = arg;
  int outcount = -1, index;
  MPI_Request_get_status_some(1, r, &outcount, &index, MPI_STATUSES_IGNORE);
  return outcount != 0;
}
static int iprobe(void *arg) {
  (void)arg;
  int flag = -1;
  MPI_Iprobe(0, kTag, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
  return flag;
}
static int improbe(void *arg) {
  (void)arg;
  int flag = -1;
  MPI_Message msg;
  MPI_Improbe(0, kTag, MPI_COMM_SELF, &flag, &msg, MPI_STATUS_IGNORE);
  return flag;
}

static const struct {
  const char *name;
  int (*poll)(void *);
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

/* MPI_Win_test on an exposure epoch that no access epoch has completed, and MPI_Parrived on a
 * partitioned receive whose send has not started: each counted as above. */
static void count_yields(const char *name, int (*poll)(void *), void *arg, int expect_yields) {
  const long before = yields;
  int misses = 0;
  for (int i = 0; i < kPolls; ++i) misses += poll(arg) == 0;
  const long n = yields - before;
  CHECK(misses == kPolls, "%s found something done %d times of %d", name, kPolls - misses, kPolls);
  if (expect_yields)
    CHECK(n >= kPolls, "%s found nothing %d times and yielded %ld times", name, misses, n);
  else
    CHECK(n == 0, "%s yielded %ld times with PAMIR_YIELD_WHEN_IDLE=no", name, n);
}
static int win_test(void *win) {
  int flag = -1;
  MPI_Win_test(*(MPI_Win *)win, &flag);
  return flag;
}
static int parrived(void *req) {
  int flag = -1;
  MPI_Parrived(*(MPI_Request *)req, 0, &flag);
  return flag;
}

static void window_and_partitions(int expect_yields) {
  int word = 0, got = -1, sent = 7;
  MPI_Win win;
  MPI_Group self;
  MPI_Comm_group(MPI_COMM_SELF, &self);
  MPI_Win_create(&word, sizeof word, 1, MPI_INFO_NULL, MPI_COMM_SELF, &win);
  MPI_Win_post(self, 0, win);
  count_yields("MPI_Win_test", win_test, &win, expect_yields);
  MPI_Win_start(self, 0, win);
  MPI_Put(&sent, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  CHECK(word == sent, "the put through the window left %d, not %d", word, sent);
  MPI_Win_free(&win);
  MPI_Group_free(&self);

  MPI_Request recv, send;
  MPI_Precv_init(&got, 1, 1, MPI_INT, 0, kTag, MPI_COMM_SELF, MPI_INFO_NULL, &recv);
  MPI_Psend_init(&sent, 1, 1, MPI_INT, 0, kTag, MPI_COMM_SELF, MPI_INFO_NULL, &send);
  MPI_Start(&recv);
  count_yields("MPI_Parrived", parrived, &recv, expect_yields);
  MPI_Start(&send);
  MPI_Pready(0, send);
  MPI_Wait(&send, MPI_STATUS_IGNORE);
  MPI_Wait(&recv, MPI_STATUS_IGNORE);
  CHECK(got == sent, "the partitioned receive got %d, not %d", got, sent);
  MPI_Request_free(&send);
  MPI_Request_free(&recv);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int expect_yields = argc > 1 && strcmp(argv[1], "yes") == 0;
  int got = -1;
  MPI_Request r;
  MPI_Irecv(&got, 1, MPI_INT, 0, kTag, MPI_COMM_SELF, &r);
  for (size_t c = 0; c < sizeof calls / sizeof calls[0]; ++c)
    count_yields(calls[c].name, calls[c].poll, &r, expect_yields);
  const int sent = 42;
  MPI_Send(&sent, 1, MPI_INT, 0, kTag, MPI_COMM_SELF);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  CHECK(got == sent, "received %d, sent %d", got, sent);
  window_and_partitions(expect_yields);
  return finish("poll_yield");
}
