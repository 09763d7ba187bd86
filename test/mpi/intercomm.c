/* Inter-communicators: MPI_Intercomm_create between two groups of different sizes (the world split at a
 * third), point-to-point across them, every collective defined on them (blocking, nonblocking and
 * persistent, rooted ones with MPI_ROOT and MPI_PROC_NULL, parts of different lengths on the two sides)
 * checked element by element, MPI_Comm_dup/idup/split/create of an inter-communicator,
 * MPI_Intercomm_merge both ways, MPI_Intercomm_create_from_groups, and the errors of wrong arguments.
 * Needs 2 ranks or more; at 1 rank it checks the errors only. */
#include "check.h"

static int wrank, wsize;

/* This process's group: 'A' (world ranks below the split) or 'B'. */
static int split_at(void) {
  return wsize / 3 > 0 ? wsize / 3 : 1;
}

/* The world rank of remote rank r (remote groups are consecutive world ranks here). */
static int world_of_remote(int in_a, int r) {
  return in_a ? split_at() + r : r;
}

static void p2p(MPI_Comm ic, int in_a) {
  int lrank, lsize, rsize;
  MPI_Comm_rank(ic, &lrank);
  MPI_Comm_size(ic, &lsize);
  MPI_Comm_remote_size(ic, &rsize);
  int *out = malloc(sizeof(int) * (size_t)rsize), *in = malloc(sizeof(int) * (size_t)rsize);
  MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)rsize);
  MPI_Status *st = malloc(sizeof(MPI_Status) * 2 * (size_t)rsize);
  for (int j = 0; j < rsize; ++j) {
    in[j] = -1;
    out[j] = wrank * 1000 + j;
    MPI_Irecv(&in[j], 1, MPI_INT, j, 5, ic, &reqs[j]);
  }
  for (int j = 0; j < rsize; ++j) MPI_Isend(&out[j], 1, MPI_INT, j, 5, ic, &reqs[rsize + j]);
  MPI_Waitall(2 * rsize, reqs, st);
  for (int j = 0; j < rsize; ++j) {
    CHECK(in[j] == world_of_remote(in_a, j) * 1000 + lrank, "from remote %d: %d", j, in[j]);
    CHECK(st[j].MPI_SOURCE == j, "status source %d, expected %d", st[j].MPI_SOURCE, j);
  }
  /* MPI_ANY_SOURCE names the sender by its remote rank; a large message goes by rendezvous. */
  const int n = 1 << 16;
  int *big = malloc(sizeof(int) * (size_t)n);
  if (lrank == 0) {
    for (int i = 0; i < n; ++i) big[i] = wrank + i;
    MPI_Status s;
    MPI_Sendrecv_replace(big, n, MPI_INT, 0, 9, MPI_ANY_SOURCE, 9, ic, &s);
    CHECK(s.MPI_SOURCE == 0, "any-source status %d", s.MPI_SOURCE);
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += big[i] != world_of_remote(in_a, 0) + i;
    CHECK(bad == 0, "%d of %d rendezvous elements wrong", bad, n);
  }
  /* Out of range: a remote rank, not a local one. */
  MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
  CHECK(err_class(MPI_Send(out, 1, MPI_INT, rsize, 0, ic)) == MPI_ERR_RANK, "dest = remote size");
  MPI_Comm_set_errhandler(ic, MPI_ERRORS_ARE_FATAL);
  free(big);
  free(out);
  free(in);
  free(reqs);
  free(st);
}

/* Blocking (nb 0), nonblocking (1) or persistent (2) runs of one collective: `call` starts it. */
#define RUN(nb, blocking, nonblocking, persistent) \
  do {                                             \
    MPI_Request r_;                                \
    if ((nb) == 0) {                               \
      blocking;                                    \
    } else if ((nb) == 1) {                        \
      nonblocking;                                 \
      MPI_Wait(&r_, MPI_STATUS_IGNORE);            \
    } else {                                       \
      persistent;                                  \
      MPI_Start(&r_);                              \
      MPI_Wait(&r_, MPI_STATUS_IGNORE);            \
      MPI_Request_free(&r_);                       \
    }                                              \
  } while (0)

