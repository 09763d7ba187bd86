// The neighbourhood collectives (MPI 5.0 §8.6): MPI_Neighbor_allgather, _allgatherv, _alltoall,
// _alltoallv and _alltoallw, blocking, nonblocking and persistent, with their large-count forms. Each
// rank's in- and out-neighbours come from its communicator's topology; the parts become blocks, and the
// call goes through the same selection by bit mask, staging, nonblocking schedules and recorded replay
// as the other collectives (mpi/coll.cc, collectives/algorithms/neighbor.cc).
//
// Order of neighbours: a Cartesian grid's are, for each dimension, the rank at -1 then the one at +1
// (MPI_PROC_NULL off a non-periodic edge), for in- and out-neighbours alike; a graph's are its edges, a
// distributed graph's its sources and destinations. In a periodic dimension of size 1 or 2 one rank is
// both neighbours of a dimension, so the message a rank sends towards -1 must land in the peer's part
// for +1: the receives of each dimension are posted +1 first, and in-order matching pairs them (the
// peer sent towards -1 first).
#include "collectives/mask.h"
#include "mpi/check.h"
#include "mpi/coll_launch.h"
#include "mpi/info.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

using coll::Collective;

// One side of a call: one count and type for every part (allgather, alltoall; `whole`: every part is
// the whole buffer, allgather's send), or counts and displacements per part (v: in extents of the type;
// w: in bytes, with a type per part).
template <typename CountT, typename DisplT>
struct Side {
  const void *buf;
  int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  const CountT *counts = nullptr;
  const DisplT *displs = nullptr;
  const MPI_Datatype *types = nullptr;
  bool whole = false;
};

enum class Mode { blocking, nonblocking, persistent };

int neighbors_of(Comm *c, const char *fn_, NeighborCall &n) {
  const Topology *t = c->topo.get();
  PAMIR_CHECK(c, t, MPI_ERR_TOPOLOGY,
              "the communicator has no topology (a neighbourhood collective needs one)");
  switch (t->kind) {
    case MPI_CART:
      for (size_t d = 0; d < t->dims.size(); ++d) {
        const int neg = cart_shifted(*t, d, -1), pos = cart_shifted(*t, d, 1);
        n.in_peers.insert(n.in_peers.end(), {neg, pos});
        n.recv_order.insert(n.recv_order.end(), {int(2 * d + 1), int(2 * d)});
      }
      n.out_peers = n.in_peers;
      break;
    case MPI_GRAPH: {
      const int first = c->rank ? t->index[size_t(c->rank - 1)] : 0;
      n.in_peers.assign(t->edges.begin() + first, t->edges.begin() + t->index[size_t(c->rank)]);
      n.out_peers = n.in_peers;
      break;
    }
    default:
      n.in_peers = t->sources;
      n.out_peers = t->destinations;
      break;
  }
  return MPI_SUCCESS;
}

// The n parts of one side as blocks; `held` gets the datatypes, `part_bytes` one part's bytes when every
// part has the same (what decides the size class).
template <typename CountT, typename DisplT>
int side_blocks(Comm *c, const char *fn_, const Side<CountT, DisplT> &s, int n, std::vector<coll::Block> &out,
                std::vector<Datatype *> &held, uint64_t &part_bytes, const char *what) {
  PAMIR_CHECK(c, s.buf != MPI_IN_PLACE, MPI_ERR_BUFFER,
              "MPI_IN_PLACE is not a %s buffer of a neighbourhood collective", what);
  if (s.types) {
    std::vector<Datatype *> ts;
    if (int rc = check_types(c, fn_, s.types, n, ts, what)) return rc;
    held.insert(held.end(), ts.begin(), ts.end());
    return make_blocks(c, fn_, s.buf, s.counts, s.displs, nullptr, ts.data(), n, out, what);
  }
  Datatype *t = PAMIR_TYPE(c, s.type);
  held.push_back(t);
  if (s.counts) return make_blocks(c, fn_, s.buf, s.counts, s.displs, t, nullptr, n, out, what);
  PAMIR_CHECK(c, s.count >= 0, MPI_ERR_COUNT, "negative %s count %lld", what, (long long)s.count);
  std::vector<int64_t> counts(size_t(n), s.count), displs(size_t(n), 0);
  if (!s.whole)
    for (int i = 0; i < n; ++i) displs[size_t(i)] = int64_t(i) * s.count;
  part_bytes = uint64_t(t->size) * uint64_t(s.count);
  return make_blocks(c, fn_, s.buf, counts.data(), displs.data(), t, nullptr, n, out, what);
}

