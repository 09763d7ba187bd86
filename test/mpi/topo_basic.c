/* Process topologies: MPI_Dims_create's factorisations, Cartesian grids (coordinates, ranks, shifts with
 * and without periods, exchanges along every direction checked by value, a 3-D grid's sub-grids), graph
 * and distributed-graph communicators and their neighbour lists, MPI_Topo_test, duplicates keeping the
 * topology, MPI_Cart_map and MPI_Graph_map (a process keeps its rank where the grid or graph has room for it,
 * MPI_UNDEFINED past it), and the errors of wrong arguments. Runs at any size. */
#include "check.h"

static int world_rank, world_size;

static void dims_create(void) {
  struct {
    int nnodes, ndims, in[4], out[4];
  } cases[] = {
      {12, 2, {0, 0}, {4, 3}},       {16, 3, {0, 0, 0}, {4, 2, 2}},
      {6, 3, {0, 0, 0}, {3, 2, 1}},  {7, 2, {0, 0}, {7, 1}},
      {24, 3, {0, 3, 0}, {4, 3, 2}}, {1, 3, {0, 0, 0}, {1, 1, 1}},
      {36, 2, {0, 0}, {6, 6}},       {30, 3, {0, 0, 0}, {5, 3, 2}},
      {8, 3, {2, 0, 2}, {2, 2, 2}},  {64, 4, {0, 0, 0, 0}, {4, 4, 2, 2}},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    int d[4];
    memcpy(d, cases[k].in, sizeof d);
    const int rc = MPI_Dims_create(cases[k].nnodes, cases[k].ndims, d);
    CHECK(rc == MPI_SUCCESS, "Dims_create(%d, %d) returned %d", cases[k].nnodes, cases[k].ndims, rc);
    for (int i = 0; i < cases[k].ndims; ++i)
      CHECK(d[i] == cases[k].out[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d", cases[k].nnodes,
            cases[k].ndims, i, d[i], cases[k].out[i]);
  }
  CHECK(MPI_Dims_create(5, 0, NULL) == MPI_SUCCESS, "Dims_create with no dimensions");
  /* Errors are raised on MPI_COMM_SELF (no object). */
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int bad[2] = {3, 0};
  CHECK(err_class(MPI_Dims_create(10, 2, bad)) == MPI_ERR_DIMS, "10 nodes on a fixed 3 is MPI_ERR_DIMS");
  int neg[1] = {-1};
  CHECK(err_class(MPI_Dims_create(4, 1, neg)) == MPI_ERR_DIMS, "a negative dimension is MPI_ERR_DIMS");
  CHECK(err_class(MPI_Dims_create(4, -1, neg)) == MPI_ERR_DIMS, "negative ndims is MPI_ERR_DIMS");
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

/* Along every direction of a grid: the rank found by Cart_shift sends its rank, and the value received
 * is that of the source Cart_shift named (untouched for MPI_PROC_NULL). */
static void exchange_along(MPI_Comm cart, int ndims) {
  for (int dir = 0; dir < ndims; ++dir)
    for (int disp = -2; disp <= 2; ++disp) {
      int src, dst, me;
      MPI_Comm_rank(cart, &me);
      MPI_Cart_shift(cart, dir, disp, &src, &dst);
      int got = -7;
      MPI_Sendrecv(&me, 1, MPI_INT, dst, dir * 10 + disp + 2, &got, 1, MPI_INT, src, dir * 10 + disp + 2,
                   cart, MPI_STATUS_IGNORE);
      CHECK(got == (src == MPI_PROC_NULL ? -7 : src), "shift dir %d disp %d: got %d from source %d", dir,
            disp, got, src);
    }
}

static void cartesian(void) {
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  MPI_Dims_create(world_size, 2, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
  CHECK(cart != MPI_COMM_NULL, "every rank is in a grid of the whole world");
  int status = -1, nd = -1, rank;
  MPI_Topo_test(cart, &status);
  CHECK(status == MPI_CART, "Topo_test: %d", status);
  MPI_Cartdim_get(cart, &nd);
  CHECK(nd == 2, "Cartdim_get: %d", nd);
  MPI_Comm_rank(cart, &rank);
  for (int r = 0; r < world_size; ++r) {
    int c[2], back = -1;
    MPI_Cart_coords(cart, r, 2, c);
    CHECK(c[0] == r / dims[1] && c[1] == r % dims[1], "rank %d at (%d,%d): row-major", r, c[0], c[1]);
    MPI_Cart_rank(cart, c, &back);
    CHECK(back == r, "Cart_rank(Cart_coords(%d)) = %d", r, back);
  }
  int gd[2], gp[2], gc[2];
  MPI_Cart_get(cart, 2, gd, gp, gc);
  CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0 && gc[0] == rank / dims[1] &&
            gc[1] == rank % dims[1],
        "Cart_get: dims %dx%d periods %d,%d coords %d,%d", gd[0], gd[1], gp[0], gp[1], gc[0], gc[1]);
  /* A periodic coordinate wraps; a non-periodic one outside the grid is an error. */
  int wrap[2] = {-1, 0}, r = -1;
  MPI_Cart_rank(cart, wrap, &r);
  CHECK(r == (dims[0] - 1) * dims[1], "(-1, 0) wraps to rank %d, got %d", (dims[0] - 1) * dims[1], r);
  MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
  int off[2] = {0, dims[1]};
  CHECK(err_class(MPI_Cart_rank(cart, off, &r)) == MPI_ERR_ARG, "outside a non-periodic dimension");
  int s, d;
  CHECK(err_class(MPI_Cart_shift(cart, 2, 1, &s, &d)) == MPI_ERR_DIMS, "direction 2 of a 2-D grid");
  exchange_along(cart, 2);

  /* A duplicate keeps the topology. */
  MPI_Comm dup;
  MPI_Comm_dup(cart, &dup);
  MPI_Topo_test(dup, &status);
  int dd[2], dp[2], dc[2];
  MPI_Cart_get(dup, 2, dd, dp, dc);
  CHECK(status == MPI_CART && dd[0] == dims[0] && dc[0] == gc[0] && dc[1] == gc[1], "the duplicate's grid");
  MPI_Comm_free(&dup);
  MPI_Comm_free(&cart);

  /* A ring of every size, periodic: at sizes 1 and 2 one rank is both neighbours. */
  int n1 = world_size, p1 = 1;
  MPI_Comm ring;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &n1, &p1, 0, &ring);
  exchange_along(ring, 1);
  int left, right;
  MPI_Cart_shift(ring, 0, 1, &left, &right);
  CHECK(left == (world_rank + world_size - 1) % world_size && right == (world_rank + 1) % world_size,
        "ring neighbours %d %d", left, right);
  MPI_Comm_free(&ring);

  /* A grid smaller than the communicator: the rest get MPI_COMM_NULL. */
  int small = world_size > 1 ? world_size - 1 : 1, np = 0;
  MPI_Comm part;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &small, &np, 0, &part);
  CHECK((part == MPI_COMM_NULL) == (world_rank >= small), "rank %d of a %d-grid: %s", world_rank, small,
        part == MPI_COMM_NULL ? "null" : "member");
  if (part != MPI_COMM_NULL) {
    exchange_along(part, 1);
    MPI_Comm_free(&part);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int big = world_size + 1;
  CHECK(err_class(MPI_Cart_create(MPI_COMM_WORLD, 1, &big, &np, 0, &part)) == MPI_ERR_DIMS,
        "a grid larger than the communicator");
  CHECK(err_class(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &s, &d)) == MPI_ERR_TOPOLOGY,
        "Cart_shift without a topology");
  MPI_Topo_test(MPI_COMM_WORLD, &status);
  CHECK(status == MPI_UNDEFINED, "MPI_COMM_WORLD has no topology: %d", status);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Sub-grids of a 3-D grid: keeping dimensions 0 and 2, the members are those with this rank's
 * coordinate 1; their sub-ranks follow the kept coordinates. */
static void cart_sub(void) {
  int dims[3] = {0, 0, 0}, periods[3] = {0, 1, 0};
  MPI_Dims_create(world_size, 3, dims);
  MPI_Comm cart, sub;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
  int me[3];
  MPI_Cart_coords(cart, world_rank, 3, me);
  const int keep[3] = {1, 0, 1};
  MPI_Cart_sub(cart, keep, &sub);
  int size, rank, nd, sd[2], sp[2], sc[2];
  MPI_Comm_size(sub, &size);
  MPI_Comm_rank(sub, &rank);
  MPI_Cartdim_get(sub, &nd);
  MPI_Cart_get(sub, 2, sd, sp, sc);
  CHECK(size == dims[0] * dims[2] && nd == 2, "sub-grid size %d dims %d", size, nd);
  CHECK(sd[0] == dims[0] && sd[1] == dims[2] && sp[0] == 0 && sp[1] == 0, "sub-grid %dx%d", sd[0], sd[1]);
  CHECK(sc[0] == me[0] && sc[1] == me[2] && rank == me[0] * dims[2] + me[2], "sub coords (%d,%d) rank %d",
        sc[0], sc[1], rank);
  /* Its members: the sum of their world ranks, against the ranks with this coordinate 1. */
  long sum = 0, expect = 0;
  long mine = world_rank;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, sub);
  for (int r = 0; r < world_size; ++r) {
    int c[3];
    MPI_Cart_coords(cart, r, 3, c);
    if (c[1] == me[1]) expect += r;
  }
  CHECK(sum == expect, "sub-grid members sum to %ld, expected %ld", sum, expect);
  exchange_along(sub, 2);
  MPI_Comm_free(&sub);
  /* Keeping nothing: every process alone, with a 0-dimensional grid. */
  const int none[3] = {0, 0, 0};
  MPI_Cart_sub(cart, none, &sub);
  MPI_Comm_size(sub, &size);
  MPI_Cartdim_get(sub, &nd);
  CHECK(size == 1 && nd == 0, "keeping no dimension: size %d, %d dims", size, nd);
  MPI_Comm_free(&sub);
  MPI_Comm_free(&cart);
}