static void collectives(MPI_Comm ic, int in_a, int nb) {
  int lrank, lsize, rsize;
  MPI_Comm_rank(ic, &lrank);
  MPI_Comm_size(ic, &lsize);
  MPI_Comm_remote_size(ic, &rsize);
  const int size_a = in_a ? lsize : rsize, size_b = in_a ? rsize : lsize;
  (void)size_b;
  RUN(nb, MPI_Barrier(ic), MPI_Ibarrier(ic, &r_), MPI_Barrier_init(ic, MPI_INFO_NULL, &r_));

  /* Bcast from A's last process to B, then from B's first to A; 64 KiB goes by rendezvous. */
  for (int dir = 0; dir < 2; ++dir) {
    const int root_group_a = dir == 0, root_local = root_group_a ? size_a - 1 : 0;
    const int in_root_group = in_a == root_group_a;
    for (int n = 3; n <= 16384; n *= 64) {
      int *buf = malloc(sizeof(int) * (size_t)n);
      int root;
      if (in_root_group) {
        root = lrank == root_local ? MPI_ROOT : MPI_PROC_NULL;
        for (int i = 0; i < n; ++i) buf[i] = lrank == root_local ? 7 * i + dir : -5;
      } else {
        root = root_local;
        for (int i = 0; i < n; ++i) buf[i] = -1;
      }
      RUN(nb, MPI_Bcast(buf, n, MPI_INT, root, ic), MPI_Ibcast(buf, n, MPI_INT, root, ic, &r_),
          MPI_Bcast_init(buf, n, MPI_INT, root, ic, MPI_INFO_NULL, &r_));
      int bad = 0;
      for (int i = 0; i < n; ++i)
        bad += buf[i] != (in_root_group && root == MPI_PROC_NULL ? -5 : 7 * i + dir);
      CHECK(bad == 0, "bcast dir %d n %d (nb %d): %d wrong", dir, n, nb, bad);
      free(buf);
    }
  }

  /* Reduce to A's first process of B's values (world ranks), and allreduce both ways. */
  {
    int v[2] = {wrank, 2 * wrank + 1}, out[2] = {-1, -1};
    const int root = in_a ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    RUN(nb, MPI_Reduce(v, out, 2, MPI_INT, MPI_SUM, root, ic),
        MPI_Ireduce(v, out, 2, MPI_INT, MPI_SUM, root, ic, &r_),
        MPI_Reduce_init(v, out, 2, MPI_INT, MPI_SUM, root, ic, MPI_INFO_NULL, &r_));
    int s0 = 0, s1 = 0;
    for (int r = 0; r < rsize; ++r) {
      s0 += world_of_remote(in_a, r);
      s1 += 2 * world_of_remote(in_a, r) + 1;
    }
    if (root == MPI_ROOT)
      CHECK(out[0] == s0 && out[1] == s1, "reduce: %d %d, expected %d %d", out[0], out[1], s0, s1);
    if (root != MPI_ROOT) CHECK(out[0] == -1, "reduce wrote outside the root");
    out[0] = out[1] = -1;
    RUN(nb, MPI_Allreduce(v, out, 2, MPI_INT, MPI_SUM, ic),
        MPI_Iallreduce(v, out, 2, MPI_INT, MPI_SUM, ic, &r_),
        MPI_Allreduce_init(v, out, 2, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &r_));
    CHECK(out[0] == s0 && out[1] == s1, "allreduce: %d %d, expected %d %d", out[0], out[1], s0, s1);
  }

  /* Gather to B's first process from A, scatter from it back to A. */
  {
    int *all = malloc(sizeof(int) * 2 * (size_t)(rsize + 1)), mine[2] = {wrank, -wrank};
    const int root = in_a ? 0 : (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    for (int i = 0; i < 2 * rsize; ++i) all[i] = -7;
    RUN(nb, MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, root, ic),
        MPI_Igather(mine, 2, MPI_INT, all, 2, MPI_INT, root, ic, &r_),
        MPI_Gather_init(mine, 2, MPI_INT, all, 2, MPI_INT, root, ic, MPI_INFO_NULL, &r_));
    if (root == MPI_ROOT)
      for (int r = 0; r < rsize; ++r)
        CHECK(all[2 * r] == world_of_remote(in_a, r) && all[2 * r + 1] == -world_of_remote(in_a, r),
              "gather part %d: %d %d", r, all[2 * r], all[2 * r + 1]);
    if (root == MPI_ROOT)
      for (int r = 0; r < rsize; ++r) all[2 * r] = 100 + r, all[2 * r + 1] = 200 + r;
    mine[0] = mine[1] = -1;
    RUN(nb, MPI_Scatter(all, 2, MPI_INT, mine, 2, MPI_INT, root, ic),
        MPI_Iscatter(all, 2, MPI_INT, mine, 2, MPI_INT, root, ic, &r_),
        MPI_Scatter_init(all, 2, MPI_INT, mine, 2, MPI_INT, root, ic, MPI_INFO_NULL, &r_));
    if (in_a) CHECK(mine[0] == 100 + lrank && mine[1] == 200 + lrank, "scatter: %d %d", mine[0], mine[1]);
    free(all);
  }

  /* Gatherv/scatterv with parts of varying lengths (remote rank r: r + 1 ints), root in A. */
  {
    int total = 0;
    for (int r = 0; r < rsize; ++r) total += r + 1;
    int *all = malloc(sizeof(int) * (size_t)(total + 1)), *counts = malloc(sizeof(int) * (size_t)rsize),
        *displs = malloc(sizeof(int) * (size_t)rsize), mine[8];
    for (int r = 0, d = 0; r < rsize; d += r + 1, ++r) counts[r] = r + 1, displs[r] = d;
    const int root = in_a ? (lrank == size_a - 1 ? MPI_ROOT : MPI_PROC_NULL) : size_a - 1;
    for (int i = 0; i < lrank + 1 && i < 8; ++i) mine[i] = wrank * 10 + i;
    for (int i = 0; i < total; ++i) all[i] = -3;
    const int n = lrank + 1 < 8 ? lrank + 1 : 8;
    RUN(nb, MPI_Gatherv(mine, n, MPI_INT, all, counts, displs, MPI_INT, root, ic),
        MPI_Igatherv(mine, n, MPI_INT, all, counts, displs, MPI_INT, root, ic, &r_),
        MPI_Gatherv_init(mine, n, MPI_INT, all, counts, displs, MPI_INT, root, ic, MPI_INFO_NULL, &r_));
    if (root == MPI_ROOT) {
      int bad = 0;
      for (int r = 0; r < rsize; ++r)
        for (int i = 0; i < counts[r]; ++i) bad += all[displs[r] + i] != world_of_remote(in_a, r) * 10 + i;
      CHECK(bad == 0, "gatherv: %d wrong", bad);
      for (int i = 0; i < total; ++i) all[i] = 5000 + i;
    }
    for (int i = 0; i < 8; ++i) mine[i] = -1;
    RUN(nb, MPI_Scatterv(all, counts, displs, MPI_INT, mine, n, MPI_INT, root, ic),
        MPI_Iscatterv(all, counts, displs, MPI_INT, mine, n, MPI_INT, root, ic, &r_),
        MPI_Scatterv_init(all, counts, displs, MPI_INT, mine, n, MPI_INT, root, ic, MPI_INFO_NULL, &r_));
    if (!in_a) {
      int d = 0;
      for (int r = 0; r < lrank; ++r) d += r + 1;
      int bad = 0;
      for (int i = 0; i < n; ++i) bad += mine[i] != 5000 + d + i;
      CHECK(bad == 0, "scatterv: %d wrong", bad);
    }
    free(all);
    free(counts);
    free(displs);
  }

  /* Allgather and alltoall with parts of different lengths on the two sides: A sends 1 int per part,
   * B sends 2 (of MPI_2INT, so the types differ too). */
  {
    const int mine_n = in_a ? 1 : 2, theirs_n = in_a ? 2 : 1;
    int *out = malloc(sizeof(int) * 2 * (size_t)(rsize + 1)),
        *in = malloc(sizeof(int) * 2 * (size_t)(rsize + 1));
    int send[2] = {wrank, wrank + 100};
    for (int i = 0; i < 2 * rsize; ++i) in[i] = -1;
    RUN(nb, MPI_Allgather(send, in_a ? 1 : 2, MPI_INT, in, 1, in_a ? MPI_2INT : MPI_INT, ic),
        MPI_Iallgather(send, in_a ? 1 : 2, MPI_INT, in, 1, in_a ? MPI_2INT : MPI_INT, ic, &r_),
        MPI_Allgather_init(send, in_a ? 1 : 2, MPI_INT, in, 1, in_a ? MPI_2INT : MPI_INT, ic, MPI_INFO_NULL,
                           &r_));
    int bad = 0;
    for (int r = 0; r < rsize; ++r) {
      const int w = world_of_remote(in_a, r);
      bad += in[theirs_n * r] != w;
      if (theirs_n == 2) bad += in[2 * r + 1] != w + 100;
    }
    CHECK(bad == 0, "allgather (nb %d): %d wrong", nb, bad);
    (void)mine_n;
    for (int r = 0; r < rsize; ++r)
      out[mine_n * r] = wrank * 100 + r, out[mine_n * r + mine_n - 1] = wrank * 100 + r;
    for (int i = 0; i < 2 * rsize; ++i) in[i] = -1;
    RUN(nb, MPI_Alltoall(out, mine_n, MPI_INT, in, theirs_n, MPI_INT, ic),
        MPI_Ialltoall(out, mine_n, MPI_INT, in, theirs_n, MPI_INT, ic, &r_),
        MPI_Alltoall_init(out, mine_n, MPI_INT, in, theirs_n, MPI_INT, ic, MPI_INFO_NULL, &r_));
    bad = 0;
    for (int r = 0; r < rsize; ++r)
      for (int i = 0; i < theirs_n; ++i)
        bad += in[theirs_n * r + i] != world_of_remote(in_a, r) * 100 + lrank;
    CHECK(bad == 0, "alltoall (nb %d): %d wrong", nb, bad);
    free(out);
    free(in);
  }

  /* Allgatherv, alltoallv and alltoallw: process p of either group sends p + 1 ints per part. */
  {
    int total = 0;
    for (int r = 0; r < rsize; ++r) total += r + 1;
    const int mine_n = lrank + 1;
    int *counts = malloc(sizeof(int) * (size_t)rsize), *displs = malloc(sizeof(int) * (size_t)rsize);
    int *scounts = malloc(sizeof(int) * (size_t)rsize), *sdispls = malloc(sizeof(int) * (size_t)rsize);
    int *bcounts = malloc(sizeof(int) * (size_t)rsize), *bdispls = malloc(sizeof(int) * (size_t)rsize);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)rsize);
    for (int r = 0, d = 0; r < rsize; d += r + 1, ++r) {
      counts[r] = r + 1, displs[r] = d;
      scounts[r] = mine_n, sdispls[r] = r * mine_n;
      bcounts[r] = r + 1, bdispls[r] = d * (int)sizeof(int);
      types[r] = MPI_INT;
    }
    int *in = malloc(sizeof(int) * (size_t)(total + 1)),
        *send = malloc(sizeof(int) * (size_t)(mine_n * rsize + 1));
    for (int i = 0; i < mine_n; ++i) send[i] = wrank * 10 + i;
    for (int i = 0; i < total; ++i) in[i] = -1;
    RUN(nb, MPI_Allgatherv(send, mine_n, MPI_INT, in, counts, displs, MPI_INT, ic),
        MPI_Iallgatherv(send, mine_n, MPI_INT, in, counts, displs, MPI_INT, ic, &r_),
        MPI_Allgatherv_init(send, mine_n, MPI_INT, in, counts, displs, MPI_INT, ic, MPI_INFO_NULL, &r_));
    int bad = 0;
    for (int r = 0; r < rsize; ++r)
      for (int i = 0; i < counts[r]; ++i) bad += in[displs[r] + i] != world_of_remote(in_a, r) * 10 + i;
    CHECK(bad == 0, "allgatherv (nb %d): %d wrong", nb, bad);
    for (int r = 0; r < rsize; ++r)
      for (int i = 0; i < mine_n; ++i) send[r * mine_n + i] = wrank * 1000 + r * 10 + i;
    for (int w = 0; w < 2; ++w) {
      for (int i = 0; i < total; ++i) in[i] = -1;
      if (w == 0) {
        RUN(nb, MPI_Alltoallv(send, scounts, sdispls, MPI_INT, in, counts, displs, MPI_INT, ic),
            MPI_Ialltoallv(send, scounts, sdispls, MPI_INT, in, counts, displs, MPI_INT, ic, &r_),
            MPI_Alltoallv_init(send, scounts, sdispls, MPI_INT, in, counts, displs, MPI_INT, ic,
                               MPI_INFO_NULL, &r_));
      } else {
        for (int r = 0; r < rsize; ++r) sdispls[r] = r * mine_n * (int)sizeof(int);
        RUN(nb, MPI_Alltoallw(send, scounts, sdispls, types, in, bcounts, bdispls, types, ic),
            MPI_Ialltoallw(send, scounts, sdispls, types, in, bcounts, bdispls, types, ic, &r_),
            MPI_Alltoallw_init(send, scounts, sdispls, types, in, bcounts, bdispls, types, ic, MPI_INFO_NULL,
                               &r_));
        for (int r = 0; r < rsize; ++r) sdispls[r] = r * mine_n;
      }
      bad = 0;
      for (int r = 0; r < rsize; ++r)
        for (int i = 0; i < counts[r]; ++i)
          bad += in[displs[r] + i] != world_of_remote(in_a, r) * 1000 + lrank * 10 + i;
      CHECK(bad == 0, "alltoall%s (nb %d): %d wrong", w ? "w" : "v", nb, bad);
    }
    free(counts), free(displs), free(scounts), free(sdispls), free(bcounts), free(bdispls), free(types);
    free(in), free(send);
  }

  /* Reduce_scatter(_block): each group's sum scattered over the other. A process of A gets size_b
   * elements, one of B size_a: both totals are size_a * size_b. */
  {
    const int per = rsize, total = lsize * rsize;
    int *v = malloc(sizeof(int) * (size_t)total), *out = malloc(sizeof(int) * (size_t)(per + 2));
    for (int k = 0; k < total; ++k) v[k] = wrank + k;
    RUN(nb, MPI_Reduce_scatter_block(v, out, per, MPI_INT, MPI_SUM, ic),
        MPI_Ireduce_scatter_block(v, out, per, MPI_INT, MPI_SUM, ic, &r_),
        MPI_Reduce_scatter_block_init(v, out, per, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &r_));
    int sum_remote = 0;
    for (int r = 0; r < rsize; ++r) sum_remote += world_of_remote(in_a, r);
    int bad = 0;
    for (int i = 0; i < per; ++i) bad += out[i] != sum_remote + rsize * (lrank * per + i);
    CHECK(bad == 0, "reduce_scatter_block (nb %d): %d wrong", nb, bad);
    /* Uneven counts: the first process one more, the last one fewer. */
    int *counts = malloc(sizeof(int) * (size_t)lsize);
    for (int i = 0; i < lsize; ++i) counts[i] = per;
    if (lsize > 1) counts[0] += 1, counts[lsize - 1] -= 1;
    int first = 0;
    for (int i = 0; i < lrank; ++i) first += counts[i];
    RUN(nb, MPI_Reduce_scatter(v, out, counts, MPI_INT, MPI_SUM, ic),
        MPI_Ireduce_scatter(v, out, counts, MPI_INT, MPI_SUM, ic, &r_),
        MPI_Reduce_scatter_init(v, out, counts, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &r_));
    bad = 0;
    for (int i = 0; i < counts[lrank]; ++i) bad += out[i] != sum_remote + rsize * (first + i);
    CHECK(bad == 0, "reduce_scatter (nb %d): %d wrong", nb, bad);
    free(counts);
    free(v);
    free(out);
  }
}

