/*
 * flood_latency: the latency between two ranks of one host while a rank on another host floods one of
 * them, against the same latency with the flood off. Not an OSU program: it measures what a context
 * driving two devices costs the faster one (issue 17: shm latency inside a host stays within 10% while
 * the ofi link is flooded).
 *
 *   srun -N 2 -n 4 --mpi=pmix flood_latency [-s FLOOD_BYTES] [-w WINDOW] [-i ITER] [-r ROUNDS]
 *
 * Ranks 0 and 1 (one host) ping-pong 8 bytes ITER times (after ITER/10 untimed); rank 2 (the other
 * host) floods rank 0 with messages of FLOOD_BYTES (default 65536) in rounds of WINDOW (default 16)
 * nonblocking sends, which rank 0 keeps posted receives for and tests once per ping-pong iteration, as
 * an application overlapping a transfer would. Rank 3 waits. The two conditions alternate ROUNDS times
 * (default 5) and the medians are printed, with their ratio and the flood's bandwidth. With 2 ranks
 * (one host, no other device) it prints the quiet latency alone. Plain MPI: builds with any mpicc.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_PING = 1, TAG_FLOOD = 2, TAG_STOP = 3, MAX_WINDOW = 256, MAX_ROUNDS = 64 };

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Rank 0's side of the flood: WINDOW receives posted, reposted as a round completes, until the message
 * whose first byte says it is the last. */
struct flood_rx {
  MPI_Request rq[MAX_WINDOW];
  char *buf;
  size_t bytes;
  int window, active, last_seen;
  double received;
};

static void rx_post(struct flood_rx *f) {
  for (int i = 0; i < f->window; ++i)
    MPI_Irecv(f->buf + (size_t)i * f->bytes, (int)f->bytes, MPI_BYTE, 2, TAG_FLOOD, MPI_COMM_WORLD,
              &f->rq[i]);
  f->active = 1;
}

static void rx_test(struct flood_rx *f) {
  int done = 0;
  if (!f->active) return;
  MPI_Testall(f->window, f->rq, &done, MPI_STATUSES_IGNORE);
  if (!done) return;
  f->received += (double)f->bytes * f->window;
  f->active = 0;
  for (int i = 0; i < f->window; ++i)
    if (f->buf[(size_t)i * f->bytes]) f->last_seen = 1;
  if (!f->last_seen) rx_post(f);
}

/* One ping-pong run of iter timed iterations (rank 0 and 1); rank 0 tests the flood each iteration. */
static double pingpong(int rank, int iter, struct flood_rx *f) {
  char msg[8] = {0};
  const int warm = iter / 10;
  double t0 = 0;
  for (int i = 0; i < warm + iter; ++i) {
    if (i == warm) t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(msg, 8, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD);
      MPI_Recv(msg, 8, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (f) rx_test(f);
    } else {
      MPI_Recv(msg, 8, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(msg, 8, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - t0) * 1e6 / (2.0 * iter);
}

/* Rank 2: rounds of window sends until rank 0 says stop; the last round's last message is marked. */
static void flood(char *buf, size_t bytes, int window) {
  MPI_Request rq[MAX_WINDOW];
  int stop = 0;
  while (!stop) {
    MPI_Iprobe(0, TAG_STOP, MPI_COMM_WORLD, &stop, MPI_STATUS_IGNORE);
    if (stop) MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_STOP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < window; ++i) {
      buf[(size_t)i * bytes] = (char)(stop && i == window - 1);
      MPI_Isend(buf + (size_t)i * bytes, (int)bytes, MPI_BYTE, 0, TAG_FLOOD, MPI_COMM_WORLD, &rq[i]);
    }
    MPI_Waitall(window, rq, MPI_STATUSES_IGNORE);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t bytes = 65536;
  int window = 16, iter = 20000, rounds = 5;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!strcmp(argv[a], "-s"))
      bytes = strtoul(argv[a + 1], NULL, 0);
    else if (!strcmp(argv[a], "-w"))
      window = atoi(argv[a + 1]);
    else if (!strcmp(argv[a], "-i"))
      iter = atoi(argv[a + 1]);
    else if (!strcmp(argv[a], "-r"))
      rounds = atoi(argv[a + 1]);
  }
  if (size != 2 && size != 4) {
    if (rank == 0) fprintf(stderr, "flood_latency: run with 4 ranks (2 per host) or 2 (one host)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (bytes < 1 || window < 1 || window > MAX_WINDOW || iter < 10 || rounds < 1 || rounds > MAX_ROUNDS) {
    if (rank == 0) fprintf(stderr, "flood_latency: bad option\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int flooding = size == 4;
  char *buf = (rank == 0 || rank == 2) ? calloc((size_t)window, bytes) : NULL;
  double quiet[MAX_ROUNDS], flooded[MAX_ROUNDS], bw[MAX_ROUNDS];
  for (int r = 0; r < rounds; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank < 2) quiet[r] = pingpong(rank, iter, NULL);
    if (!flooding) continue;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      struct flood_rx f = {.buf = buf, .bytes = bytes, .window = window};
      rx_post(&f);
      /* The flood is under way before the clock starts: one round has arrived. */
      while (f.received == 0) rx_test(&f);
      const double t0 = MPI_Wtime();
      const double before = f.received;
      flooded[r] = pingpong(rank, iter, &f);
      bw[r] = (f.received - before) / (MPI_Wtime() - t0) / 1e6;
      MPI_Send(NULL, 0, MPI_BYTE, 2, TAG_STOP, MPI_COMM_WORLD);
      while (!f.last_seen) {
        MPI_Waitall(window, f.rq, MPI_STATUSES_IGNORE);
        f.active = 1;
        rx_test(&f);
      }
    } else if (rank == 1) {
      flooded[r] = pingpong(rank, iter, NULL);
    } else if (rank == 2) {
      flood(buf, bytes, window);
    }
  }
  if (rank == 0) {
    const double q = median(quiet, rounds);
    printf(
        "# flood_latency: 8-byte ping-pong between ranks 0 and 1 (one host), %d iterations, median of %d\n",
        iter, rounds);
    if (flooding) {
      const double l = median(flooded, rounds), b = median(bw, rounds);
      printf("# rank 2 (other host) floods rank 0: %zu-byte messages, %d in flight\n", bytes, window);
      printf("%-24s%18s\n", "# Condition", "Latency (us)");
      printf("%-24s%18.3f\n", "quiet", q);
      printf("%-24s%18.3f\n", "flooded", l);
      printf("# flooded/quiet %.3f; flood delivered %.1f MB/s to rank 0\n", l / q, b);
    } else {
      printf("%-24s%18s\n", "# Condition", "Latency (us)");
      printf("%-24s%18.3f\n", "quiet (one host)", q);
    }
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