static void graph(void) {
  /* A ring with a chord from 0 to every other node: index and edges as MPI_Graph_create takes them. */
  const int n = world_size;
  int *index = malloc(sizeof(int) * (size_t)n), *edges = malloc(sizeof(int) * (size_t)(3 * n));
  int e = 0;
  for (int i = 0; i < n; ++i) {
    edges[e++] = (i + 1) % n;
    edges[e++] = (i + n - 1) % n;
    if (i != 0) edges[e++] = 0;
    index[i] = e;
  }
  MPI_Comm g;
  MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g);
  int status, nn, ne;
  MPI_Topo_test(g, &status);
  MPI_Graphdims_get(g, &nn, &ne);
  CHECK(status == MPI_GRAPH && nn == n && ne == e, "graph: %d nodes %d edges", nn, ne);
  for (int r = 0; r < n; ++r) {
    int cnt = -1, nb[3] = {-1, -1, -1};
    MPI_Graph_neighbors_count(g, r, &cnt);
    MPI_Graph_neighbors(g, r, 3, nb);
    const int first = r ? index[r - 1] : 0;
    CHECK(cnt == index[r] - first, "rank %d has %d neighbours", r, cnt);
    for (int k = 0; k < cnt; ++k) CHECK(nb[k] == edges[first + k], "rank %d neighbour %d: %d", r, k, nb[k]);
  }
  int gi[64], ge[192];
  MPI_Graph_get(g, n, e, gi, ge);
  CHECK(memcmp(gi, index, sizeof(int) * (size_t)n) == 0 && memcmp(ge, edges, sizeof(int) * (size_t)e) == 0,
        "Graph_get gives the arrays back");
  MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
  int dims;
  CHECK(err_class(MPI_Cartdim_get(g, &dims)) == MPI_ERR_TOPOLOGY, "a graph is not a Cartesian grid");
  MPI_Comm_free(&g);
  free(index);
  free(edges);
}

