/* The neighbourhood collectives on Cartesian grids (periodic and not, including the periodic dimensions
 * of size 1 and 2 where one rank is both neighbours), a graph with repeated edges and an irregular
 * distributed graph: every form (blocking, nonblocking, persistent started three times with new data,
 * large-count) of allgather, allgatherv, alltoall, alltoallv and alltoallw, and the large-count
 * nonblocking and persistent forms of allgather and alltoall, every element checked
 * against who sent it and for which of its neighbours, and the parts of MPI_PROC_NULL neighbours left
 * untouched; and a dense distributed graph (24 edges each way, more messages than one step of a schedule
 * holds by default) moving parts large enough to go by rendezvous. */
#include "check.h"

static int world_rank, world_size;
static int dist_degree = 2; /* of the distributed graph being tested */

#define MAXN 32
#define MAXE 8
enum { kSentinel = -1 };

/* A topology's neighbour lists, as the standard orders them, and for every rank's lists (the test knows
 * the whole topology) which of a sender's parts lands in each of my receive parts. */
struct topo {
  const char *name;
  MPI_Comm comm;
  int cart;
  int nin, nout, in[MAXN], out[MAXN];
};

static void lists_of(MPI_Comm comm, int rank, int *nin, int *in, int *nout, int *out, int *cart) {
  int status = MPI_DIST_GRAPH;
  if (comm != MPI_COMM_NULL) MPI_Topo_test(comm, &status);
  *cart = status == MPI_CART;
  if (status == MPI_CART) {
    int nd;
    MPI_Cartdim_get(comm, &nd);
    int dims[8], periods[8], coords[8];
    MPI_Cart_get(comm, nd, dims, periods, coords);
    MPI_Cart_coords(comm, rank, nd, coords);
    *nin = *nout = 2 * nd;
    for (int d = 0; d < nd; ++d)
      for (int side = 0; side < 2; ++side) {
        int c[8];
        memcpy(c, coords, sizeof c);
        c[d] += side ? 1 : -1;
        int r = MPI_PROC_NULL;
        if (periods[d] || (c[d] >= 0 && c[d] < dims[d])) MPI_Cart_rank(comm, c, &r);
        in[2 * d + side] = out[2 * d + side] = r;
      }
  } else if (status == MPI_GRAPH) {
    MPI_Graph_neighbors_count(comm, rank, nin);
    MPI_Graph_neighbors(comm, rank, MAXN, in);
    *nout = *nin;
    memcpy(out, in, sizeof(int) * (size_t)*nin);
  } else {
    /* The distributed graphs below: out to r+1 .. r+d, in from r-1 .. r-d. */
    const int n = world_size;
    *nin = *nout = dist_degree;
    for (int j = 0; j < dist_degree; ++j) {
      out[j] = (rank + 1 + j) % n;
      in[j] = ((rank - 1 - j) % n + n) % n;
    }
  }
}

/* Which of sender's out-parts arrives in my in-part k. */
static int sender_part(const struct topo *t, int k) {
  const int s = t->in[k];
  if (t->cart) return k ^ 1; /* a rank at -1 sent towards its +1, and the other way round */
  int j = 0;                 /* the j-th edge from s in my list pairs with the j-th edge to me in its list */
  for (int i = 0; i < k; ++i) j += t->in[i] == s;
  int snin, sin[MAXN], snout, sout[MAXN], dummy;
  lists_of(t->comm, s, &snin, sin, &snout, sout, &dummy);
  for (int i = 0; i < snout; ++i)
    if (sout[i] == world_rank && j-- == 0) return i;
  return -1;
}

static int value(int sender, int part, int elem, int round) {
  return sender * 1000000 + part * 10000 + elem * 10 + round;
}

/* Elements of the (sender, receiver) pair in the v and w forms: both ends can compute it. */
static int pair_count(int s, int r) {
  return 1 + (s + 2 * r) % 3;
}

