// Context ids and the agreement that hands them out (docs/architecture.md, "Context ids"): every
// creation of a communicator, blocking or not, runs one Agreement among the processes that must find a
// pair of ids free on all of them, over a channel that reaches them.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/schedule.h"
#include "pami/match.h"

namespace pamir::mpi {

// What orders the agreements pending on one process. Every member of an agreement computes the same
// key, and two agreements that may be pending together on a process never have the same one: the
// parent's context id (the same on all its members) and, per kind, the parent's collective sequence
// number or the caller's tag.
enum class AgreeKind : uint8_t {
  collective = 0,    // collective over the parent (dup, idup, split, create): value = sequence number
  create_group = 1,  // MPI_Comm_create_group: value = the user's tag
  from_group = 2,    // MPI_Comm_create_from_group (no parent: kNoParent): value = a hash of the string tag
  // MPI_Intercomm_create(_from_groups): the parent id is the lower of the two local communicators'
  // (id, sequence number) pairs, the value the other id and both sequence numbers (inter_key).
  inter = 3,
};
constexpr uint16_t kNoParent = 0xFFFF;  // the parent id in the key of an agreement without a parent

// The pair no communicator takes: its collective context carries the agreements of the creations that
// have no parent (MPI_Comm_create_from_group), among any processes of the job.
constexpr uint16_t kParentlessCtx = uint16_t(kContextIds - 2);
uint64_t agreement_key(uint16_t parent_ctx, AgreeKind kind, uint64_t value);
// The key of an inter-communicator's creation from two groups' local communicators: the same on both
// groups, and different for any two creations pending on one process, since each takes a collective
// sequence number of that process's local communicator.
uint64_t inter_key(uint16_t ctx_a, uint64_t seq_a, uint16_t ctx_b, uint64_t seq_b);

// Rounds of a bitwise AND of the participants' free-pair bitmaps until a pair is free on every member:
// a nonblocking schedule (coll::NbSchedule), which a blocking creation runs to its end with
// agree_blocking(). The channel is the team and tag the schedule was made with: reduce() ANDs the words
// over it; the default is an allreduce over the whole team (a parent communicator, or the members of a
// group numbered by their parent's ranks).
class Agreement : public coll::NbSchedule {
 public:
  static constexpr int kNoFreeId = -1;  // the result when every member offered its bitmap and none was free
  static constexpr int kCheckFailed = -2;  // the members' `check` values differed

  // member: whether this process takes the id (processes left out of the new communicator still take
  // part in the reduction, contributing all ones). check: a value every member must give alike (0: none),
  // reduced with the bitmap as itself and its complement, so that a difference shows in the AND.
  Agreement(const coll::Team &team, int32_t tag, uint64_t key, bool member, uint64_t check = 0);
  ~Agreement() override;
  void run();

  uint16_t ctx = 0;  // the agreed pair's even id, once finished with 0

 protected:
  // Called once: 0 (ctx set), a pamir::Err value, or kNoFreeId.
  virtual void finished(int rc) = 0;
  virtual coll::Task reduce(coll::Sched &s, uint32_t *words, size_t n);

 private:
  enum class Round { agreed, again, none, failed, mismatch };
  void done(int result) final;
  void begin_round();
  Round end_round(bool failed);
  void leave_queue();
  static coll::Task rounds(coll::Sched &s, Agreement *self);

  const uint64_t key_;
  const bool member_;
  bool first_ = true;
  bool own_eager_ = false;
  bool own_mask_ = false;
  bool none_ = false;
  bool mismatch_ = false;
  const uint64_t check_;
  std::vector<uint32_t> words_;
};

// Runs `a` to its end on the calling thread (other schedules, and other threads, progress meanwhile);
// returns what finished() was given.
struct BlockingAgreement : Agreement {
  using Agreement::Agreement;
  int wait();

 private:
  void finished(int rc) override {
    rc_ = rc;
    over_ = true;
  }
  int rc_ = 0;
  bool over_ = false;
};

// Gives a pair back (the communicator's last reference went).
void context_id_free(uint16_t ctx);
// All pairs free again but those of MPI_COMM_WORLD and MPI_COMM_SELF (MPI_Init, MPI_Finalize).
void context_ids_reset();

}  // namespace pamir::mpi