static void dist_graph(void) {
  const int n = world_size, next = (world_rank + 1) % n, prev = (world_rank + n - 1) % n;
  /* Adjacent: a weighted ring, in from the previous rank, out to the next. */
  int w_in = prev * 10 + world_rank, w_out = world_rank * 10 + next;
  MPI_Comm dg;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, &w_in, 1, &next, &w_out, MPI_INFO_NULL, 0, &dg);
  int status, indeg, outdeg, weighted, src = -1, dst = -1, ws = -1, wd = -1;
  MPI_Topo_test(dg, &status);
  MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
  MPI_Dist_graph_neighbors(dg, 1, &src, &ws, 1, &dst, &wd);
  CHECK(status == MPI_DIST_GRAPH && indeg == 1 && outdeg == 1 && weighted, "adjacent: %d %d %d %d", status,
        indeg, outdeg, weighted);
  CHECK(src == prev && dst == next && ws == w_in && wd == w_out, "adjacent: %d(%d) -> me -> %d(%d)", src, ws,
        dst, wd);
  MPI_Comm_free(&dg);

  /* General: every rank names the edge to its next rank (weight = its rank). */
  int source = world_rank, degree = 1, *dests = malloc(sizeof(int) * (size_t)n),
      *weights = malloc(sizeof(int) * (size_t)n);
  dests[0] = next;
  weights[0] = world_rank;
  MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, dests, weights, MPI_INFO_NULL, 0, &dg);
  MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
  CHECK(indeg == 1 && outdeg == 1 && weighted, "general ring: in %d out %d weighted %d", indeg, outdeg,
        weighted);
  MPI_Dist_graph_neighbors(dg, 1, &src, &ws, 1, &dst, &wd);
  CHECK(src == prev && ws == prev && dst == next && wd == world_rank, "general ring: %d(%d) -> me -> %d(%d)",
        src, ws, dst, wd);
  MPI_Comm_free(&dg);

  /* Rank 0 names every edge i -> 0 (weight 100 + i); the others name none. A process's lists follow
   * the order of the rank that named the edges, then of that rank's list. */
  int *srcs = malloc(sizeof(int) * (size_t)n), *degs = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) {
    srcs[i] = i;
    degs[i] = 1;
    dests[i] = 0;
    weights[i] = 100 + i;
  }
  MPI_Dist_graph_create(MPI_COMM_WORLD, world_rank == 0 ? n : 0, srcs, degs, dests, weights, MPI_INFO_NULL, 0,
                        &dg);
  MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
  CHECK(outdeg == 1 && indeg == (world_rank == 0 ? n : 0), "star: in %d out %d", indeg, outdeg);
  int *in = malloc(sizeof(int) * (size_t)n), *inw = malloc(sizeof(int) * (size_t)n);
  MPI_Dist_graph_neighbors(dg, n, in, inw, 1, &dst, &wd);
  CHECK(dst == 0 && wd == 100 + world_rank, "star: out to %d (%d)", dst, wd);
  for (int k = 0; k < indeg; ++k)
    CHECK(in[k] == k && inw[k] == 100 + k, "star: in-edge %d from %d (%d)", k, in[k], inw[k]);
  MPI_Comm_free(&dg);

  /* Unweighted. */
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, MPI_UNWEIGHTED, 1, &next, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &dg);
  MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
  CHECK(!weighted, "MPI_UNWEIGHTED gives an unweighted graph");
  MPI_Comm_free(&dg);
  free(srcs);
  free(degs);
  free(in);
  free(inw);
  free(dests);
  free(weights);
}

