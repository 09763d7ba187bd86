/* Persistent collectives (MPI_X_init, then MPI_Start/MPI_Wait): every algorithm of every collective,
 * forced per communicator, 200 starts each with inputs that change every time, checked against a
 * serial reference; an ordinary collective on the same communicator between starts; the staging of
 * non-contiguous and in-place buffers redone at every start (a vector-typed bcast, an in-place
 * alltoallv and an in-place allreduce); the refusals (a shared-memory algorithm, which serves blocking
 * calls only; MPI_Request_free while a start runs; a bad info). */
#include "check.h"
#include "coll_algorithms.h"

enum { kIters = 200, kN = 5 }; /* starts per algorithm; ints per block */

static int rank, size;

static int val(int r, int i, int it) {
  return (r + 1) * 1009 + i * 31 + it * 7;
}

/* Completes start `it`: MPI_Wait on even starts, MPI_Test polling on odd ones. */
static int run(MPI_Request *r, int it) {
  int rc = MPI_Start(r);
  if (rc != MPI_SUCCESS) return rc;
  if (it % 2 == 0) return MPI_Wait(r, MPI_STATUS_IGNORE);
  int flag = 0;
  while (!flag && rc == MPI_SUCCESS) rc = MPI_Test(r, &flag, MPI_STATUS_IGNORE);
  return rc;
}

