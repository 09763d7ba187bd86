// Process topologies (MPI 5.0 chapter 8): MPI_Dims_create, Cartesian, graph and distributed-graph
// communicators and their queries. A topology is a communicator with a `Topology` attached (mpi/comm.h),
// made by a split of the old communicator (ranks beyond the grid or graph get MPI_COMM_NULL) and shared,
// unchanged, by its duplicates. `reorder` keeps every rank where it is: on one node every placement of
// ranks is as good as another, and across nodes the launcher already placed consecutive ranks together,
// which is the order a grid's neighbours want.
#include <algorithm>
#include <climits>
#include <numeric>

#include "mpi/check.h"
#include "mpi/info.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

[[gnu::cold]] int no_topology(Comm *c, const char *fn, int kind) {
  static const char *const names[] = {"a Cartesian", "a graph", "a distributed graph"};
  return raise(c, fn, MPI_ERR_TOPOLOGY, "the communicator has no topology, or not %s one",
               names[kind - MPI_CART]);
}

#define PAMIR_TOPO(c, k)                                                              \
  ({                                                                                  \
    const Topology *t_ = (c)->topo.get();                                             \
    if (__builtin_expect(!t_ || t_->kind != (k), 0)) return no_topology(c, fn_, (k)); \
    t_;                                                                               \
  })

// The product of n positive dimensions, or -1 when it exceeds INT_MAX.
int64_t grid_size(const int *dims, int n) {
  int64_t p = 1;
  for (int i = 0; i < n; ++i) {
    p *= dims[i];
    if (p > INT_MAX) return -1;
  }
  return p;
}

std::vector<int> coords_of(const Topology &t, int rank) {
  std::vector<int> c(t.dims.size());
  for (size_t i = t.dims.size(); i-- > 0;) {
    c[i] = rank % t.dims[i];
    rank /= t.dims[i];
  }
  return c;
}

// Row-major rank of coordinates already inside the grid.
int rank_of(const Topology &t, const int *coords) {
  int r = 0;
  for (size_t i = 0; i < t.dims.size(); ++i) r = r * t.dims[i] + coords[i];
  return r;
}

// MPI_Dims_create's search: q split into k factors, non-increasing, none above `most`, with the least
// spread between largest and smallest (ties: the smaller largest), as close to each other as possible.
struct DimsSearch {
  std::vector<int> cur, best;
  int64_t best_spread = INT64_MAX;
  void run(int q, int k, int most) {
    if (k == 0) {
      if (q != 1) return;
      const int64_t spread = cur.empty() ? 0 : int64_t(cur.front()) - cur.back();
      if (spread < best_spread) {
        best_spread = spread;
        best = cur;
      }
      return;
    }
    if (k == 1) {
      if (q > most) return;
      cur.push_back(q);
      run(1, 0, q);
      cur.pop_back();
      return;
    }
    // The largest of the k factors is at least the k-th root of q.
    for (int d = std::min(q, most); d >= 1; --d) {
      if (q % d) continue;
      int64_t pow = 1;
      for (int i = 0; i < k && pow < q; ++i) pow *= d;
      if (pow < q) break;  // smaller d cannot reach q either
      cur.push_back(d);
      run(q / d, k - 1, d);
      cur.pop_back();
    }
  }
};

// MPI_Cart_create's and MPI_Cart_map's grid: ndims positive dimensions of at most c's size in all (n).
int check_grid(Comm *c, const char *fn_, int ndims, const int *dims, const int *periods, int64_t &n) {
  PAMIR_CHECK(c, ndims >= 0, MPI_ERR_DIMS, "ndims %d is negative", ndims);
  PAMIR_CHECK(c, ndims == 0 || (dims && periods), MPI_ERR_ARG, "%s is NULL", dims ? "periods" : "dims");
  for (int i = 0; i < ndims; ++i)
    PAMIR_CHECK(c, dims[i] > 0, MPI_ERR_DIMS, "dims[%d] = %d is not positive", i, dims[i]);
  n = grid_size(dims, ndims);
  PAMIR_CHECK(c, n >= 0 && n <= c->size, MPI_ERR_DIMS, "the grid has %lld processes, the communicator %d",
              (long long)n, c->size);
  return MPI_SUCCESS;
}