template <typename CountT, typename DisplT>
int neighbor(const char *fn_, Collective k, MPI_Comm comm, const Side<CountT, DisplT> &snd,
             const Side<CountT, DisplT> &rcv, Mode mode, MPI_Request *request, MPI_Info info) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, mode == Mode::blocking || request, MPI_ERR_ARG, "request is NULL");
  PAMIR_CHECK(c, mode != Mode::persistent || info == MPI_INFO_NULL || info_of(info), MPI_ERR_INFO,
              "info is not a valid info object");
  NeighborCall n;
  if (int rc = neighbors_of(c, fn_, n)) return rc;
  std::vector<Datatype *> held;
  uint64_t sbytes = 0, rbytes = 0;
  if (int rc = side_blocks(c, fn_, snd, int(n.out_peers.size()), n.sblocks, held, sbytes, "send")) return rc;
  if (int rc = side_blocks(c, fn_, rcv, int(n.in_peers.size()), n.rblocks, held, rbytes, "receive"))
    return rc;
  return launch_neighbor(c, fn_, k, std::move(n), sbytes, mode == Mode::blocking ? nullptr : request,
                         mode == Mode::persistent, held);
}

}  // namespace

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ineighbor_allgather");
  return neighbor(fn_, Collective::neighbor_allgather, comm,
                  Side<int, int>{sendbuf, int64_t(sendcount), sendtype, nullptr, nullptr, nullptr, true},
                  Side<int, int>{recvbuf, int64_t(recvcount), recvtype}, Mode::nonblocking, request,
                  MPI_INFO_NULL);
}
PAMIR_ALIAS(Ineighbor_allgather);

int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request *request) {
  PAMIR_ENTER("MPI_Ineighbor_allgather_c");
  return neighbor(
      fn_, Collective::neighbor_allgather, comm,
      Side<MPI_Count, int>{sendbuf, int64_t(sendcount), sendtype, nullptr, nullptr, nullptr, true},
      Side<MPI_Count, int>{recvbuf, int64_t(recvcount), recvtype}, Mode::nonblocking, request, MPI_INFO_NULL);
}
PAMIR_ALIAS(Ineighbor_allgather_c);

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                              const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ineighbor_allgatherv");
  return neighbor(fn_, Collective::neighbor_allgatherv, comm,
                  Side<int, int>{sendbuf, int64_t(sendcount), sendtype, nullptr, nullptr, nullptr, true},
                  Side<int, int>{recvbuf, 0, recvtype, recvcounts, displs}, Mode::nonblocking, request,
                  MPI_INFO_NULL);
}
PAMIR_ALIAS(Ineighbor_allgatherv);

int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ineighbor_allgatherv_c");
  return neighbor(
      fn_, Collective::neighbor_allgatherv, comm,
      Side<MPI_Count, MPI_Aint>{sendbuf, int64_t(sendcount), sendtype, nullptr, nullptr, nullptr, true},
      Side<MPI_Count, MPI_Aint>{recvbuf, 0, recvtype, recvcounts, displs}, Mode::nonblocking, request,
      MPI_INFO_NULL);
}
PAMIR_ALIAS(Ineighbor_allgatherv_c);

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ineighbor_alltoall");
  return neighbor(
      fn_, Collective::neighbor_alltoall, comm, Side<int, int>{sendbuf, int64_t(sendcount), sendtype},
      Side<int, int>{recvbuf, int64_t(recvcount), recvtype}, Mode::nonblocking, request, MPI_INFO_NULL);
}
PAMIR_ALIAS(Ineighbor_alltoall);

