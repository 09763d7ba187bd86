/* The communicators' slots in the node's shared collective areas (collectives/shm_slot.h), through the
 * shared-memory algorithms forced per communicator, on 3 ranks.
 *
 * A late reader: rank 0 broadcasts on X and frees it while rank 2 has not read yet (it sleeps), then
 * ranks 0 and 1 make Y with MPI_Comm_create_group and broadcast on it. The first call of every
 * communicator has the same publication id, so if rank 0 let Y use X's slot before rank 2 had read,
 * rank 2 would find Y's data under X's id (or wait forever). Rank 2 must get X's data.
 *
 * Reuse: 40 communicators made and freed in turn, each with a forced shared-memory broadcast and
 * allreduce. There are 16 slots: if freed slots did not come back (after their last reader), the
 * forced algorithm would be refused with MPI_ERR_UNSUPPORTED_OPERATION from the 15th on. */
#include <unistd.h>

#include "check.h"

enum { kInts = 5000 }; /* 20000 bytes: two chunks of a cell */

static int rank, size;

static MPI_Comm with_shm(MPI_Comm c) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "pamir_coll_bcast", "shm");
  MPI_Info_set(info, "pamir_coll_allreduce", "shm");
  MPI_Info_set(info, "pamir_coll_barrier", "shm");
  MPI_Comm_set_info(c, info);
  MPI_Info_free(&info);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  return c;
}

static void fill(int *v, int tag) {
  for (int i = 0; i < kInts; ++i) v[i] = tag * 100000 + i;
}
static int wrong(const int *v, int tag) {
  int bad = 0;
  for (int i = 0; i < kInts; ++i) bad += v[i] != tag * 100000 + i;
  return bad;
}

static void late_reader(void) {
  static int buf[kInts];
  MPI_Comm x;
  MPI_Comm_dup(MPI_COMM_WORLD, &x);
  with_shm(x);
  if (rank == 2) usleep(300 * 1000);
  fill(buf, rank == 0 ? 1 : 9);
  int rc = MPI_Bcast(buf, kInts, MPI_INT, 0, x);
  CHECK(rc == MPI_SUCCESS && wrong(buf, 1) == 0, "X's broadcast: rc %d, %d wrong", rc, wrong(buf, 1));
  MPI_Comm_free(&x);
  if (rank < 2) {
    MPI_Group world, pair;
    const int members[2] = {0, 1};
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 2, members, &pair);
    MPI_Comm y;
    MPI_Comm_create_group(MPI_COMM_WORLD, pair, 7, &y);
    with_shm(y);
    for (int round = 0; round < 4; ++round) { /* both cells, twice */
      fill(buf, rank == 0 ? 2 + round : 9);
      rc = MPI_Bcast(buf, kInts, MPI_INT, 0, y);
      CHECK(rc == MPI_SUCCESS && wrong(buf, 2 + round) == 0, "Y's broadcast %d: rc %d, %d wrong", round, rc,
            wrong(buf, 2 + round));
    }
    MPI_Comm_free(&y);
    MPI_Group_free(&pair);
    MPI_Group_free(&world);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void reuse(void) {
  static int buf[kInts];
  for (int i = 0; i < 40; ++i) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    with_shm(c);
    const int root = i % size;
    fill(buf, rank == root ? 10 + i : 9);
    int rc = MPI_Bcast(buf, kInts, MPI_INT, root, c);
    CHECK(rc == MPI_SUCCESS && wrong(buf, 10 + i) == 0, "communicator %d: broadcast rc %d, %d wrong", i, rc,
          wrong(buf, 10 + i));
    long in = rank + i, out = -1;
    rc = MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, c);
    CHECK(rc == MPI_SUCCESS && out == (long)size * (size - 1) / 2 + (long)size * i,
          "communicator %d: allreduce rc %d, sum %ld", i, rc, out);
    rc = MPI_Barrier(c);
    CHECK(rc == MPI_SUCCESS, "communicator %d: barrier rc %d", i, rc);
    MPI_Comm_free(&c);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size >= 3) late_reader();
  reuse();
  return finish("coll_shm_slot");
}