// The new communicator of a topology constructor: the first `n` ranks of c (keeping their order), the
// others MPI_COMM_NULL.
int topo_comm(Comm *c, const char *fn, int n, std::shared_ptr<Topology> t, MPI_Comm *out) {
  *out = MPI_COMM_NULL;
  Comm *nc = nullptr;
  if (int rc = comm_split(c, fn, c->rank < n ? 0 : MPI_UNDEFINED, c->rank, &nc)) return rc;
  if (!nc) return MPI_SUCCESS;
  if (t->kind == MPI_CART) t->coords = coords_of(*t, nc->rank);
  nc->topo = std::move(t);
  *out = comm_handle(nc);
  return MPI_SUCCESS;
}

bool weights_given(const int *w) {
  return w != MPI_UNWEIGHTED && w != MPI_WEIGHTS_EMPTY;
}

}  // namespace

int cart_shifted(const Topology &t, size_t dim, int64_t disp) {
  const int d = t.dims[dim];
  int64_t v = int64_t(t.coords[dim]) + disp;
  if (t.periods[dim])
    v = ((v % d) + d) % d;
  else if (v < 0 || v >= d)
    return MPI_PROC_NULL;
  std::vector<int> x = t.coords;
  x[dim] = int(v);
  return rank_of(t, x.data());
}

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  PAMIR_ENTER("MPI_Dims_create");
  Comm *self = comm_self();  // no object: MPI_COMM_SELF reports (MPI 5.0 §9.3)
  PAMIR_CHECK(self, nnodes > 0, MPI_ERR_ARG, "nnodes %d is not positive", nnodes);
  PAMIR_CHECK(self, ndims >= 0, MPI_ERR_DIMS, "ndims %d is negative", ndims);
  if (ndims == 0) return MPI_SUCCESS;  // nothing to fill, as MPICH answers
  PAMIR_CHECK(self, dims, MPI_ERR_ARG, "dims is NULL");
  int64_t fixed = 1;
  int free_dims = 0;
  for (int i = 0; i < ndims; ++i) {
    PAMIR_CHECK(self, dims[i] >= 0, MPI_ERR_DIMS, "dims[%d] = %d is negative", i, dims[i]);
    if (dims[i] == 0)
      ++free_dims;
    else
      fixed *= dims[i];
    PAMIR_CHECK(self, fixed <= nnodes, MPI_ERR_DIMS, "the fixed dimensions multiply to more than nnodes (%d)",
                nnodes);
  }
  PAMIR_CHECK(self, nnodes % fixed == 0, MPI_ERR_DIMS,
              "nnodes %d is not a multiple of the fixed dimensions' product %lld", nnodes, (long long)fixed);
  const int q = int(nnodes / fixed);
  if (free_dims == 0) {
    PAMIR_CHECK(self, q == 1, MPI_ERR_DIMS, "the dimensions multiply to %lld, not nnodes (%d)",
                (long long)fixed, nnodes);
    return MPI_SUCCESS;
  }
  DimsSearch s;
  s.run(q, free_dims, q);
  for (int i = 0, k = 0; i < ndims; ++i)
    if (dims[i] == 0) dims[i] = s.best[size_t(k++)];
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Dims_create);

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                     MPI_Comm *comm_cart) {
  PAMIR_ENTER("MPI_Cart_create");
  (void)reorder;
  Comm *c = PAMIR_COMM(comm_old);
  PAMIR_CHECK(c, !c->remote, MPI_ERR_COMM, "comm_old is an inter-communicator");
  PAMIR_CHECK(c, comm_cart, MPI_ERR_ARG, "comm_cart is NULL");
  int64_t n = 0;
  if (int rc = check_grid(c, fn_, ndims, dims, periods, n)) return rc;
  auto t = std::make_shared<Topology>();
  t->kind = MPI_CART;
  t->dims.assign(dims, dims + ndims);
  for (int i = 0; i < ndims; ++i) t->periods.push_back(periods[i] != 0);
  return topo_comm(c, fn_, int(n), std::move(t), comm_cart);
}
PAMIR_ALIAS(Cart_create);

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank) {
  PAMIR_ENTER("MPI_Cart_map");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, newrank, MPI_ERR_ARG, "newrank is NULL");
  int64_t n = 0;
  if (int rc = check_grid(c, fn_, ndims, dims, periods, n)) return rc;
  *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Cart_map);

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims) {
  PAMIR_ENTER("MPI_Cartdim_get");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, ndims, MPI_ERR_ARG, "ndims is NULL");
  *ndims = int(PAMIR_TOPO(c, MPI_CART)->dims.size());
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Cartdim_get);

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  PAMIR_ENTER("MPI_Cart_get");
  Comm *c = PAMIR_COMM(comm);
  const Topology *t = PAMIR_TOPO(c, MPI_CART);
  PAMIR_CHECK(c, maxdims >= 0, MPI_ERR_ARG, "maxdims %d is negative", maxdims);
  const int n = std::min(maxdims, int(t->dims.size()));
  PAMIR_CHECK(c, n == 0 || (dims && periods && coords), MPI_ERR_ARG, "dims, periods or coords is NULL");
  for (int i = 0; i < n; ++i) {
    dims[i] = t->dims[size_t(i)];
    periods[i] = t->periods[size_t(i)];
    coords[i] = t->coords[size_t(i)];
  }
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Cart_get);

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank) {
  PAMIR_ENTER("MPI_Cart_rank");
  Comm *c = PAMIR_COMM(comm);
  const Topology *t = PAMIR_TOPO(c, MPI_CART);
  PAMIR_CHECK(c, rank, MPI_ERR_ARG, "rank is NULL");
  PAMIR_CHECK(c, coords || t->dims.empty(), MPI_ERR_ARG, "coords is NULL");
  std::vector<int> in(t->dims.size());
  for (size_t i = 0; i < t->dims.size(); ++i) {
    const int d = t->dims[i];
    int x = coords[i];
    if (t->periods[i])
      x = ((x % d) + d) % d;
    else
      PAMIR_CHECK(c, x >= 0 && x < d, MPI_ERR_ARG,
                  "coords[%zu] = %d is outside the non-periodic dimension's [0, %d)", i, x, d);
    in[i] = x;
  }
  *rank = rank_of(*t, in.data());
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Cart_rank);

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  PAMIR_ENTER("MPI_Cart_coords");
  Comm *c = PAMIR_COMM(comm);
  const Topology *t = PAMIR_TOPO(c, MPI_CART);
  PAMIR_CHECK(c, rank >= 0 && rank < c->size, MPI_ERR_RANK, "rank %d is outside [0, %d)", rank, c->size);
  PAMIR_CHECK(c, maxdims >= 0, MPI_ERR_ARG, "maxdims %d is negative", maxdims);
  PAMIR_CHECK(c, coords || maxdims == 0 || t->dims.empty(), MPI_ERR_ARG, "coords is NULL");
  const std::vector<int> x = coords_of(*t, rank);
  std::copy_n(x.begin(), std::min(size_t(maxdims), x.size()), coords);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Cart_coords);

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest) {
  PAMIR_ENTER("MPI_Cart_shift");
  Comm *c = PAMIR_COMM(comm);
  const Topology *t = PAMIR_TOPO(c, MPI_CART);
  PAMIR_CHECK(c, rank_source && rank_dest, MPI_ERR_ARG, "rank_source or rank_dest is NULL");
  PAMIR_CHECK(c, direction >= 0 && size_t(direction) < t->dims.size(), MPI_ERR_DIMS,
              "direction %d is outside [0, %zu)", direction, t->dims.size());
  *rank_dest = cart_shifted(*t, size_t(direction), disp);
  *rank_source = cart_shifted(*t, size_t(direction), -int64_t(disp));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Cart_shift);

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm) {
  PAMIR_ENTER("MPI_Cart_sub");
  Comm *c = PAMIR_COMM(comm);
  const Topology *t = PAMIR_TOPO(c, MPI_CART);
  PAMIR_CHECK(c, newcomm, MPI_ERR_ARG, "newcomm is NULL");
  PAMIR_CHECK(c, remain_dims || t->dims.empty(), MPI_ERR_ARG, "remain_dims is NULL");
  // The processes that agree on every dropped coordinate form one sub-grid; their order is the kept
  // coordinates' row-major order, which is their order in comm.
  auto sub = std::make_shared<Topology>();
  sub->kind = MPI_CART;
  int color = 0;
  for (size_t i = 0; i < t->dims.size(); ++i) {
    if (remain_dims[i]) {
      sub->dims.push_back(t->dims[i]);
      sub->periods.push_back(t->periods[i]);
    } else {
      color = color * t->dims[i] + t->coords[i];
    }
  }
  *newcomm = MPI_COMM_NULL;
  Comm *nc = nullptr;
  if (int rc = comm_split(c, fn_, color, c->rank, &nc)) return rc;
  sub->coords = coords_of(*sub, nc->rank);
  nc->topo = std::move(sub);
  *newcomm = comm_handle(nc);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Cart_sub);

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                      MPI_Comm *comm_graph) {
  PAMIR_ENTER("MPI_Graph_create");
  (void)reorder;
  Comm *c = PAMIR_COMM(comm_old);
  PAMIR_CHECK(c, !c->remote, MPI_ERR_COMM, "comm_old is an inter-communicator");
  PAMIR_CHECK(c, comm_graph, MPI_ERR_ARG, "comm_graph is NULL");
  PAMIR_CHECK(c, nnodes >= 0 && nnodes <= c->size, MPI_ERR_ARG, "nnodes %d is outside [0, %d]", nnodes,
              c->size);
  PAMIR_CHECK(c, nnodes == 0 || index, MPI_ERR_ARG, "index is NULL");
  int prev = 0;
  for (int i = 0; i < nnodes; ++i) {
    PAMIR_CHECK(c, index[i] >= prev, MPI_ERR_ARG, "index[%d] = %d is less than the one before (%d)", i,
                index[i], prev);
    prev = index[i];
  }
  const int nedges = nnodes ? index[nnodes - 1] : 0;
  PAMIR_CHECK(c, nedges == 0 || edges, MPI_ERR_ARG, "edges is NULL");
  for (int e = 0; e < nedges; ++e)
    PAMIR_CHECK(c, edges[e] >= 0 && edges[e] < nnodes, MPI_ERR_ARG, "edges[%d] = %d is not a node of [0, %d)",
                e, edges[e], nnodes);
  auto t = std::make_shared<Topology>();
  t->kind = MPI_GRAPH;
  t->index.assign(index, index + nnodes);
  t->edges.assign(edges, edges + nedges);
  return topo_comm(c, fn_, nnodes, std::move(t), comm_graph);
}
PAMIR_ALIAS(Graph_create);

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank) {
  PAMIR_ENTER("MPI_Graph_map");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, newrank, MPI_ERR_ARG, "newrank is NULL");
  PAMIR_CHECK(c, nnodes >= 0 && nnodes <= c->size, MPI_ERR_ARG, "nnodes %d is outside [0, %d]", nnodes,
              c->size);
  PAMIR_CHECK(c, nnodes == 0 || (index && (index[nnodes - 1] == 0 || edges)), MPI_ERR_ARG,
              "index or edges is NULL");
  *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Graph_map);

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges) {
  PAMIR_ENTER("MPI_Graphdims_get");
  Comm *c = PAMIR_COMM(comm);
  const Topology *t = PAMIR_TOPO(c, MPI_GRAPH);
  PAMIR_CHECK(c, nnodes && nedges, MPI_ERR_ARG, "nnodes or nedges is NULL");
  *nnodes = int(t->index.size());
  *nedges = int(t->edges.size());
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Graphdims_get);

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  PAMIR_ENTER("MPI_Graph_get");
  Comm *c = PAMIR_COMM(comm);
  const Topology *t = PAMIR_TOPO(c, MPI_GRAPH);
  PAMIR_CHECK(c, maxindex >= 0 && maxedges >= 0, MPI_ERR_ARG, "maxindex %d or maxedges %d is negative",
              maxindex, maxedges);
  const size_t ni = std::min(size_t(maxindex), t->index.size()),
               ne = std::min(size_t(maxedges), t->edges.size());
  PAMIR_CHECK(c, (ni == 0 || index) && (ne == 0 || edges), MPI_ERR_ARG, "index or edges is NULL");
  std::copy_n(t->index.begin(), ni, index);
  std::copy_n(t->edges.begin(), ne, edges);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Graph_get);

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors) {
  PAMIR_ENTER("MPI_Graph_neighbors_count");
  Comm *c = PAMIR_COMM(comm);
  const Topology *t = PAMIR_TOPO(c, MPI_GRAPH);
  PAMIR_CHECK(c, nneighbors, MPI_ERR_ARG, "nneighbors is NULL");
  PAMIR_CHECK(c, rank >= 0 && rank < c->size, MPI_ERR_RANK, "rank %d is outside [0, %d)", rank, c->size);
  *nneighbors = t->index[size_t(rank)] - (rank ? t->index[size_t(rank - 1)] : 0);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Graph_neighbors_count);

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  PAMIR_ENTER("MPI_Graph_neighbors");
  Comm *c = PAMIR_COMM(comm);
  const Topology *t = PAMIR_TOPO(c, MPI_GRAPH);
  PAMIR_CHECK(c, rank >= 0 && rank < c->size, MPI_ERR_RANK, "rank %d is outside [0, %d)", rank, c->size);
  PAMIR_CHECK(c, maxneighbors >= 0, MPI_ERR_ARG, "maxneighbors %d is negative", maxneighbors);
  const int first = rank ? t->index[size_t(rank - 1)] : 0;
  const int n = std::min(maxneighbors, t->index[size_t(rank)] - first);
  PAMIR_CHECK(c, n == 0 || neighbors, MPI_ERR_ARG, "neighbors is NULL");
  std::copy_n(t->edges.begin() + first, n, neighbors);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Graph_neighbors);

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree, const int destinations[],
                                    const int destweights[], MPI_Info info, int reorder,
                                    MPI_Comm *comm_dist_graph) {
  PAMIR_ENTER("MPI_Dist_graph_create_adjacent");
  (void)reorder;
  Comm *c = PAMIR_COMM(comm_old);
  PAMIR_CHECK(c, !c->remote, MPI_ERR_COMM, "comm_old is an inter-communicator");
  PAMIR_CHECK(c, comm_dist_graph, MPI_ERR_ARG, "comm_dist_graph is NULL");
  PAMIR_CHECK(c, info == MPI_INFO_NULL || info_of(info), MPI_ERR_INFO, "info is not a valid info object");
  PAMIR_CHECK(c, indegree >= 0 && outdegree >= 0, MPI_ERR_ARG, "indegree %d or outdegree %d is negative",
              indegree, outdegree);
  PAMIR_CHECK(c, (indegree == 0 || sources) && (outdegree == 0 || destinations), MPI_ERR_ARG,
              "sources or destinations is NULL");
  const bool in_w = weights_given(sourceweights), out_w = weights_given(destweights);
  PAMIR_CHECK(c, (sourceweights == MPI_UNWEIGHTED) == (destweights == MPI_UNWEIGHTED), MPI_ERR_ARG,
              "MPI_UNWEIGHTED is given for one side only");
  PAMIR_CHECK(c,
              (indegree == 0 || in_w || sourceweights == MPI_UNWEIGHTED) &&
                  (outdegree == 0 || out_w || destweights == MPI_UNWEIGHTED),
              MPI_ERR_ARG, "weights are NULL or MPI_WEIGHTS_EMPTY with a nonzero degree");
  for (int i = 0; i < indegree; ++i)
    PAMIR_CHECK(c, sources[i] >= 0 && sources[i] < c->size, MPI_ERR_RANK, "sources[%d] = %d is not a rank", i,
                sources[i]);
  for (int i = 0; i < outdegree; ++i)
    PAMIR_CHECK(c, destinations[i] >= 0 && destinations[i] < c->size, MPI_ERR_RANK,
                "destinations[%d] = %d is not a rank", i, destinations[i]);
  auto t = std::make_shared<Topology>();
  t->kind = MPI_DIST_GRAPH;
  t->weighted = sourceweights != MPI_UNWEIGHTED;
  t->sources.assign(sources, sources + indegree);
  t->destinations.assign(destinations, destinations + outdegree);
  if (in_w) t->source_weights.assign(sourceweights, sourceweights + indegree);
  if (out_w) t->dest_weights.assign(destweights, destweights + outdegree);
  return topo_comm(c, fn_, c->size, std::move(t), comm_dist_graph);
}
PAMIR_ALIAS(Dist_graph_create_adjacent);

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info, int reorder,
                           MPI_Comm *comm_dist_graph) {
  PAMIR_ENTER("MPI_Dist_graph_create");
  (void)reorder;
  Comm *c = PAMIR_COMM(comm_old);
  PAMIR_CHECK(c, !c->remote, MPI_ERR_COMM, "comm_old is an inter-communicator");
  PAMIR_CHECK(c, comm_dist_graph, MPI_ERR_ARG, "comm_dist_graph is NULL");
  PAMIR_CHECK(c, info == MPI_INFO_NULL || info_of(info), MPI_ERR_INFO, "info is not a valid info object");
  PAMIR_CHECK(c, n >= 0, MPI_ERR_ARG, "n %d is negative", n);
  PAMIR_CHECK(c, n == 0 || (sources && degrees), MPI_ERR_ARG, "sources or degrees is NULL");
  int64_t nedges = 0;
  for (int i = 0; i < n; ++i) {
    PAMIR_CHECK(c, sources[i] >= 0 && sources[i] < c->size, MPI_ERR_RANK, "sources[%d] = %d is not a rank", i,
                sources[i]);
    PAMIR_CHECK(c, degrees[i] >= 0, MPI_ERR_ARG, "degrees[%d] = %d is negative", i, degrees[i]);
    nedges += degrees[i];
  }
  PAMIR_CHECK(c, nedges == 0 || destinations, MPI_ERR_ARG, "destinations is NULL");
  const bool weighted = weights != MPI_UNWEIGHTED;
  PAMIR_CHECK(c, nedges == 0 || weights_given(weights) || !weighted, MPI_ERR_ARG,
              "weights is NULL or MPI_WEIGHTS_EMPTY with edges to give");
  for (int64_t e = 0; e < nedges; ++e)
    PAMIR_CHECK(c, destinations[e] >= 0 && destinations[e] < c->size, MPI_ERR_RANK,
                "destinations[%lld] = %d is not a rank", (long long)e, destinations[e]);

  // Every edge s -> d (weight w) goes to s as an out-edge (d, w) and to d as an in-edge (s, w): one
  // all-to-all of counts and one of the (kind, peer, weight) triples over the new communicator, so the
  // old one's traffic is untouched. Each process keeps its edges in the order of the rank that named
  // them, then of that rank's list: the same order on every call, which the neighbourhood collectives
  // follow.
  MPI_Comm out = MPI_COMM_NULL;
  if (int rc = topo_comm(c, fn_, c->size, std::make_shared<Topology>(), &out)) return rc;
  Comm *nc = lookup<Comm>(out);
  const size_t p = size_t(c->size);
  std::vector<std::vector<int>> to(p);
  for (int i = 0, e = 0; i < n; ++i)
    for (int k = 0; k < degrees[i]; ++k, ++e) {
      const int w = weighted && weights_given(weights) ? weights[e] : 1;
      to[size_t(sources[i])].insert(to[size_t(sources[i])].end(), {1, destinations[e], w});
      to[size_t(destinations[e])].insert(to[size_t(destinations[e])].end(), {0, sources[i], w});
    }
  std::vector<int> scounts(p), rcounts(p), sdispls(p), rdispls(p), sbuf;
  for (size_t r = 0; r < p; ++r) {
    scounts[r] = int(to[r].size());
    sdispls[r] = int(sbuf.size());
    sbuf.insert(sbuf.end(), to[r].begin(), to[r].end());
  }
  int rc = PMPI_Alltoall(scounts.data(), 1, MPI_INT, rcounts.data(), 1, MPI_INT, out);
  std::vector<int> rbuf;
  if (rc == MPI_SUCCESS) {
    size_t total = 0;
    for (size_t r = 0; r < p; ++r) {
      rdispls[r] = int(total);
      total += size_t(rcounts[r]);
    }
    rbuf.resize(total);
    rc = PMPI_Alltoallv(sbuf.data(), scounts.data(), sdispls.data(), MPI_INT, rbuf.data(), rcounts.data(),
                        rdispls.data(), MPI_INT, out);
  }
  if (rc != MPI_SUCCESS) {
    comm_release(nc);
    return rc;
  }
  auto t = std::make_shared<Topology>();
  t->kind = MPI_DIST_GRAPH;
  t->weighted = weighted;
  for (size_t i = 0; i + 3 <= rbuf.size(); i += 3) {
    auto &peers = rbuf[i] ? t->destinations : t->sources;
    auto &ws = rbuf[i] ? t->dest_weights : t->source_weights;
    peers.push_back(rbuf[i + 1]);
    if (weighted) ws.push_back(rbuf[i + 2]);
  }
  nc->topo = std::move(t);
  *comm_dist_graph = out;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Dist_graph_create);

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted) {
  PAMIR_ENTER("MPI_Dist_graph_neighbors_count");
  Comm *c = PAMIR_COMM(comm);
  const Topology *t = PAMIR_TOPO(c, MPI_DIST_GRAPH);
  PAMIR_CHECK(c, indegree && outdegree && weighted, MPI_ERR_ARG, "indegree, outdegree or weighted is NULL");
  *indegree = int(t->sources.size());
  *outdegree = int(t->destinations.size());
  *weighted = t->weighted;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Dist_graph_neighbors_count);

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[]) {
  PAMIR_ENTER("MPI_Dist_graph_neighbors");
  Comm *c = PAMIR_COMM(comm);
  const Topology *t = PAMIR_TOPO(c, MPI_DIST_GRAPH);
  PAMIR_CHECK(c, maxindegree >= 0 && maxoutdegree >= 0, MPI_ERR_ARG,
              "maxindegree %d or maxoutdegree %d is negative", maxindegree, maxoutdegree);
  const size_t ni = std::min(size_t(maxindegree), t->sources.size()),
               no = std::min(size_t(maxoutdegree), t->destinations.size());
  PAMIR_CHECK(c, (ni == 0 || sources) && (no == 0 || destinations), MPI_ERR_ARG,
              "sources or destinations is NULL");
  std::copy_n(t->sources.begin(), ni, sources);
  std::copy_n(t->destinations.begin(), no, destinations);
  if (t->weighted) {
    if (ni && weights_given(sourceweights)) std::copy_n(t->source_weights.begin(), ni, sourceweights);
    if (no && weights_given(destweights)) std::copy_n(t->dest_weights.begin(), no, destweights);
  }
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Dist_graph_neighbors);

int PMPI_Topo_test(MPI_Comm comm, int *status) {
  PAMIR_ENTER("MPI_Topo_test");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, status, MPI_ERR_ARG, "status is NULL");
  *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Topo_test);