int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request *request) {
  PAMIR_ENTER("MPI_Ineighbor_alltoall_c");
  return neighbor(
      fn_, Collective::neighbor_alltoall, comm, Side<MPI_Count, int>{sendbuf, int64_t(sendcount), sendtype},
      Side<MPI_Count, int>{recvbuf, int64_t(recvcount), recvtype}, Mode::nonblocking, request, MPI_INFO_NULL);
}
PAMIR_ALIAS(Ineighbor_alltoall_c);

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request) {
  PAMIR_ENTER("MPI_Ineighbor_alltoallv");
  return neighbor(
      fn_, Collective::neighbor_alltoallv, comm, Side<int, int>{sendbuf, 0, sendtype, sendcounts, sdispls},
      Side<int, int>{recvbuf, 0, recvtype, recvcounts, rdispls}, Mode::nonblocking, request, MPI_INFO_NULL);
}
PAMIR_ALIAS(Ineighbor_alltoallv);

int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request *request) {
  PAMIR_ENTER("MPI_Ineighbor_alltoallv_c");
  return neighbor(fn_, Collective::neighbor_alltoallv, comm,
                  Side<MPI_Count, MPI_Aint>{sendbuf, 0, sendtype, sendcounts, sdispls},
                  Side<MPI_Count, MPI_Aint>{recvbuf, 0, recvtype, recvcounts, rdispls}, Mode::nonblocking,
                  request, MPI_INFO_NULL);
}
PAMIR_ALIAS(Ineighbor_alltoallv_c);

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request) {
  PAMIR_ENTER("MPI_Ineighbor_alltoallw");
  return neighbor(fn_, Collective::neighbor_alltoallw, comm,
                  Side<int, MPI_Aint>{sendbuf, 0, MPI_DATATYPE_NULL, sendcounts, sdispls, sendtypes},
                  Side<int, MPI_Aint>{recvbuf, 0, MPI_DATATYPE_NULL, recvcounts, rdispls, recvtypes},
                  Mode::nonblocking, request, MPI_INFO_NULL);
}
PAMIR_ALIAS(Ineighbor_alltoallw);

int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                               const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                               MPI_Request *request) {
  PAMIR_ENTER("MPI_Ineighbor_alltoallw_c");
  return neighbor(fn_, Collective::neighbor_alltoallw, comm,
                  Side<MPI_Count, MPI_Aint>{sendbuf, 0, MPI_DATATYPE_NULL, sendcounts, sdispls, sendtypes},
                  Side<MPI_Count, MPI_Aint>{recvbuf, 0, MPI_DATATYPE_NULL, recvcounts, rdispls, recvtypes},
                  Mode::nonblocking, request, MPI_INFO_NULL);
}
PAMIR_ALIAS(Ineighbor_alltoallw_c);

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Neighbor_allgather");
  return neighbor(fn_, Collective::neighbor_allgather, comm,
                  Side<int, int>{sendbuf, int64_t(sendcount), sendtype, nullptr, nullptr, nullptr, true},
                  Side<int, int>{recvbuf, int64_t(recvcount), recvtype}, Mode::blocking, nullptr,
                  MPI_INFO_NULL);
}
PAMIR_ALIAS(Neighbor_allgather);

int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Neighbor_allgather_c");
  return neighbor(
      fn_, Collective::neighbor_allgather, comm,
      Side<MPI_Count, int>{sendbuf, int64_t(sendcount), sendtype, nullptr, nullptr, nullptr, true},
      Side<MPI_Count, int>{recvbuf, int64_t(recvcount), recvtype}, Mode::blocking, nullptr, MPI_INFO_NULL);
}
PAMIR_ALIAS(Neighbor_allgather_c);

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request) {
  PAMIR_ENTER("MPI_Neighbor_allgather_init");
  return neighbor(fn_, Collective::neighbor_allgather, comm,
                  Side<int, int>{sendbuf, int64_t(sendcount), sendtype, nullptr, nullptr, nullptr, true},
                  Side<int, int>{recvbuf, int64_t(recvcount), recvtype}, Mode::persistent, request, info);
}
PAMIR_ALIAS(Neighbor_allgather_init);