enum form { kBlocking, kNonblocking, kPersistent, kLarge, kLargeNonblocking, kLargePersistent };
static const char *form_name[] = {"blocking",
                                  "nonblocking",
                                  "persistent",
                                  "large-count",
                                  "large-count nonblocking",
                                  "large-count persistent"};
static int persistent(enum form f) {
  return f == kPersistent || f == kLargePersistent;
}

static void check_recv(const struct topo *t, const char *coll, enum form f, const int *rbuf,
                       const int *displs, const int *counts, int stride, int round, int whole) {
  for (int k = 0; k < t->nin; ++k) {
    const int s = t->in[k];
    for (int e = 0; e < counts[k]; ++e) {
      const int got = rbuf[displs[k] + e * stride];
      const int want = s == MPI_PROC_NULL ? kSentinel : value(s, whole ? 0 : sender_part(t, k), e, round);
      CHECK(got == want, "%s %s %s round %d: part %d (from %d) element %d: %d, expected %d", t->name, coll,
            form_name[f], round, k, s, e, got, want);
      if (got != want) return;
    }
    if (stride > 1)
      for (int e = 0; e + 1 < counts[k]; ++e)
        CHECK(rbuf[displs[k] + e * stride + 1] == kSentinel, "%s %s: a gap of a strided part was written",
              t->name, coll);
  }
}

/* Starts (or runs) one call of `coll` in form f; for the persistent forms *req is the persistent request. */
static void run(enum form f, MPI_Request *req) {
  if (f == kNonblocking || f == kLargeNonblocking) MPI_Wait(req, MPI_STATUS_IGNORE);
  if (persistent(f)) {
    MPI_Start(req);
    MPI_Wait(req, MPI_STATUS_IGNORE);
  }
}

static void test_allgather(const struct topo *t, enum form f) {
  enum { kCount = 5 };
  int sbuf[kCount] = {0}, rbuf[MAXN * kCount], counts[MAXN], displs[MAXN];
  MPI_Request req = MPI_REQUEST_NULL;
  if (f == kPersistent)
    MPI_Neighbor_allgather_init(sbuf, kCount, MPI_INT, rbuf, kCount, MPI_INT, t->comm, MPI_INFO_NULL, &req);
  if (f == kLargePersistent)
    MPI_Neighbor_allgather_init_c(sbuf, kCount, MPI_INT, rbuf, kCount, MPI_INT, t->comm, MPI_INFO_NULL, &req);
  for (int round = 0; round < (persistent(f) ? 3 : 1); ++round) {
    for (int e = 0; e < kCount; ++e) sbuf[e] = value(world_rank, 0, e, round);
    for (int i = 0; i < MAXN * kCount; ++i) rbuf[i] = kSentinel;
    if (f == kBlocking) MPI_Neighbor_allgather(sbuf, kCount, MPI_INT, rbuf, kCount, MPI_INT, t->comm);
    if (f == kLarge) MPI_Neighbor_allgather_c(sbuf, kCount, MPI_INT, rbuf, kCount, MPI_INT, t->comm);
    if (f == kNonblocking)
      MPI_Ineighbor_allgather(sbuf, kCount, MPI_INT, rbuf, kCount, MPI_INT, t->comm, &req);
    if (f == kLargeNonblocking)
      MPI_Ineighbor_allgather_c(sbuf, kCount, MPI_INT, rbuf, kCount, MPI_INT, t->comm, &req);
    run(f, &req);
    for (int k = 0; k < t->nin; ++k) {
      counts[k] = kCount;
      displs[k] = k * kCount;
    }
    check_recv(t, "allgather", f, rbuf, displs, counts, 1, round, 1);
  }
  if (persistent(f)) MPI_Request_free(&req);
}