/* MPI_Cart_map and MPI_Graph_map: without reordering a process keeps its rank if the topology has room for
 * it and gets MPI_UNDEFINED otherwise; a topology larger than the communicator is an error. */
static void mapping(void) {
  int dims[2] = {2, 2}, periods[2] = {1, 1}, nr = -2;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &nr);
  if (world_size >= 4)
    CHECK(rc == MPI_SUCCESS && nr == (world_rank < 4 ? world_rank : MPI_UNDEFINED),
          "Cart_map of a periodic 2x2 grid on %d ranks: rc %d, newrank %d", world_size, rc, nr);
  else
    CHECK(err_class(rc) == MPI_ERR_DIMS, "Cart_map of a 2x2 grid on %d ranks: class %d", world_size,
          err_class(rc));
  /* Grids and ring graphs of every size up to one past the communicator's: at 2 ranks or more, both cases. */
  const size_t most = (size_t)world_size + 1;
  int *index = malloc(sizeof(int) * most), *edges = malloc(sizeof(int) * 2 * most);
  for (int nn = 1; nn <= world_size + 1; ++nn) {
    const int want = world_rank < nn ? world_rank : MPI_UNDEFINED;
    int d2[2] = {nn, 1}, p2[2] = {0, 1}, cr = -2, gr = -2;
    for (int i = 0; i < nn; ++i) {
      edges[2 * i] = (i + 1) % nn;
      edges[2 * i + 1] = (i + nn - 1) % nn;
      index[i] = 2 * (i + 1);
    }
    const int crc = MPI_Cart_map(MPI_COMM_WORLD, 2, d2, p2, &cr);
    const int grc = MPI_Graph_map(MPI_COMM_WORLD, nn, index, edges, &gr);
    if (nn > world_size) {
      CHECK(err_class(crc) == MPI_ERR_DIMS && err_class(grc) == MPI_ERR_ARG,
            "maps of %d nodes on %d ranks: classes %d and %d", nn, world_size, err_class(crc),
            err_class(grc));
    } else {
      CHECK(crc == MPI_SUCCESS && cr == want, "Cart_map of %dx1 on %d ranks: rc %d, newrank %d (want %d)", nn,
            world_size, crc, cr, want);
      CHECK(grc == MPI_SUCCESS && gr == want, "Graph_map of a %d-ring on %d: rc %d, newrank %d (want %d)", nn,
            world_size, grc, gr, want);
    }
  }
  /* A graph of no nodes has room for nobody. */
  int none = -2;
  CHECK(MPI_Graph_map(MPI_COMM_WORLD, 0, index, edges, &none) == MPI_SUCCESS && none == MPI_UNDEFINED,
        "Graph_map of no nodes: %d", none);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  free(index);
  free(edges);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  dims_create();
  cartesian();
  cart_sub();
  graph();
  dist_graph();
  mapping();
  return finish("topo_basic");
}