int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Neighbor_allgather_init_c");
  return neighbor(
      fn_, Collective::neighbor_allgather, comm,
      Side<MPI_Count, int>{sendbuf, int64_t(sendcount), sendtype, nullptr, nullptr, nullptr, true},
      Side<MPI_Count, int>{recvbuf, int64_t(recvcount), recvtype}, Mode::persistent, request, info);
}
PAMIR_ALIAS(Neighbor_allgather_init_c);

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                             MPI_Comm comm) {
  PAMIR_ENTER("MPI_Neighbor_allgatherv");
  return neighbor(fn_, Collective::neighbor_allgatherv, comm,
                  Side<int, int>{sendbuf, int64_t(sendcount), sendtype, nullptr, nullptr, nullptr, true},
                  Side<int, int>{recvbuf, 0, recvtype, recvcounts, displs}, Mode::blocking, nullptr,
                  MPI_INFO_NULL);
}
PAMIR_ALIAS(Neighbor_allgatherv);

int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                               MPI_Comm comm) {
  PAMIR_ENTER("MPI_Neighbor_allgatherv_c");
  return neighbor(
      fn_, Collective::neighbor_allgatherv, comm,
      Side<MPI_Count, MPI_Aint>{sendbuf, int64_t(sendcount), sendtype, nullptr, nullptr, nullptr, true},
      Side<MPI_Count, MPI_Aint>{recvbuf, 0, recvtype, recvcounts, displs}, Mode::blocking, nullptr,
      MPI_INFO_NULL);
}
PAMIR_ALIAS(Neighbor_allgatherv_c);

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Neighbor_allgatherv_init");
  return neighbor(fn_, Collective::neighbor_allgatherv, comm,
                  Side<int, int>{sendbuf, int64_t(sendcount), sendtype, nullptr, nullptr, nullptr, true},
                  Side<int, int>{recvbuf, 0, recvtype, recvcounts, displs}, Mode::persistent, request, info);
}
PAMIR_ALIAS(Neighbor_allgatherv_init);

int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request) {
  PAMIR_ENTER("MPI_Neighbor_allgatherv_init_c");
  return neighbor(
      fn_, Collective::neighbor_allgatherv, comm,
      Side<MPI_Count, MPI_Aint>{sendbuf, int64_t(sendcount), sendtype, nullptr, nullptr, nullptr, true},
      Side<MPI_Count, MPI_Aint>{recvbuf, 0, recvtype, recvcounts, displs}, Mode::persistent, request, info);
}
PAMIR_ALIAS(Neighbor_allgatherv_init_c);

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Neighbor_alltoall");
  return neighbor(
      fn_, Collective::neighbor_alltoall, comm, Side<int, int>{sendbuf, int64_t(sendcount), sendtype},
      Side<int, int>{recvbuf, int64_t(recvcount), recvtype}, Mode::blocking, nullptr, MPI_INFO_NULL);
}
PAMIR_ALIAS(Neighbor_alltoall);

int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Neighbor_alltoall_c");
  return neighbor(
      fn_, Collective::neighbor_alltoall, comm, Side<MPI_Count, int>{sendbuf, int64_t(sendcount), sendtype},
      Side<MPI_Count, int>{recvbuf, int64_t(recvcount), recvtype}, Mode::blocking, nullptr, MPI_INFO_NULL);
}
PAMIR_ALIAS(Neighbor_alltoall_c);

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                MPI_Request *request) {
  PAMIR_ENTER("MPI_Neighbor_alltoall_init");
  return neighbor(fn_, Collective::neighbor_alltoall, comm,
                  Side<int, int>{sendbuf, int64_t(sendcount), sendtype},
                  Side<int, int>{recvbuf, int64_t(recvcount), recvtype}, Mode::persistent, request, info);
}
PAMIR_ALIAS(Neighbor_alltoall_init);

int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Neighbor_alltoall_init_c");
  return neighbor(
      fn_, Collective::neighbor_alltoall, comm, Side<MPI_Count, int>{sendbuf, int64_t(sendcount), sendtype},
      Side<MPI_Count, int>{recvbuf, int64_t(recvcount), recvtype}, Mode::persistent, request, info);
}
PAMIR_ALIAS(Neighbor_alltoall_init_c);

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                            MPI_Datatype recvtype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Neighbor_alltoallv");
  return neighbor(
      fn_, Collective::neighbor_alltoallv, comm, Side<int, int>{sendbuf, 0, sendtype, sendcounts, sdispls},
      Side<int, int>{recvbuf, 0, recvtype, recvcounts, rdispls}, Mode::blocking, nullptr, MPI_INFO_NULL);
}
PAMIR_ALIAS(Neighbor_alltoallv);

