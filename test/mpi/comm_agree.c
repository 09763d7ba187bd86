/* Context-id agreement under every order the standard allows: communicator creations started in
 * different orders on different ranks (nonblocking ones on different parents, a blocking one on one
 * parent beside a pending nonblocking one on another), MPI_Comm_create_group on random overlapping
 * groups, many MPI_Comm_idup outstanding with traffic on the parent meanwhile, and, under
 * MPI_THREAD_MULTIPLE, threads creating communicators from different parents at once. Every new
 * communicator is checked: its size, its rank order, and an allreduce and a ring exchange on it whose
 * results depend on who its members are, so two communicators that shared an id would show it.
 *
 * usage: comm_agree [ITERATIONS [PARTS]]   ITERATIONS default 200; PARTS a comma-separated list of
 * order, beside, group, many, threads (default all). A hang is what a broken agreement does: run it
 * under mpirun --timeout. */
#include <pthread.h>
#include <stdint.h>

#include "check.h"

static int world_rank, world_size, iterations = 200;

/* A deterministic generator, seeded the same on every rank where the ranks must agree. */
static uint32_t next_random(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*s >> 33);
}

/* That c is a communicator over exactly the world ranks in members[0..n) (in that order), and that
 * traffic on it reaches exactly them. */
static void check_comm(MPI_Comm c, const int *members, int n, const char *what) {
  int size = -1, rank = -1;
  MPI_Comm_size(c, &size);
  MPI_Comm_rank(c, &rank);
  CHECK(size == n, "%s: size %d, expected %d", what, size, n);
  if (size != n) return;
  CHECK(rank >= 0 && rank < n && members[rank] == world_rank, "%s: rank %d is not world rank %d's place",
        what, rank, world_rank);
  long mine[2] = {world_rank + 1, 1L << (world_rank % 40)}, sum[2] = {0, 0}, expect[2] = {0, 0};
  for (int i = 0; i < n; ++i) {
    expect[0] += members[i] + 1;
    expect[1] += 1L << (members[i] % 40);
  }
  MPI_Allreduce(mine, sum, 2, MPI_LONG, MPI_SUM, c);
  CHECK(sum[0] == expect[0] && sum[1] == expect[1], "%s: allreduce %ld/%ld, expected %ld/%ld", what, sum[0],
        sum[1], expect[0], expect[1]);
  int from = -1;
  const int right = (rank + 1) % n, left = (rank + n - 1) % n;
  MPI_Sendrecv(&world_rank, 1, MPI_INT, right, 7, &from, 1, MPI_INT, left, 7, c, MPI_STATUS_IGNORE);
  CHECK(from == members[left], "%s: ring message from world rank %d, expected %d", what, from, members[left]);
}

static int *all_ranks(void) {
  int *m = malloc(sizeof(int) * (size_t)world_size);
  for (int i = 0; i < world_size; ++i) m[i] = i;
  return m;
}

