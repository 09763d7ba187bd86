// Communicators, groups and cached attributes.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "collectives/grid.h"
#include "collectives/mask.h"
#include "collectives/nodes.h"
#include "collectives/schedule.h"
#include "collectives/shm_slot.h"
#include "mpi/attr.h"
#include "mpi/errors.h"
#include "mpi/object.h"

namespace pamir::mpi {

struct Info;

struct Session;

struct Group : Object {
  static constexpr Kind kKind = Kind::group;
  std::vector<uint32_t> tasks;  // job rank (PAMI task) of each group rank
  int rank = MPI_UNDEFINED;     // this process's rank in the group
  Session *session = nullptr;   // MPI_Group_from_session_pset's session (not owned)
  int size() const { return int(tasks.size()); }
};

Group *group_make(std::vector<uint32_t> tasks);  // computes `rank`
MPI_Group group_handle(Group *g);
void group_release(Group *g);  // drops a reference
Group *group_empty();

// A virtual topology (MPI chapter 8), fixed at creation and shared by duplicates.
struct Topology {
  int kind = 0;  // MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH
  // Cartesian: the grid, and this process's coordinates.
  std::vector<int> dims, periods, coords;
  // Graph: MPI_Graph_create's arrays, as given.
  std::vector<int> index, edges;
  // Distributed graph: this process's in and out neighbours, and their weights when `weighted`.
  std::vector<int> sources, source_weights, destinations, dest_weights;
  bool weighted = false;
};

// The rank `disp` steps along dimension `dim` from this process in grid t (MPI_PROC_NULL off a
// non-periodic edge).
int cart_shifted(const Topology &t, size_t dim, int64_t disp);

struct BsendBuffer;        // mpi/bsend.cc
struct BlockingAgreement;  // mpi/context_id.h

struct Comm : Object {
  static constexpr Kind kKind = Kind::comm;
  Group *local = nullptr;
  Group *remote = nullptr;  // an inter-communicator's other group; nullptr for an intra-communicator
  int rank = 0;             // in the local group
  int size = 0;             // of the local group
  // Where point-to-point ranks point: the remote group of an inter-communicator, else the local group.
  const uint32_t *peer_tasks = nullptr;
  int peer_size = 0;
  // An inter-communicator's both groups as one team (coll::Team: the lower group first): job ranks,
  // and where this process's group and the other start in it.
  std::vector<uint32_t> both;
  int local_base = 0;
  int remote_base = 0;
  // Point-to-point context id (even); the collective context is ctx + 1. An inter-communicator's is
  // free on both its groups, and its collectives' messages between and inside the groups share it.
  uint16_t ctx = 0;
  Errhandler *errhandler = nullptr;
  std::map<int, Attr> attrs;                               // keyval id -> value, in creation order of keyvals
  std::vector<std::pair<std::string, std::string>> hints;  // MPI_Comm_set_info
  std::string name;
  std::shared_ptr<const Topology> topo;  // null: none (MPI_Topo_test gives MPI_UNDEFINED)
  BsendBuffer *bsend = nullptr;          // MPI_Comm_attach_buffer's (owned; bsend_comm_release)
  Session *session = nullptr;            // made from a session's group (MPI_Comm_create_from_group)
  // Per-communicator state of the collectives: the sequence number of the next call (its messages'
  // tag), the partial mask of each collective (seed 002: what does not change per call, computed once
  // at creation), and the algorithm an info key pamir_coll_<name> forces for it (-1: none).
  uint64_t coll_seq = 0;
  uint32_t coll_mask[size_t(coll::Collective::count_)] = {};
  int16_t coll_forced[size_t(coll::Collective::count_)] = {};
  // The last choice of each collective: a call with the same mask, under the same forced algorithm,
  // takes it again without selecting (a dup or set_info changes coll_forced, never the entry's key).
  struct CollChoice {
    uint32_t mask = ~0u;  // no call has every bit
    int16_t forced = -1;
    int16_t algorithm = -1;
  };
  CollChoice coll_choice[size_t(coll::Collective::count_)];
  // With the mask bit kShmSlot: each rank's slot in the node's shared collective areas.
  std::vector<coll::ShmSlot *> coll_slots;
  // Where the ranks live, for the hierarchical algorithms (built when the launcher gave every rank's node).
  coll::NodeLayout coll_nodes;
  coll::GridLayout coll_grid;