static void test_allgatherv(const struct topo *t, enum form f) {
  int sbuf[8], rbuf[MAXN * 8], counts[MAXN], displs[MAXN];
  MPI_Count ccounts[MAXN];
  MPI_Aint cdispls[MAXN];
  /* The same count to every out-neighbour (allgather's send): it depends on the sender only. */
  const int mine = 1 + world_rank % 3;
  for (int k = 0, off = 0; k < t->nin; ++k) {
    counts[k] = t->in[k] == MPI_PROC_NULL ? 2 : 1 + t->in[k] % 3;
    displs[k] = off + 1; /* a hole before each part */
    off += counts[k] + 1;
    ccounts[k] = counts[k];
    cdispls[k] = displs[k];
  }
  MPI_Request req = MPI_REQUEST_NULL;
  if (f == kPersistent)
    MPI_Neighbor_allgatherv_init(sbuf, mine, MPI_INT, rbuf, counts, displs, MPI_INT, t->comm, MPI_INFO_NULL,
                                 &req);
  for (int round = 0; round < (f == kPersistent ? 3 : 1); ++round) {
    for (int e = 0; e < mine; ++e) sbuf[e] = value(world_rank, 0, e, round);
    for (int i = 0; i < MAXN * 8; ++i) rbuf[i] = kSentinel;
    if (f == kBlocking) MPI_Neighbor_allgatherv(sbuf, mine, MPI_INT, rbuf, counts, displs, MPI_INT, t->comm);
    if (f == kLarge) MPI_Neighbor_allgatherv_c(sbuf, mine, MPI_INT, rbuf, ccounts, cdispls, MPI_INT, t->comm);
    if (f == kNonblocking)
      MPI_Ineighbor_allgatherv(sbuf, mine, MPI_INT, rbuf, counts, displs, MPI_INT, t->comm, &req);
    run(f, &req);
    check_recv(t, "allgatherv", f, rbuf, displs, counts, 1, round, 1);
    for (int k = 0; k < t->nin; ++k)
      CHECK(rbuf[displs[k] - 1] == kSentinel, "allgatherv: the hole before part %d was written", k);
  }
  if (f == kPersistent) MPI_Request_free(&req);
}

static void test_alltoall(const struct topo *t, enum form f) {
  enum { kCount = 3 };
  int sbuf[MAXN * kCount] = {0}, rbuf[MAXN * kCount], counts[MAXN], displs[MAXN];
  MPI_Request req = MPI_REQUEST_NULL;
  if (f == kPersistent)
    MPI_Neighbor_alltoall_init(sbuf, kCount, MPI_INT, rbuf, kCount, MPI_INT, t->comm, MPI_INFO_NULL, &req);
  if (f == kLargePersistent)
    MPI_Neighbor_alltoall_init_c(sbuf, kCount, MPI_INT, rbuf, kCount, MPI_INT, t->comm, MPI_INFO_NULL, &req);
  for (int round = 0; round < (persistent(f) ? 3 : 1); ++round) {
    for (int k = 0; k < t->nout; ++k)
      for (int e = 0; e < kCount; ++e) sbuf[k * kCount + e] = value(world_rank, k, e, round);
    for (int i = 0; i < MAXN * kCount; ++i) rbuf[i] = kSentinel;
    if (f == kBlocking) MPI_Neighbor_alltoall(sbuf, kCount, MPI_INT, rbuf, kCount, MPI_INT, t->comm);
    if (f == kLarge) MPI_Neighbor_alltoall_c(sbuf, kCount, MPI_INT, rbuf, kCount, MPI_INT, t->comm);
    if (f == kNonblocking)
      MPI_Ineighbor_alltoall(sbuf, kCount, MPI_INT, rbuf, kCount, MPI_INT, t->comm, &req);
    if (f == kLargeNonblocking)
      MPI_Ineighbor_alltoall_c(sbuf, kCount, MPI_INT, rbuf, kCount, MPI_INT, t->comm, &req);
    run(f, &req);
    for (int k = 0; k < t->nin; ++k) {
      counts[k] = kCount;
      displs[k] = k * kCount;
    }
    check_recv(t, "alltoall", f, rbuf, displs, counts, 1, round, 0);
  }
  if (persistent(f)) MPI_Request_free(&req);
}

