// MPI_Comm_idup and MPI_Comm_idup_with_info: the context-id agreement (mpi/context_id.h) left to run as
// a nonblocking schedule on the parent's collective context (under the parent's next collective sequence
// number like any collective), then, when it completes inside whatever MPI
// call progresses it, the new communicator with the parent's (or the info's) hints and copied
// attributes, written to *newcomm.
#include <new>

#include "collectives/algorithms/algorithms.h"
#include "collectives/schedule.h"
#include "mpi/check.h"
#include "mpi/context_id.h"
#include "mpi/info.h"
#include "mpi/request.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

struct Idup final : Agreement {
  Idup(Comm *p, uint64_t seq)
      : Agreement(p->team(), coll::seq_tag(seq), agreement_key(p->ctx, AgreeKind::collective, seq), true),
        parent(p) {
    if (!p->predefined) ++p->refs;  // MPI_Comm_free of the parent may come before completion
  }
  ~Idup() override { comm_release(parent); }

  void finished(int result) override {
    pamir::Request *r = req;
    int rc = result == kNoFreeId ? int(Err::intern) : result;
    if (!rc) {
      Comm *n = comm_dup_of(parent, ctx);
      n->hints = hints;
      n->topo = parent->topo;
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
  pamir::Request *req = nullptr;
};

int idup(const char *fn_, MPI_Comm comm, const Info *info, MPI_Comm *newcomm, MPI_Request *request) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, newcomm, MPI_ERR_ARG, "newcomm is NULL");
  PAMIR_CHECK(c, request, MPI_ERR_ARG, "request is NULL");
  const auto &hints = info ? info->items : c->hints;
  int16_t forced[size_t(coll::Collective::count_)];
  if (int rc = comm_coll_hints(c, hints, forced, fn_)) return rc;
  auto *d = new (std::nothrow) Idup(c, c->coll_seq++);
  PAMIR_CHECK(c, d, MPI_ERR_NO_MEM, "no memory for the state of MPI_Comm_idup");
  d->out = newcomm;
  d->hints = hints;
  std::copy(std::begin(forced), std::end(forced), d->forced);
  pamir::Request *r = request_alloc(ReqKind::schedule);
  r->mpi_comm = c;
  d->req = r;
  *request = reinterpret_cast<MPI_Request>(r);
  d->run();
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