/* Nonblocking duplications of three parents, started in an order of each rank's own. */
static void idups_in_any_order(MPI_Comm *parents, int np, const int *members) {
  uint64_t seed = 0x1234u + (uint64_t)world_rank * 7919u;
  for (int it = 0; it < iterations; ++it) {
    int order[8];
    for (int i = 0; i < np; ++i) order[i] = i;
    for (int i = np - 1; i > 0; --i) {
      int j = (int)(next_random(&seed) % (uint32_t)(i + 1)), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    MPI_Comm out[8];
    MPI_Request req[8];
    /* out[k] is the duplicate of parents[k], whatever the order they were started in. */
    for (int i = 0; i < np; ++i) MPI_Comm_idup(parents[order[i]], &out[order[i]], &req[i]);
    MPI_Waitall(np, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < np; ++i) {
      check_comm(out[i], members, world_size, "idup in any order");
      MPI_Comm_free(&out[i]);
    }
  }
}

/* Even ranks start an idup of a and then duplicate b; odd ranks duplicate b first: the blocking call
 * must complete while the other's agreement is still waiting for ranks that are inside it. */
static void blocking_beside_pending(MPI_Comm a, MPI_Comm b, const int *members) {
  for (int it = 0; it < iterations; ++it) {
    MPI_Comm na, nb;
    MPI_Request r;
    if (world_rank % 2 == 0) {
      MPI_Comm_idup(a, &na, &r);
      MPI_Comm_dup(b, &nb);
    } else {
      MPI_Comm_dup(b, &nb);
      MPI_Comm_idup(a, &na, &r);
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    check_comm(na, members, world_size, "idup beside dup");
    check_comm(nb, members, world_size, "dup beside idup");
    MPI_Comm_free(&na);
    MPI_Comm_free(&nb);
  }
}

/* MPI_Comm_create_group on a random group (the same sequence on every rank), an idup of the parent
 * pending meanwhile on every iteration of three. */
static void random_create_group(MPI_Comm parent) {
  uint64_t seed = 42;
  MPI_Group world_group;
  MPI_Comm_group(parent, &world_group);
  for (int it = 0; it < iterations; ++it) {
    int members[64], n = 0;
    const uint32_t pick = next_random(&seed);
    for (int r = 0; r < world_size; ++r)
      if (pick & (1u << r)) members[n++] = r;
    if (n == 0) members[n++] = (int)(pick % (uint32_t)world_size);
    /* A random order of the members: the new ranks follow the group's order, not the parent's. */
    for (int i = n - 1; i > 0; --i) {
      int j = (int)(next_random(&seed) % (uint32_t)(i + 1)), t = members[i];
      members[i] = members[j];
      members[j] = t;
    }
    const int pending = it % 3 == 0;
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Request r = MPI_REQUEST_NULL;
    if (pending) MPI_Comm_idup(parent, &dup, &r);
    int member = 0;
    for (int i = 0; i < n; ++i) member |= members[i] == world_rank;
    if (member) {
      MPI_Group g;
      MPI_Comm c;
      MPI_Group_incl(world_group, n, members, &g);
      MPI_Comm_create_group(parent, g, it % 5, &c);
      check_comm(c, members, n, "create_group");
      MPI_Comm_free(&c);
      MPI_Group_free(&g);
    }
    if (pending) {
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      int *all = all_ranks();
      check_comm(dup, all, world_size, "idup beside create_group");
      free(all);
      MPI_Comm_free(&dup);
    }
  }
  MPI_Group_free(&world_group);
}

/* Ten idups outstanding, with collectives and point-to-point traffic on the parent before the wait. */
static void many_outstanding(MPI_Comm parent, const int *members) {
  enum { kOut = 10 };
  for (int it = 0; it < iterations / 10 + 1; ++it) {
    MPI_Comm out[kOut];
    MPI_Request req[kOut];
    for (int i = 0; i < kOut; ++i) MPI_Comm_idup(parent, &out[i], &req[i]);
    check_comm(parent, members, world_size, "parent while idups are pending");
    MPI_Waitall(kOut, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < kOut; ++i) check_comm(out[i], members, world_size, "one of ten idups");
    int same = 0;
    MPI_Comm_compare(out[0], out[kOut - 1], &same);
    CHECK(same == MPI_CONGRUENT, "two idups of one parent compare %d, expected MPI_CONGRUENT", same);
    for (int i = 0; i < kOut; ++i) MPI_Comm_free(&out[i]);
  }
}

/* Threads: each duplicates its own parent (blocking, or idup and wait, or create_group with its own
 * tag) as fast as it can. */
struct thread_arg {
  MPI_Comm parent;
  int index;
};

static void *thread_body(void *p) {
  struct thread_arg *a = p;
  int *all = all_ranks();
  MPI_Group g;
  MPI_Comm_group(a->parent, &g);
  for (int it = 0; it < iterations; ++it) {
    MPI_Comm c;
    switch ((it + a->index) % 3) {
      case 0:
        MPI_Comm_dup(a->parent, &c);
        break;
      case 1: {
        MPI_Request r;
        MPI_Comm_idup(a->parent, &c, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        break;
      }
      default:
        MPI_Comm_create_group(a->parent, g, 100 + a->index, &c);
        break;
    }
    check_comm(c, all, world_size, "a thread's new communicator");
    MPI_Comm_free(&c);
  }
  MPI_Group_free(&g);
  free(all);
  return NULL;
}

static void threads_creating(MPI_Comm *parents) {
  pthread_t t[2];
  struct thread_arg args[2];
  for (int i = 0; i < 2; ++i) {
    /* Rank-dependent start order: odd ranks start the second thread first. */
    const int k = world_rank % 2 ? 1 - i : i;
    args[k].parent = parents[k];
    args[k].index = k;
    pthread_create(&t[k], NULL, thread_body, &args[k]);
  }
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (argc > 1) iterations = atoi(argv[1]);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

  int *members = all_ranks();
  MPI_Comm parents[3] = {MPI_COMM_WORLD, MPI_COMM_NULL, MPI_COMM_NULL};
  MPI_Comm_dup(MPI_COMM_WORLD, &parents[1]);
  MPI_Comm_dup(MPI_COMM_WORLD, &parents[2]);

  const char *parts = argc > 2 ? argv[2] : "order,beside,group,many,threads";
  if (strstr(parts, "order")) idups_in_any_order(parents, 3, members);
  if (strstr(parts, "beside")) blocking_beside_pending(parents[1], parents[2], members);
  if (strstr(parts, "group")) random_create_group(parents[1]);
  if (strstr(parts, "many")) many_outstanding(parents[2], members);
  if (strstr(parts, "threads")) {
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE is provided (%d)", provided);
    if (provided == MPI_THREAD_MULTIPLE) threads_creating(&parents[1]);
  }

  MPI_Comm_free(&parents[1]);
  MPI_Comm_free(&parents[2]);
  free(members);
  return finish("comm_agree");
}