/* The collective `coll` on c: init with buffers s and d (p * kN ints each), one start per iteration. */
static void one(const char *coll, const char *alg) {
  MPI_Comm c = forced_comm(coll, alg);
  const int p = size, root = size - 1;
  int *s = malloc(sizeof(int) * (size_t)(p * kN)), *d = malloc(sizeof(int) * (size_t)(p * kN));
  int counts[64], displs[64];
  MPI_Datatype types[64];
  for (int r = 0; r < p; ++r) {
    counts[r] = kN;
    displs[r] = r * kN;
    types[r] = MPI_INT;
  }
  MPI_Request q = MPI_REQUEST_NULL;
  int rc = MPI_ERR_OTHER;
  if (!strcmp(coll, "barrier"))
    rc = MPI_Barrier_init(c, MPI_INFO_NULL, &q);
  else if (!strcmp(coll, "bcast"))
    rc = MPI_Bcast_init(d, kN, MPI_INT, root, c, MPI_INFO_NULL, &q);
  else if (!strcmp(coll, "reduce"))
    rc = MPI_Reduce_init(s, d, kN, MPI_INT, MPI_SUM, root, c, MPI_INFO_NULL, &q);
  else if (!strcmp(coll, "allreduce"))
    rc = MPI_Allreduce_init(s, d, kN, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &q);
  else if (!strcmp(coll, "gather"))
    rc = MPI_Gather_init(s, kN, MPI_INT, d, kN, MPI_INT, root, c, MPI_INFO_NULL, &q);
  else if (!strcmp(coll, "scatter"))
    rc = MPI_Scatter_init(s, kN, MPI_INT, d, kN, MPI_INT, root, c, MPI_INFO_NULL, &q);
  else if (!strcmp(coll, "allgather"))
    rc = MPI_Allgather_init(s, kN, MPI_INT, d, kN, MPI_INT, c, MPI_INFO_NULL, &q);
  else if (!strcmp(coll, "alltoall"))
    rc = MPI_Alltoall_init(s, kN, MPI_INT, d, kN, MPI_INT, c, MPI_INFO_NULL, &q);
  else if (!strcmp(coll, "scan"))
    rc = MPI_Scan_init(s, d, kN, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &q);
  else if (!strcmp(coll, "exscan"))
    rc = MPI_Exscan_init(s, d, kN, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &q);
  else if (!strcmp(coll, "reduce_scatter_block"))
    rc = MPI_Reduce_scatter_block_init(s, d, kN, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &q);
  else if (!strcmp(coll, "reduce_scatter"))
    rc = MPI_Reduce_scatter_init(s, d, counts, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &q);
  else if (!strcmp(coll, "gatherv"))
    rc = MPI_Gatherv_init(s, kN, MPI_INT, d, counts, displs, MPI_INT, root, c, MPI_INFO_NULL, &q);
  else if (!strcmp(coll, "scatterv"))
    rc = MPI_Scatterv_init(s, counts, displs, MPI_INT, d, kN, MPI_INT, root, c, MPI_INFO_NULL, &q);
  else if (!strcmp(coll, "allgatherv"))
    rc = MPI_Allgatherv_init(s, kN, MPI_INT, d, counts, displs, MPI_INT, c, MPI_INFO_NULL, &q);
  else if (!strcmp(coll, "alltoallv"))
    rc = MPI_Alltoallv_init(s, counts, displs, MPI_INT, d, counts, displs, MPI_INT, c, MPI_INFO_NULL, &q);
  else if (!strcmp(coll, "alltoallw")) {
    int bd[64];
    for (int r = 0; r < p; ++r) bd[r] = r * kN * (int)sizeof(int);
    rc = MPI_Alltoallw_init(s, counts, bd, types, d, counts, bd, types, c, MPI_INFO_NULL, &q);
  }
  if (coll_slot_algorithm(alg)) { /* blocking calls only */
    CHECK(err_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "%s_init forced to %s: class %d", coll, alg,
          err_class(rc));
    free(s);
    free(d);
    MPI_Comm_free(&c);
    return;
  }
  CHECK(rc == MPI_SUCCESS, "%s %s: init rc %d", coll, alg, rc);
  if (rc != MPI_SUCCESS) return;
  int bad = 0, bad_rc = 0;
  for (int it = 0; it < kIters; ++it) {
    for (int i = 0; i < p * kN; ++i) {
      s[i] = val(rank, i, it);
      d[i] = -1;
    }
    if (!strcmp(coll, "bcast") && rank == root)
      for (int i = 0; i < kN; ++i) d[i] = val(root, i, it);
    if (run(&q, it) != MPI_SUCCESS) {
      ++bad_rc;
      break;
    }
    /* the reference, element by element */
    for (int i = 0; i < p * kN; ++i) {
      int want = -1, sum = 0;
      const int blk = i / kN, j = i % kN; /* block (rank) and index within it */
      if (!strcmp(coll, "bcast"))
        want = i < kN ? val(root, i, it) : -1;
      else if (!strcmp(coll, "reduce") || !strcmp(coll, "allreduce")) {
        for (int r = 0; r < p; ++r) sum += val(r, i, it);
        want = i < kN && (rank == root || !strcmp(coll, "allreduce")) ? sum : -1;
      } else if (!strcmp(coll, "gather") || !strcmp(coll, "gatherv"))
        want = rank == root ? val(blk, j, it) : -1;
      else if (!strcmp(coll, "scatter") || !strcmp(coll, "scatterv"))
        want = i < kN ? val(root, rank * kN + i, it) : -1;
      else if (!strcmp(coll, "allgather") || !strcmp(coll, "allgatherv"))
        want = val(blk, j, it);
      else if (!strncmp(coll, "alltoall", 8))
        want = val(blk, rank * kN + j, it);
      else if (!strcmp(coll, "scan") || !strcmp(coll, "exscan")) {
        const int last = !strcmp(coll, "scan") ? rank : rank - 1;
        for (int r = 0; r <= last; ++r) sum += val(r, i, it);
        want = i < kN && last >= 0 ? sum : -1;
        if (i < kN && last < 0) continue; /* exscan on rank 0: undefined */
      } else if (!strncmp(coll, "reduce_scatter", 14)) {
        for (int r = 0; r < p; ++r) sum += val(r, rank * kN + i, it);
        want = i < kN ? sum : -1;
      } else
        continue; /* barrier */
      bad += d[i] != want;
    }
    /* an ordinary collective on the same communicator between starts */
    int one = 1, all = 0;
    if (MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, c) != MPI_SUCCESS || all != p) ++bad_rc;
  }
  CHECK(bad == 0 && bad_rc == 0, "%s %s: %d wrong ints, %d failed calls over %d starts", coll, alg, bad,
        bad_rc, kIters);
  MPI_Request_free(&q);
  CHECK(q == MPI_REQUEST_NULL, "%s %s: freed", coll, alg);
  free(s);
  free(d);
  MPI_Comm_free(&c);
}

