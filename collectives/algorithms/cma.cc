// Reduce and allreduce of large vectors among the ranks of one node, reduced straight out of each
// other's buffers with cross-memory reads (process_vm_readv through the shm device), with no copy into
// shared memory and no message: a reduce-scatter in which every rank reduces its own block of the
// vector, then an allgather (or, for reduce, a write of each block into the root's buffer).
//
//   1. Every rank publishes in its slot cell where its contribution and its receive buffer are, and
//      whether it can reach every member's memory (if one cannot, all take the point-to-point
//      algorithm instead, having decided alike from the same publications).
//   2. Rank r reduces block r: for each piece of at most kPiece bytes, it reads the first rank's piece
//      straight into the destination (its receive buffer, or scratch that a reduce's non-root then
//      writes into the root's buffer), and each further rank's piece into scratch that stays in
//      cache, and combines it there. Its own piece is combined from where it lies. Then it publishes
//      that block r is done.
//   3. allreduce: every rank writes its finished block into every other rank's receive buffer, then
//      says so; reduce: the non-roots write theirs into the root's. A rank that has heard "done" from
//      every other has every block, and nobody reads its buffers any more (they finished reading
//      before they said so), so it returns without waiting for its own publications' readers.
//   4. A reduce's non-root returns once every rank has acknowledged its first publication.
//
// Only rank q reads block q of anyone's buffer in step 2, and it writes block q of the root's or its own
// buffer only after reading it, so MPI_IN_PLACE needs no copy. The order of combination is the rank
// order (x0 op (x1 op (... op x(p-1)))) when the operation is not commutative; otherwise the first
// rank read is one that saves a copy. Per rank of an allreduce: (p-1)/p * n bytes read from the others
// and as many written to them, in 2 * (p-1) cross-memory copies; two publications, two waits on all.
#include <cstdlib>
#include <cstring>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/shm_cells.h"
#include "pami/context.h"
#include "pami/request.h"