/* The group's processes' world ranks, and whether they are those expected. */
static void check_groups(MPI_Comm ic, int in_a) {
  int flag = 0, lsize, rsize;
  MPI_Comm_test_inter(ic, &flag);
  CHECK(flag, "MPI_Comm_test_inter");
  MPI_Comm_size(ic, &lsize);
  MPI_Comm_remote_size(ic, &rsize);
  CHECK(lsize == (in_a ? split_at() : wsize - split_at()), "local size %d", lsize);
  CHECK(rsize == (in_a ? wsize - split_at() : split_at()), "remote size %d", rsize);
  MPI_Group wg, rg;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Comm_remote_group(ic, &rg);
  for (int r = 0; r < rsize; ++r) {
    int w = -1;
    MPI_Group_translate_ranks(rg, 1, &r, wg, &w);
    CHECK(w == world_of_remote(in_a, r), "remote rank %d is world %d", r, w);
  }
  MPI_Group_free(&rg);
  MPI_Group_free(&wg);
}

static void derived(MPI_Comm ic, int in_a) {
  int lrank, lsize, rsize;
  MPI_Comm_rank(ic, &lrank);
  MPI_Comm_size(ic, &lsize);
  MPI_Comm_remote_size(ic, &rsize);
  /* A duplicate's traffic never meets the original's. */
  MPI_Comm dup, idup;
  MPI_Comm_dup(ic, &dup);
  check_groups(dup, in_a);
  MPI_Request r;
  MPI_Comm_idup(ic, &idup, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  check_groups(idup, in_a);
  /* From every remote process, a message on each, sent dup's first: each arrives where it was sent. */
  int a = wrank, b = -wrank;
  int *x = malloc(sizeof(int) * (size_t)rsize), *y = malloc(sizeof(int) * (size_t)rsize);
  MPI_Request *q = malloc(sizeof(MPI_Request) * 4 * (size_t)rsize);
  for (int j = 0; j < rsize; ++j) {
    MPI_Irecv(&x[j], 1, MPI_INT, j, 0, ic, &q[2 * j]);
    MPI_Irecv(&y[j], 1, MPI_INT, j, 0, dup, &q[2 * j + 1]);
  }
  for (int j = 0; j < rsize; ++j) {
    MPI_Isend(&b, 1, MPI_INT, j, 0, dup, &q[2 * rsize + 2 * j]);
    MPI_Isend(&a, 1, MPI_INT, j, 0, ic, &q[2 * rsize + 2 * j + 1]);
  }
  MPI_Waitall(4 * rsize, q, MPI_STATUSES_IGNORE);
  for (int j = 0; j < rsize; ++j)
    CHECK(x[j] == world_of_remote(in_a, j) && y[j] == -world_of_remote(in_a, j), "dup traffic from %d: %d %d",
          j, x[j], y[j]);
  free(x), free(y), free(q);
  collectives(idup, in_a, 0);
  MPI_Comm_free(&idup);
  MPI_Comm_free(&dup);

  /* Split by local rank parity: each new inter-communicator joins the processes of one parity. */
  MPI_Comm half;
  MPI_Comm_split(ic, lrank % 2, -lrank, &half);
  const int remote_same = (rsize + (lrank % 2 == 0 ? 1 : 0)) / 2;
  if (remote_same == 0) {
    CHECK(half == MPI_COMM_NULL, "split with no remote partner of color %d", lrank % 2);
  } else {
    int hs, hr, hrank;
    MPI_Comm_size(half, &hs);
    MPI_Comm_remote_size(half, &hr);
    MPI_Comm_rank(half, &hrank);
    CHECK(hs == (lsize + (lrank % 2 == 0 ? 1 : 0)) / 2, "split local size %d", hs);
    CHECK(hr == remote_same, "split remote size %d, expected %d", hr, remote_same);
    CHECK(hrank == hs - 1 - lrank / 2, "split rank %d (key reverses the order)", hrank);
    int v = wrank, sum = -1, expect = 0;
    for (int rr = lrank % 2; rr < rsize; rr += 2) expect += world_of_remote(in_a, rr);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, half);
    CHECK(sum == expect, "allreduce on the split: %d, expected %d", sum, expect);
    MPI_Comm_free(&half);
  }

  /* Create: A keeps its first process, B all of its processes. */
  MPI_Group lg, sub;
  MPI_Comm_group(ic, &lg);
  int zero = 0;
  if (in_a) {
    MPI_Group_incl(lg, 1, &zero, &sub);
  } else {
    sub = lg;
  }
  MPI_Comm created;
  MPI_Comm_create(ic, sub, &created);
  if (in_a && lrank != 0) {
    CHECK(created == MPI_COMM_NULL, "a process outside its group got a communicator");
  } else {
    int cr;
    MPI_Comm_remote_size(created, &cr);
    CHECK(cr == (in_a ? rsize : 1), "created remote size %d", cr);
    int v = 1, n = 0;
    MPI_Allreduce(&v, &n, 1, MPI_INT, MPI_SUM, created);
    CHECK(n == cr, "allreduce on the created one: %d", n);
    MPI_Comm_free(&created);
  }
  if (in_a) MPI_Group_free(&sub);
  MPI_Group_free(&lg);

  /* Merge: A low and B high, then both high (the lower group first either way here). */
  for (int both_high = 0; both_high < 2; ++both_high) {
    for (int b_low = 0; b_low < 2 - both_high; ++b_low) {
      MPI_Comm merged;
      const int high = both_high ? 1 : (in_a ? b_low : !b_low);
      MPI_Intercomm_merge(ic, high, &merged);
      int mr, ms;
      MPI_Comm_rank(merged, &mr);
      MPI_Comm_size(merged, &ms);
      const int a_first = both_high || !b_low;
      const int expect = in_a ? (a_first ? lrank : rsize + lrank) : (a_first ? rsize + lrank : lrank);
      CHECK(ms == wsize, "merged size %d", ms);
      CHECK(mr == expect, "merged rank %d, expected %d (high %d, b_low %d)", mr, expect, high, b_low);
      int v = wrank, sum = 0;
      MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, merged);
      CHECK(sum == wsize * (wsize - 1) / 2, "allreduce on the merged one: %d", sum);
      MPI_Comm_free(&merged);
    }
  }
}