  uint16_t coll_ctx() const { return uint16_t(ctx + 1); }
  // The job rank of point-to-point rank r (in the remote group of an inter-communicator).
  uint32_t task_of(int r) const { return peer_tasks[r]; }
  uint32_t local_task(int r) const { return local->tasks[size_t(r)]; }
  // What the collectives see of the communicator: its group, or both groups of an inter-communicator.
  coll::Team team() const {
    if (!remote) {
      coll::Team t{rank, size, coll_ctx(), local->tasks.data(), coll_slots.data(), coll_nodes.view()};
      t.grid = coll_grid.view();
      return t;
    }
    coll::Team t{local_base + rank, int(both.size()), coll_ctx(), both.data()};
    t.local_size = size;
    t.local_base = local_base;
    t.remote_base = remote_base;
    return t;
  }
};

// Computes the partial masks of c's collectives (size, node placement) and clears forced algorithms.
void comm_coll_init(Comm *c);
// Into out[collective]: the algorithms that hints (pamir_coll_<collective>=<algorithm>|auto) force, -1
// for none. An unknown collective (MPI_ERR_INFO_KEY) or algorithm (MPI_ERR_INFO_VALUE) is raised on c
// and leaves out unchanged.
int comm_coll_hints(Comm *c, const std::vector<std::pair<std::string, std::string>> &hints, int16_t *out,
                    const char *fn);

Comm *comm_world();
Comm *comm_self();
// The handle of a communicator: the predefined ones' standard values, MPI_COMM_NULL for nullptr.
MPI_Comm comm_handle(Comm *c);

// Builds MPI_COMM_WORLD and MPI_COMM_SELF at MPI_Init; frees user objects at MPI_Finalize.
void comms_init();
void comms_finalize();

// A new communicator over `group` (a subset of parent's group) with a fresh context id; collective
// over `parent`. Members outside `group` pass nullptr and get MPI_COMM_NULL.
// On an inter-communicator parent, `group` is this process's side of the new one and `remote` the
// other side (nullptr or empty: MPI_COMM_NULL).
int comm_create_from(Comm *parent, Group *group, Comm **out, const char *fn, Group *remote = nullptr);
// A communicator over g (this process a member) with context ctx and error handler eh, with no parent
// (MPI_Comm_create_from_group).
Comm *comm_from_group(Group *g, uint16_t ctx, Errhandler *eh);
// MPI_Comm_split's work (color MPI_UNDEFINED: *out is nullptr); errors are raised on c.
int comm_split(Comm *c, const char *fn, int color, int key, Comm **out);

// An inter-communicator over the disjoint groups local (this process a member) and remote, with
// context ctx and error handler eh. Takes its own references.
Comm *intercomm_make(Group *local, Group *remote, uint16_t ctx, Errhandler *eh);
// MPI_Comm_create on an inter-communicator: gives each group the group the other passed (*remote, a
// new reference; nullptr when it is empty). Collective over both groups; errors are raised on c.
int intercomm_swap_groups(Comm *c, Group *mine, Group **remote, const char *fn);
// A failed step of a creation's protocol (a pamir::Err value), raised on c.
int creation_failed(Comm *c, const char *fn, int err);
// Runs a creation's context-id agreement to its end: the id in out, or the failure raised on parent.
int creation_agree(Comm *parent, const char *fn, BlockingAgreement &a, uint16_t &out);
// A duplicate of parent's group with context ctx (no hints, attributes or forced algorithms yet).
Comm *comm_dup_of(Comm *parent, uint16_t ctx);
void comm_release(Comm *c);

}  // namespace pamir::mpi