/* alltoallv (w = 0) and alltoallw (w = 1: byte displacements, and every other receive part a strided
 * type that leaves a gap after each element). */
static void test_alltoallvw(const struct topo *t, enum form f, int w) {
  int sbuf[MAXN * 8], rbuf[MAXN * 16], scounts[MAXN], sdispls[MAXN], rcounts[MAXN], rdispls[MAXN];
  int rtcounts[MAXN], relem[MAXN], rstride[MAXN];
  MPI_Count cs[MAXN], cr[MAXN];
  MPI_Aint as[MAXN], ar[MAXN];
  MPI_Datatype stypes[MAXN], rtypes[MAXN], strided[4];
  for (int n = 1; n <= 3; ++n) {
    MPI_Type_vector(n, 1, 2, MPI_INT, &strided[n]);
    MPI_Type_commit(&strided[n]);
  }
  for (int k = 0, off = 0; k < t->nout; ++k) {
    scounts[k] = t->out[k] == MPI_PROC_NULL ? 1 : pair_count(world_rank, t->out[k]);
    sdispls[k] = off;
    off += scounts[k];
    stypes[k] = MPI_INT;
  }
  for (int k = 0, off = 0; k < t->nin; ++k) {
    relem[k] = t->in[k] == MPI_PROC_NULL ? 1 : pair_count(t->in[k], world_rank);
    const int strided_part = w && k % 2 == 1;
    rstride[k] = strided_part ? 2 : 1;
    rtypes[k] = strided_part ? strided[relem[k]] : MPI_INT;
    rtcounts[k] = strided_part ? 1 : relem[k];
    rcounts[k] = relem[k];
    rdispls[k] = off;
    off += relem[k] * 2;
  }
  for (int k = 0; k < MAXN; ++k) {
    cs[k] = scounts[k];
    cr[k] = rtcounts[k];
    as[k] = w ? (MPI_Aint)sdispls[k] * (MPI_Aint)sizeof(int) : sdispls[k];
    ar[k] = w ? (MPI_Aint)rdispls[k] * (MPI_Aint)sizeof(int) : rdispls[k];
  }
  int ias[MAXN], iar[MAXN];
  for (int k = 0; k < MAXN; ++k) {
    ias[k] = (int)as[k];
    iar[k] = (int)ar[k];
  }
  MPI_Request req = MPI_REQUEST_NULL;
  if (f == kPersistent) {
    if (w)
      MPI_Neighbor_alltoallw_init(sbuf, scounts, as, stypes, rbuf, rtcounts, ar, rtypes, t->comm,
                                  MPI_INFO_NULL, &req);
    else
      MPI_Neighbor_alltoallv_init(sbuf, scounts, ias, MPI_INT, rbuf, rtcounts, iar, MPI_INT, t->comm,
                                  MPI_INFO_NULL, &req);
  }
  for (int round = 0; round < (f == kPersistent ? 3 : 1); ++round) {
    for (int k = 0; k < t->nout; ++k)
      for (int e = 0; e < scounts[k]; ++e) sbuf[sdispls[k] + e] = value(world_rank, k, e, round);
    for (int i = 0; i < MAXN * 16; ++i) rbuf[i] = kSentinel;
    if (w) {
      if (f == kBlocking)
        MPI_Neighbor_alltoallw(sbuf, scounts, as, stypes, rbuf, rtcounts, ar, rtypes, t->comm);
      if (f == kLarge) MPI_Neighbor_alltoallw_c(sbuf, cs, as, stypes, rbuf, cr, ar, rtypes, t->comm);
      if (f == kNonblocking)
        MPI_Ineighbor_alltoallw(sbuf, scounts, as, stypes, rbuf, rtcounts, ar, rtypes, t->comm, &req);
    } else {
      if (f == kBlocking)
        MPI_Neighbor_alltoallv(sbuf, scounts, ias, MPI_INT, rbuf, rtcounts, iar, MPI_INT, t->comm);
      if (f == kLarge) MPI_Neighbor_alltoallv_c(sbuf, cs, as, MPI_INT, rbuf, cr, ar, MPI_INT, t->comm);
      if (f == kNonblocking)
        MPI_Ineighbor_alltoallv(sbuf, scounts, ias, MPI_INT, rbuf, rtcounts, iar, MPI_INT, t->comm, &req);
    }
    run(f, &req);
    for (int k = 0; k < t->nin; ++k) {
      const int sp = t->in[k] == MPI_PROC_NULL ? 0 : sender_part(t, k);
      for (int e = 0; e < rcounts[k]; ++e) {
        const int got = rbuf[rdispls[k] + e * rstride[k]];
        const int want = t->in[k] == MPI_PROC_NULL ? kSentinel : value(t->in[k], sp, e, round);
        CHECK(got == want, "%s %s %s round %d: part %d (from %d) element %d: %d, expected %d", t->name,
              w ? "alltoallw" : "alltoallv", form_name[f], round, k, t->in[k], e, got, want);
      }
      if (rstride[k] > 1)
        for (int e = 0; e + 1 < rcounts[k]; ++e)
          CHECK(rbuf[rdispls[k] + e * 2 + 1] == kSentinel, "%s alltoallw: a gap of part %d was written",
                t->name, k);
    }
  }
  if (f == kPersistent) MPI_Request_free(&req);
  for (int n = 1; n <= 3; ++n) MPI_Type_free(&strided[n]);
}