/* Partitioned communication between the two groups' first processes, both ways: ranks name the other
 * group's processes, as in point-to-point. */
static void partitioned(MPI_Comm ic, int in_a) {
  int lrank;
  MPI_Comm_rank(ic, &lrank);
  if (lrank != 0) return;
  int out[6], in[6];
  for (int i = 0; i < 6; ++i) out[i] = wrank * 10 + i, in[i] = -1;
  MPI_Request s, r;
  MPI_Precv_init(in, 3, 2, MPI_INT, 0, 9, ic, MPI_INFO_NULL, &r);
  MPI_Psend_init(out, 2, 3, MPI_INT, 0, 9, ic, MPI_INFO_NULL, &s);
  for (int it = 0; it < 2; ++it) {
    MPI_Start(&r);
    MPI_Start(&s);
    MPI_Pready_range(0, 1, s);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    MPI_Status st;
    MPI_Wait(&r, &st);
    const int from = world_of_remote(in_a, 0);
    int bad = 0;
    for (int i = 0; i < 6; ++i) bad += in[i] != from * 10 + i;
    CHECK(bad == 0 && st.MPI_SOURCE == 0, "partitioned across the groups: %d wrong, source %d", bad,
          st.MPI_SOURCE);
    for (int i = 0; i < 6; ++i) in[i] = -1;
  }
  MPI_Request_free(&s);
  MPI_Request_free(&r);
}