namespace pamir::coll {

using namespace cells;  // NOLINT(google-build-using-namespace): the cells are this file's vocabulary

namespace {

// Bytes combined per read: the piece read stays in L2 until it is combined, and each
// process_vm_readv (which pins its pages anew) moves enough to hide its fixed cost.
constexpr size_t kPiece = 256 * 1024;

// What a rank publishes first.
struct Where {
  uint64_t src;    // its contribution: the send buffer, or the receive buffer in place
  uint64_t dst;    // its receive buffer (a reduce's non-root: none)
  uint32_t reach;  // 1: it can read and write the memory of every member
};
static_assert(sizeof(Where) <= kShmCellData);

// Two pieces of scratch for the whole process: the algorithm needs kExclusive, so one call at a time
// uses them. Allocated at the first call and kept.
unsigned char *scratch_pieces() {
  static unsigned char *p = static_cast<unsigned char *>(std::aligned_alloc(64, 2 * kPiece));
  return p;
}

// A reduce's blocks: a non-root reads the root's part of its block, combines it and writes it into the
// root's buffer, two cross-memory copies where the root makes one, so the root takes the larger block:
// weight kRootWeight against kOtherWeight for each other rank. Block r starts at element
// weighted_start(count, p, root, r), in rank order.
// 5 to 2 measured best of 2, 4, 5, 6 and 8 against 2 (2 ranks, 16 KiB to 1 MiB, osu_reduce).
constexpr size_t kRootWeight = 5, kOtherWeight = 2;
size_t weighted_start(size_t count, int p, int root, int r) {
  const size_t total = kRootWeight + kOtherWeight * size_t(p - 1);
  const size_t before = kOtherWeight * size_t(r) + (r > root ? kRootWeight - kOtherWeight : 0);
  return size_t((unsigned __int128)count * before / total);
}

// Reads `len` bytes of rank r's memory at `remote` (or copies them, for this rank).
bool read_piece(Sched &s, int r, void *local, uint64_t remote, size_t len) {
  if (r == s.team.rank) {
    std::memcpy(local, reinterpret_cast<const void *>(uintptr_t(remote)), len);
    return true;
  }
  return context().node_read(s.team.tasks[r], local, reinterpret_cast<const void *>(uintptr_t(remote)),
                             len) == ssize_t(len);
}

// Step 2 for one piece [off, off + len) of this rank's block: the reduction over every rank into
// `acc`. `own` is this rank's contribution to the piece, `own_in_acc` whether acc already holds it.
bool reduce_piece(Sched &s, const Args &a, const Where *where, size_t off, size_t len, unsigned char *acc,
                  const unsigned char *own, bool own_in_acc, unsigned char *tmp) {
  const int p = s.team.size, me = s.team.rank;
  const Reduction &op = a.op;
  const size_t n = len / op.extent;
  if (op.commutative) {
    // Any order: start from what acc holds, or read some other rank's piece straight into it.
    int first = me;
    if (!own_in_acc) {
      first = me == 0 ? 1 : 0;
      if (!read_piece(s, first, acc, where[first].src + off, len)) return false;
      op.apply(own, acc, n, op.arg);
    }
    for (int r = 0; r < p; ++r) {
      if (r == me || r == first) continue;
      if (!read_piece(s, r, tmp, where[r].src + off, len)) return false;
      op.apply(tmp, acc, n, op.arg);
    }
    return true;
  }
  // Rank order: acc = x(p-1), then acc = x(r) op acc from r = p-2 down to 0. acc never holds this
  // rank's contribution unless this rank is the last (the caller sees to it).
  if (me != p - 1 || !own_in_acc) {
    if (me == p - 1)
      std::memcpy(acc, own, len);
    else if (!read_piece(s, p - 1, acc, where[p - 1].src + off, len))
      return false;
  }
  for (int r = p - 2; r >= 0; --r) {
    const unsigned char *x = own;
    if (r != me) {
      if (!read_piece(s, r, tmp, where[r].src + off, len)) return false;
      x = tmp;
    }
    op.apply(x, acc, n, op.arg);
  }
  return true;
}

// Reduce (all false: to a.root) and allreduce (all true); root_reads: the root reduces the whole vector
// (reduce only).
Task reduce_cma_impl(Sched &s, Args a, bool all, bool root_reads) {
  const ReduceEnds ends(s, a, all);
  if (ends.trivial(s, a)) co_return 0;
  const int p = s.team.size, me = s.team.rank, root = ends.root;
  const Reduction &op = a.op;
  const size_t ext = op.extent, bytes = ends.bytes;
  const bool gets_result = ends.gets_result;
  const unsigned char *const in = ends.in;
  unsigned char *const out = ends.out;
  Context &ctx = context();
  unsigned char *const scratch = scratch_pieces();

  // 1. Where everybody's buffers are.
  Where where[kShmSlotMaxRanks];
  ShmCell *theirs[kShmSlotMaxRanks];
  Where mine{uint64_t(uintptr_t(in)), uint64_t(uintptr_t(gets_result ? out : nullptr)), scratch != nullptr};
  for (int r = 0; r < p && mine.reach; ++r)
    if (!ctx.node_memory_reachable(s.team.tasks[r])) mine.reach = 0;
  const uint64_t id_where = shm_id(s.seq, 0), id_done = shm_id(s.seq, 1);
  ShmCell *first = take_cell(s);
  co_await s.until(cell_free, first);
  std::memcpy(first->data, &mine, sizeof mine);
  publish(s, first, id_where, -1);
  bool reach = mine.reach;
  Find f{};
  for (int r = 0; r < p; ++r) {
    if (r == me) {
      where[r] = mine;
      continue;
    }
    f = find(s, r, id_where);
    co_await s.until(found, &f);
    theirs[r] = f.cell;
    std::memcpy(&where[r], f.cell->data, sizeof where[r]);
    reach = reach && where[r].reach;
  }
  if (!reach) {
    // Somebody cannot reach somebody: every rank saw the same flags, so all leave together.
    for (int r = 0; r < p; ++r)
      if (r != me) acknowledge(s, Find{nullptr, id_where, theirs[r]}, r);
    // Not one co_await of a conditional expression of two tasks: built by GCC 12, that corrupted the
    // frame of a later nonblocking collective (coll_sweep with TEST_REFUSE_CMA).
    if (!all) co_return co_await reduce_binomial(s, a);
    if (op.commutative) co_return co_await allreduce_ring(s, a);
    co_return co_await allreduce_recursive_doubling(s, a);
  }

  // 2. This rank's block: an even share, or for reduce_cma_root the whole vector at the root.
  auto block = [&](int r, size_t &blo, size_t &bhi) {
    if (root_reads) {
      blo = 0;
      bhi = r == root ? bytes : 0;
    } else if (all) {
      blo = block_start(a.count, p, r) * ext;
      bhi = block_start(a.count, p, r + 1) * ext;
    } else {
      blo = weighted_start(a.count, p, root, r) * ext;
      bhi = weighted_start(a.count, p, root, r + 1) * ext;
    }
  };
  size_t lo, hi;
  block(me, lo, hi);
  const size_t piece = kPiece / ext * ext;
  int32_t status = 0;
  int acked = -1;  // a rank whose first publication was acknowledged early
  if (root_reads && me == root && op.commutative && !a.in_place && hi > lo) {
    // The first other rank's whole vector straight into the receive buffer in one read, after which
    // that rank may leave (with 2 ranks, before the root has combined anything).
    acked = me == 0 ? 1 : 0;
    if (!read_piece(s, acked, out, where[acked].src, bytes)) status = int32_t(Err::device);
    acknowledge(s, Find{nullptr, id_where, theirs[acked]}, acked);
    if (status == 0) op.apply(in, out, a.count, op.arg);
    for (int r = 0; r < p && status == 0; ++r) {
      if (r == me || r == acked) continue;
      for (size_t off = 0; off < bytes && status == 0; off += piece) {
        const size_t len = bytes - off < piece ? bytes - off : piece;
        if (!read_piece(s, r, scratch, where[r].src + off, len))
          status = int32_t(Err::device);
        else
          op.apply(scratch, out + off, len / ext, op.arg);
      }
    }
    lo = hi;  // done
  }
  // Rank order with the receive buffer holding this rank's own contribution (in place) would overwrite
  // it with the last rank's before it is used: combine in scratch then.
  const bool in_dst = gets_result && (op.commutative || !a.in_place || me == p - 1);
  for (size_t off = lo; off < hi && status == 0; off += piece) {
    const size_t len = hi - off < piece ? hi - off : piece;
    unsigned char *acc = in_dst ? out + off : scratch;
    if (!reduce_piece(s, a, where, off, len, acc, in + off, in_dst && a.in_place, scratch + kPiece))
      status = int32_t(Err::device);
    else if (acc != out + off && gets_result)
      std::memcpy(out + off, acc, len);
    else if (!gets_result &&
             ctx.node_write(s.team.tasks[root], acc,
                            reinterpret_cast<void *>(uintptr_t(where[root].dst + off)), len) != ssize_t(len))
      status = int32_t(Err::device);
  }
  // allreduce: the finished block into every other rank's receive buffer (block `me` of theirs, which
  // only this rank touches, and which it has finished reading).
  if (all && hi > lo)
    for (int r = 0; r < p && status == 0; ++r)
      if (r != me &&
          ctx.node_write(s.team.tasks[r], out + lo, reinterpret_cast<void *>(uintptr_t(where[r].dst + lo)),
                         hi - lo) != ssize_t(hi - lo))
        status = int32_t(Err::device);
  for (int r = 0; r < p; ++r)
    if (r != me && r != acked) acknowledge(s, Find{nullptr, id_where, theirs[r]}, r);
  // A reduce's root tells nobody: only the root reads the others' blocks.
  ShmCell *second = nullptr;
  if (all || me != root) {
    second = take_cell(s);
    co_await s.until(cell_free, second);
    std::memcpy(second->data, &status, sizeof status);
    publish(s, second, id_done, all ? -1 : root);
  }

  // 3. Every other rank's block is in place once it says so (a reduce: in the root's buffer).
  if (gets_result)
    for (int r = 0; r < p; ++r) {
      if (r == me) continue;
      f = find(s, r, id_done);
      co_await s.until(found, &f);
      int32_t theirs_status;
      std::memcpy(&theirs_status, f.cell->data, sizeof theirs_status);
      if (theirs_status && !status) status = theirs_status;
      acknowledge(s, f, r);
    }

  // 4. Nobody reads this rank's buffers any more: a rank that said its block is done has finished
  // reading everybody's. Only a reduce's non-root has heard nothing, and waits for the acknowledgements
  // of its first publication (the next call that takes a cell waits for the rest).
  if (!gets_result) co_await s.until(cell_free, first);
  prefetch_next(s);
  co_return status;
}

}  // namespace

Task reduce_cma(Sched &s, Args a) {
  return reduce_cma_impl(s, a, false, false);
}
Task reduce_cma_root(Sched &s, Args a) {
  return reduce_cma_impl(s, a, false, true);
}
Task allreduce_cma(Sched &s, Args a) {
  return reduce_cma_impl(s, a, true, false);
}

}  // namespace pamir::coll