/* Staging redone at every start: a vector-typed bcast (packed at the root, unpacked elsewhere), an
 * in-place alltoallv (its parts packed before they are sent) and an in-place allreduce. */
static void staging(void) {
  MPI_Datatype vec;
  MPI_Type_vector(kN, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int v[2 * kN], a[64 * kN], r[kN], counts[64], displs[64];
  for (int i = 0; i < size; ++i) {
    counts[i] = kN;
    displs[i] = i * kN;
  }
  MPI_Request q[3];
  MPI_Bcast_init(v, 1, vec, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]);
  MPI_Type_free(&vec); /* the request keeps it */
  MPI_Alltoallv_init(MPI_IN_PLACE, NULL, NULL, MPI_INT, a, counts, displs, MPI_INT, MPI_COMM_WORLD,
                     MPI_INFO_NULL, &q[1]);
  MPI_Allreduce_init(MPI_IN_PLACE, r, kN, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q[2]);
  int bad = 0;
  for (int it = 0; it < 50; ++it) {
    for (int i = 0; i < 2 * kN; ++i) v[i] = rank == 0 ? (i % 2 ? -5 : val(0, i, it)) : -9;
    for (int i = 0; i < size * kN; ++i) a[i] = val(rank, i, it);
    for (int i = 0; i < kN; ++i) r[i] = val(rank, i, it);
    MPI_Startall(3, q);
    MPI_Waitall(3, q, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 2 * kN; ++i) bad += v[i] != (i % 2 ? (rank == 0 ? -5 : -9) : val(0, i, it));
    for (int i = 0; i < size * kN; ++i) bad += a[i] != val(i / kN, rank * kN + i % kN, it);
    for (int i = 0; i < kN; ++i) {
      int sum = 0;
      for (int k = 0; k < size; ++k) sum += val(k, i, it);
      bad += r[i] != sum;
    }
  }
  CHECK(bad == 0, "staging redone at every start: %d wrong ints", bad);
  for (int i = 0; i < 3; ++i) MPI_Request_free(&q[i]);
}

static void refusals(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Request q;
  int x = rank, token = 0;
  MPI_Allreduce_init(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q);
  /* Rank 0 starts first and tries to free the request while its start must still wait for the others
   * (they start only once rank 0's token has arrived). */
  if (rank == 0) {
    MPI_Start(&q);
    const int rc = MPI_Request_free(&q);
    if (size > 1)
      CHECK(err_class(rc) == MPI_ERR_REQUEST && q != MPI_REQUEST_NULL,
            "MPI_Request_free while a persistent collective runs: class %d", err_class(rc));
    for (int r = 1; r < size; ++r) MPI_Send(&token, 1, MPI_INT, r, 99, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&token, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Start(&q);
  }
  if (q != MPI_REQUEST_NULL) {
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Request_free(&q);
  }
  CHECK(x == size * (size - 1) / 2, "in-place allreduce: %d", x);
  MPI_Info bogus = (MPI_Info)(void *)&token;
  const int rc = MPI_Barrier_init(MPI_COMM_WORLD, bogus, &q);
  CHECK(err_class(rc) == MPI_ERR_INFO, "a bad info: class %d", err_class(rc));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < N_COLL_ALGORITHMS; ++k) {
    const char *coll = kCollAlgorithms[k].coll, *alg = kCollAlgorithms[k].alg;
    /* recursive-doubling allgather needs a power of two */
    if (!strcmp(alg, "recursive_doubling") && !strcmp(coll, "allgather") && (size & (size - 1))) continue;
    if (coll_torus_algorithm(alg) && !coll_on_torus()) continue; /* coll_sweep checks the refusal */
    one(coll, alg);
  }
  if (size <= 64) staging();
  refusals();
  return finish("coll_persistent");
}
