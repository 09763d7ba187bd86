// MPI_Comm_idup and MPI_Comm_idup_with_info: the context-id agreement of MPI_Comm_dup as a nonblocking
// schedule on the parent's collective context (rounds of a bitwise-AND allreduce, under the parent's
// next collective sequence number like any collective), then, when it completes inside whatever MPI
// call progresses it, the new communicator with the parent's (or the info's) hints and copied
// attributes, written to *newcomm.
#include <new>

#include "collectives/algorithms/algorithms.h"
#include "collectives/schedule.h"
#include "mpi/check.h"
#include "mpi/info.h"
#include "mpi/request.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

struct Idup final : coll::NbSchedule {
  Idup(Comm *p, const coll::Team &t, int32_t tag) : NbSchedule(t, tag), parent(p) {
    if (!p->predefined) ++p->refs;  // MPI_Comm_free of the parent may come before completion
    may_offload = false;            // its end runs the attributes' copy callbacks, the application's code
  }
  ~Idup() override { comm_release(parent); }

  // Rounds until an id is agreed (or none is free): the result is 0, or a pamir::Err value.
  static coll::Task agree(coll::Sched &s, Idup *self) {
    const coll::Reduction band =
        coll::builtin_reduction(coll::reduce_fn(coll::OpKind::band, coll::ElemType::u32), 4);
    for (;;) {
      self->round.begin();
      coll::Args a;
      a.recvbuf = self->round.words.data();
      a.count = self->round.words.size();
      a.op = band;
      a.in_place = true;
      const int e = co_await coll::allreduce_recursive_doubling(s, a);
      const int r = self->round.end(e != 0, self->ctx);
      if (r == 0) co_return 0;
      if (r < 0) co_return e ? e : int(Err::intern);
    }
  }

  void done(int result) override {
    pamir::Request *r = req;
    int rc = result;
    if (!rc) {
      Comm *n = comm_dup_of(parent, ctx);
      n->hints = hints;
      std::copy(std::begin(forced), std::end(forced), n->coll_forced);
      if (attrs_copy(parent, n, "MPI_Comm_idup") != MPI_SUCCESS) {
        comm_release(n);
        rc = int(Err::intern);
      } else {
        *out = comm_handle(n);
      }
    }
    r->status.error = Err(rc);
    delete this;
    request_complete(r);
  }

  Comm *parent;
  MPI_Comm *out = nullptr;
  std::vector<std::pair<std::string, std::string>> hints;
  int16_t forced[size_t(coll::Collective::count_)] = {};
  ContextRound round;
  uint16_t ctx = 0;
  pamir::Request *req = nullptr;
};

int idup(const char *fn_, MPI_Comm comm, const Info *info, MPI_Comm *newcomm, MPI_Request *request) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, newcomm, MPI_ERR_ARG, "newcomm is NULL");
  PAMIR_CHECK(c, request, MPI_ERR_ARG, "request is NULL");
  PAMIR_CHECK(c, !c->remote, MPI_ERR_COMM, "MPI_Comm_idup of an inter-communicator is not implemented yet");
  const auto &hints = info ? info->items : c->hints;
  int16_t forced[size_t(coll::Collective::count_)];
  if (int rc = comm_coll_hints(c, hints, forced, fn_)) return rc;
  auto *d = new (std::nothrow) Idup(c, coll::Team{c->rank, c->size, c->coll_ctx(), c->local->tasks.data()},
                                    coll::seq_tag(c->coll_seq++));
  PAMIR_CHECK(c, d, MPI_ERR_NO_MEM, "no memory for the state of MPI_Comm_idup");
  d->out = newcomm;
  d->hints = hints;
  std::copy(std::begin(forced), std::end(forced), d->forced);
  pamir::Request *r = request_alloc(ReqKind::schedule);
  r->mpi_comm = c;
  d->req = r;
  *request = reinterpret_cast<MPI_Request>(r);
  d->start(Idup::agree(d->sched, d));
  return MPI_SUCCESS;
}

}  // namespace

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Comm_idup");
  return idup(fn_, comm, nullptr, newcomm, request);
}
PAMIR_ALIAS(Comm_idup);

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Comm_idup_with_info");
  Comm *c = PAMIR_COMM(comm);
  const Info *i = info_of(info);
  PAMIR_CHECK(c, i, MPI_ERR_INFO, "info is not a valid info object");
  return idup(fn_, comm, i, newcomm, request);
}
PAMIR_ALIAS(Comm_idup_with_info);