int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Neighbor_alltoallv_c");
  return neighbor(fn_, Collective::neighbor_alltoallv, comm,
                  Side<MPI_Count, MPI_Aint>{sendbuf, 0, sendtype, sendcounts, sdispls},
                  Side<MPI_Count, MPI_Aint>{recvbuf, 0, recvtype, recvcounts, rdispls}, Mode::blocking,
                  nullptr, MPI_INFO_NULL);
}
PAMIR_ALIAS(Neighbor_alltoallv_c);

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request) {
  PAMIR_ENTER("MPI_Neighbor_alltoallv_init");
  return neighbor(fn_, Collective::neighbor_alltoallv, comm,
                  Side<int, int>{sendbuf, 0, sendtype, sendcounts, sdispls},
                  Side<int, int>{recvbuf, 0, recvtype, recvcounts, rdispls}, Mode::persistent, request, info);
}
PAMIR_ALIAS(Neighbor_alltoallv_init);

int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request) {
  PAMIR_ENTER("MPI_Neighbor_alltoallv_init_c");
  return neighbor(fn_, Collective::neighbor_alltoallv, comm,
                  Side<MPI_Count, MPI_Aint>{sendbuf, 0, sendtype, sendcounts, sdispls},
                  Side<MPI_Count, MPI_Aint>{recvbuf, 0, recvtype, recvcounts, rdispls}, Mode::persistent,
                  request, info);
}
PAMIR_ALIAS(Neighbor_alltoallv_init_c);

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  PAMIR_ENTER("MPI_Neighbor_alltoallw");
  return neighbor(fn_, Collective::neighbor_alltoallw, comm,
                  Side<int, MPI_Aint>{sendbuf, 0, MPI_DATATYPE_NULL, sendcounts, sdispls, sendtypes},
                  Side<int, MPI_Aint>{recvbuf, 0, MPI_DATATYPE_NULL, recvcounts, rdispls, recvtypes},
                  Mode::blocking, nullptr, MPI_INFO_NULL);
}
PAMIR_ALIAS(Neighbor_alltoallw);

int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  PAMIR_ENTER("MPI_Neighbor_alltoallw_c");
  return neighbor(fn_, Collective::neighbor_alltoallw, comm,
                  Side<MPI_Count, MPI_Aint>{sendbuf, 0, MPI_DATATYPE_NULL, sendcounts, sdispls, sendtypes},
                  Side<MPI_Count, MPI_Aint>{recvbuf, 0, MPI_DATATYPE_NULL, recvcounts, rdispls, recvtypes},
                  Mode::blocking, nullptr, MPI_INFO_NULL);
}
PAMIR_ALIAS(Neighbor_alltoallw_c);

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                 const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Neighbor_alltoallw_init");
  return neighbor(fn_, Collective::neighbor_alltoallw, comm,
                  Side<int, MPI_Aint>{sendbuf, 0, MPI_DATATYPE_NULL, sendcounts, sdispls, sendtypes},
                  Side<int, MPI_Aint>{recvbuf, 0, MPI_DATATYPE_NULL, recvcounts, rdispls, recvtypes},
                  Mode::persistent, request, info);
}
PAMIR_ALIAS(Neighbor_alltoallw_init);

int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request) {
  PAMIR_ENTER("MPI_Neighbor_alltoallw_init_c");
  return neighbor(fn_, Collective::neighbor_alltoallw, comm,
                  Side<MPI_Count, MPI_Aint>{sendbuf, 0, MPI_DATATYPE_NULL, sendcounts, sdispls, sendtypes},
                  Side<MPI_Count, MPI_Aint>{recvbuf, 0, MPI_DATATYPE_NULL, recvcounts, rdispls, recvtypes},
                  Mode::persistent, request, info);
}
PAMIR_ALIAS(Neighbor_alltoallw_init_c);