/* Parts of 128 KiB to each of the dense graph's neighbours, blocking and persistent: every message
 * is a rendezvous, and each rank's lists pair up with its peers' in no common order. */
static void large_parts(const struct topo *t) {
  enum { kCount = 32768 };
  int *sbuf = malloc(sizeof(int) * kCount * MAXN), *rbuf = malloc(sizeof(int) * kCount * MAXN);
  MPI_Request req;
  MPI_Neighbor_alltoall_init(sbuf, kCount, MPI_INT, rbuf, kCount, MPI_INT, t->comm, MPI_INFO_NULL, &req);
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < t->nout; ++k)
      for (int e = 0; e < kCount; ++e) sbuf[k * kCount + e] = value(world_rank, k, e % 997, round);
    for (int i = 0; i < kCount * t->nin; ++i) rbuf[i] = kSentinel;
    if (round == 0) {
      MPI_Neighbor_alltoall(sbuf, kCount, MPI_INT, rbuf, kCount, MPI_INT, t->comm);
    } else {
      MPI_Start(&req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    for (int k = 0; k < t->nin; ++k) {
      const int sp = sender_part(t, k);
      int bad = 0;
      for (int e = 0; e < kCount && !bad; ++e)
        bad = rbuf[k * kCount + e] != value(t->in[k], sp, e % 997, round);
      CHECK(!bad, "dense graph, 128 KiB parts, round %d: part %d from %d", round, k, t->in[k]);
    }
  }
  MPI_Request_free(&req);
  free(sbuf);
  free(rbuf);
}

