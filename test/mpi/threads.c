/* MPI_THREAD_MULTIPLE: several threads per rank send and receive at once, each on its own tag, with
 * data checks. Runs with 2 to 4 ranks. */
#include <pthread.h>
#include <string.h>

#include "check.h"

enum { THREADS = 4, ROUNDS = 300 };
static int rank, size;
static int thread_failures;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
  int t = (int)(long)arg;
  int peer = (rank + 1) % size, from = (rank + size - 1) % size;
  int out[600], in[600];
  for (int r = 0; r < ROUNDS; ++r) {
    int n = 1 + (r * 37 + t * 11) % 600;
    for (int i = 0; i < n; ++i) out[i] = rank * 100000 + t * 1000 + r + i;
    MPI_Request req;
    MPI_Irecv(in, 600, MPI_INT, from, t, MPI_COMM_WORLD, &req);
    MPI_Send(out, n, MPI_INT, peer, t, MPI_COMM_WORLD);
    MPI_Status st;
    MPI_Wait(&req, &st);
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    int ok = count == n;
    for (int i = 0; ok && i < n; ++i) ok = in[i] == from * 100000 + t * 1000 + r + i;
    if (!ok) {
      pthread_mutex_lock(&fail_lock);
      ++thread_failures;
      pthread_mutex_unlock(&fail_lock);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  int level;
  MPI_Query_thread(&level);
  CHECK(level == MPI_THREAD_MULTIPLE, "query_thread %d", level);
  int main_flag = 0;
  MPI_Is_thread_main(&main_flag);
  CHECK(main_flag, "main thread is main");
  pthread_t th[THREADS];
  for (long t = 0; t < THREADS; ++t) pthread_create(&th[t], NULL, worker, (void *)t);
  for (int t = 0; t < THREADS; ++t) pthread_join(th[t], NULL);
  CHECK(thread_failures == 0, "%d thread rounds got wrong data", thread_failures);
  return finish("threads");
}