static void errors(MPI_Comm ic) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm m;
  int n;
  CHECK(err_class(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &m)) == MPI_ERR_COMM,
        "merge of an intra-communicator");
  CHECK(err_class(MPI_Comm_remote_size(MPI_COMM_WORLD, &n)) == MPI_ERR_COMM, "remote size of an intra");
  CHECK(err_class(MPI_Intercomm_create(MPI_COMM_WORLD, wsize, MPI_COMM_WORLD, 0, 0, &m)) == MPI_ERR_RANK,
        "local_leader out of range");
  if (wsize == 1) {
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    CHECK(err_class(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 0, 0, &m)) == MPI_ERR_RANK,
          "the remote leader is the local leader");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  if (ic == MPI_COMM_NULL) return;
  MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
  int rsize, v = 0, out = 0;
  MPI_Comm_remote_size(ic, &rsize);
  CHECK(err_class(MPI_Bcast(&v, 1, MPI_INT, rsize, ic)) == MPI_ERR_ROOT, "root = remote size");
  CHECK(err_class(MPI_Allreduce(MPI_IN_PLACE, &out, 1, MPI_INT, MPI_SUM, ic)) == MPI_ERR_BUFFER,
        "MPI_IN_PLACE on an inter-communicator");
  CHECK(err_class(MPI_Scan(&v, &out, 1, MPI_INT, MPI_SUM, ic)) == MPI_ERR_COMM,
        "scan on an inter-communicator");
  CHECK(err_class(MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, 0, 0, &m)) == MPI_ERR_COMM,
        "local_comm is an inter-communicator");
  CHECK(err_class(MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &m)) == MPI_ERR_COMM,
        "split_type of an inter-communicator");
  MPI_Group g;
  MPI_Comm_group(ic, &g);
  CHECK(err_class(MPI_Comm_create_group(ic, g, 0, &m)) == MPI_ERR_COMM,
        "create_group of an inter-communicator");
  MPI_Group_free(&g);
  /* Comparison: itself, a duplicate (both groups alike), and an intra-communicator. */
  int result = -1;
  MPI_Comm d;
  MPI_Comm_dup(ic, &d);
  MPI_Comm_compare(ic, ic, &result);
  CHECK(result == MPI_IDENT, "compare with itself: %d", result);
  MPI_Comm_compare(ic, d, &result);
  CHECK(result == MPI_CONGRUENT, "compare with its duplicate: %d", result);
  MPI_Comm_compare(ic, MPI_COMM_WORLD, &result);
  CHECK(result == MPI_UNEQUAL, "compare with MPI_COMM_WORLD: %d", result);
  MPI_Comm_free(&d);
  /* A communicator's info may force the inter algorithm, not an intra one (which the call refuses). */
  MPI_Info info;
  MPI_Info_create(&info);
  for (int k = 0; k < 2; ++k) {
    MPI_Info_set(info, "pamir_coll_bcast", k ? "binomial" : "inter");
    MPI_Comm f;
    MPI_Comm_dup_with_info(ic, info, &f);
    MPI_Comm_set_errhandler(f, MPI_ERRORS_RETURN);
    int lrank, root;
    MPI_Comm_rank(f, &lrank);
    root = wrank < split_at() ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    v = wrank < split_at() ? 42 : -1;
    const int rc = MPI_Bcast(&v, 1, MPI_INT, root, f);
    if (k == 0) {
      CHECK(rc == MPI_SUCCESS && (wrank < split_at() || v == 42), "forced inter bcast: rc %d, value %d", rc,
            v);
    } else {
      CHECK(err_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "a forced intra algorithm: rc %d", rc);
    }
    MPI_Comm_free(&f);
  }
  MPI_Info_free(&info);
  MPI_Comm_set_errhandler(ic, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Comm ic = MPI_COMM_NULL;
  if (wsize >= 2) {
    const int in_a = wrank < split_at();
    MPI_Comm local;
    MPI_Comm_split(MPI_COMM_WORLD, in_a, wrank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? split_at() : 0, 77, &ic);
    check_groups(ic, in_a);
    p2p(ic, in_a);
    for (int nb = 0; nb < 3; ++nb) collectives(ic, in_a, nb);
    derived(ic, in_a);
    partitioned(ic, in_a);

    /* The same inter-communicator from groups, with no parent. */
    MPI_Group wg, ga, gb;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int ra[1][3] = {{0, split_at() - 1, 1}}, rb[1][3] = {{split_at(), wsize - 1, 1}};
    MPI_Group_range_incl(wg, 1, ra, &ga);
    MPI_Group_range_incl(wg, 1, rb, &gb);
    MPI_Comm fg;
    MPI_Intercomm_create_from_groups(in_a ? ga : gb, 0, in_a ? gb : ga, 0, "pamir.test.intercomm",
                                     MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &fg);
    check_groups(fg, in_a);
    collectives(fg, in_a, 1);
    MPI_Comm_free(&fg);
    MPI_Group_free(&ga);
    MPI_Group_free(&gb);
    MPI_Group_free(&wg);
    MPI_Comm_free(&local);
  }
  errors(ic);
  if (ic != MPI_COMM_NULL) MPI_Comm_free(&ic);
  return finish("intercomm");
}