static void all_forms(struct topo *t) {
  lists_of(t->comm, world_rank, &t->nin, t->in, &t->nout, t->out, &t->cart);
  /* The lists the library reports for a distributed graph are the ones this test assumes. */
  int status;
  MPI_Topo_test(t->comm, &status);
  if (status == MPI_DIST_GRAPH) {
    int in[MAXN], out[MAXN], indeg, outdeg, weighted;
    MPI_Dist_graph_neighbors_count(t->comm, &indeg, &outdeg, &weighted);
    MPI_Dist_graph_neighbors(t->comm, MAXN, in, MPI_UNWEIGHTED, MAXN, out, MPI_UNWEIGHTED);
    CHECK(indeg == t->nin && outdeg == t->nout && memcmp(in, t->in, sizeof(int) * (size_t)indeg) == 0 &&
              memcmp(out, t->out, sizeof(int) * (size_t)outdeg) == 0,
          "distributed graph lists");
  }
  for (int f = kBlocking; f <= kLarge; ++f) {
    test_allgather(t, (enum form)f);
    test_allgatherv(t, (enum form)f);
    test_alltoall(t, (enum form)f);
    test_alltoallvw(t, (enum form)f, 0);
    test_alltoallvw(t, (enum form)f, 1);
  }
  for (int f = kLargeNonblocking; f <= kLargePersistent; ++f) {
    test_allgather(t, (enum form)f);
    test_alltoall(t, (enum form)f);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);

  struct topo t;
  /* A periodic ring: at 1 and 2 ranks one rank is both neighbours. */
  int n = world_size, yes = 1, no = 0;
  t.name = "periodic ring";
  MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &yes, 0, &t.comm);
  all_forms(&t);
  MPI_Comm_free(&t.comm);
  /* A non-periodic line: the ends have MPI_PROC_NULL neighbours. */
  t.name = "line";
  MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &no, 0, &t.comm);
  all_forms(&t);
  MPI_Comm_free(&t.comm);
  /* A 2-D grid, periodic in one dimension, and a 3-D one periodic in all (dimensions of size 1 and 2). */
  int dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1};
  MPI_Dims_create(world_size, 2, dims);
  t.name = "2-D grid";
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &t.comm);
  all_forms(&t);
  MPI_Comm_free(&t.comm);
  int dims3[3] = {0, 0, 0}, all3[3] = {1, 1, 1};
  MPI_Dims_create(world_size, 3, dims3);
  t.name = "3-D torus";
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims3, all3, 0, &t.comm);
  all_forms(&t);
  MPI_Comm_free(&t.comm);
  /* A graph: a ring (repeated edges at 1 and 2 ranks) plus a chord to rank 0 from every other rank. */
  int index[64], edges[192], e = 0;
  for (int i = 0; i < n; ++i) {
    edges[e++] = (i + 1) % n;
    edges[e++] = (i + n - 1) % n;
    if (i != 0) edges[e++] = 0;
    index[i] = e;
  }
  /* Rank 0's list must name every rank that names it: add the chords' other ends. */
  int index2[64], edges2[256], e2 = 0;
  for (int i = 0; i < n; ++i) {
    const int first = i ? index[i - 1] : 0;
    for (int j = first; j < index[i]; ++j) edges2[e2++] = edges[j];
    if (i == 0)
      for (int k = 1; k < n; ++k) edges2[e2++] = k;
    index2[i] = e2;
  }
  t.name = "graph";
  MPI_Graph_create(MPI_COMM_WORLD, n, index2, edges2, 0, &t.comm);
  all_forms(&t);
  MPI_Comm_free(&t.comm);
  /* Distributed graphs: out to r+1 .. r+d, in from r-1 .. r-d (repeated edges when d >= n). */
  for (dist_degree = 2; dist_degree <= 24; dist_degree += 22) {
    int in[MAXN], out[MAXN], nin, nout, cart;
    lists_of(MPI_COMM_NULL, world_rank, &nin, in, &nout, out, &cart);
    t.name = dist_degree == 2 ? "distributed graph" : "dense distributed graph";
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, MPI_UNWEIGHTED, nout, out, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &t.comm);
    all_forms(&t);
    if (dist_degree == 24) large_parts(&t);
    MPI_Comm_free(&t.comm);
  }

  /* Errors: no topology, MPI_IN_PLACE. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int x = 0, y[4];
  CHECK(err_class(MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD)) == MPI_ERR_TOPOLOGY,
        "a neighbourhood collective without a topology");
  MPI_Comm ring;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &yes, 0, &ring);
  MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
  CHECK(err_class(MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, ring)) == MPI_ERR_BUFFER,
        "MPI_IN_PLACE");
  MPI_Comm_free(&ring);
  return finish("neighbor");
}
