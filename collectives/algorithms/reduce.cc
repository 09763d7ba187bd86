// Reduce algorithms.
//
// binomial: up a binomial tree. A rank v of the tree receives the partial results of v + 2^j (j below
// v's lowest set bit, smallest subtree first), each covering the next contiguous block of tree ranks,
// then sends its own partial result to v - lowbit(v). Commutative operations use the tree rooted at
// `root` (tree ranks are ranks relative to the root). A non-commutative one needs x0 op x1 op ... op
// x(p-1) in rank order: it uses the tree rooted at rank 0, where every block is a contiguous run of
// ranks, so each step computes (mine) op (theirs) with the lower ranks on the left; rank 0 then sends
// the result to the root. Cost: ceil(log2 p) * (alpha + n*beta + n*gamma), plus (alpha + n*beta) for a
// non-commutative operation with root != 0. Scratch: two vectors on inner ranks.
//
// linear: every rank sends its vector to the root, which combines them in rank order as they arrive
// in order. (p-1) * (alpha + n*beta + n*gamma) at the root, but one step for every other rank: for few
// ranks on few cores, where the tree's inner ranks would only add a hop.
#include <cstring>
#include <utility>

#include "collectives/algorithms/algorithms.h"
#include "collectives/scratch.h"
#include "pami/request.h"

namespace pamir::coll {

Task reduce_binomial(Sched &s, Args a) {
  const int p = s.team.size;
  const Reduction &op = a.op;
  const size_t count = a.count, bytes = count * op.extent;
  const int root = a.root;
  const bool is_root = s.team.rank == root;
  const void *mine = is_root && a.in_place ? a.recvbuf : a.sendbuf;
  if (p == 1 || count == 0) {
    if (is_root && !a.in_place && bytes) std::memcpy(a.recvbuf, a.sendbuf, bytes);
    co_return 0;
  }
  const int tree_root = op.commutative ? root : 0;
  const bool hand_over = tree_root != root;  // non-commutative, root != 0: rank 0 sends the result on
  const int v = (s.team.rank - tree_root + p) % p;
  const int lowbit = v == 0 ? p : (v & -v);  // v's children are v + 2^j for 2^j < lowbit
  const int parent = (v - lowbit + tree_root) % p;

  if (v + 1 >= p || lowbit == 1) {
    // A leaf sends its own vector as it is (never v == 0 here).
    if (int e = co_await s.send(parent, mine, bytes)) co_return e;
  } else {
    // acc: the partial result so far; tmp: where a child's arrives. The real root at the top of the
    // tree accumulates straight into recvbuf.
    const bool acc_in_recvbuf = v == 0 && is_root;
    Scratch s1(acc_in_recvbuf ? 0 : bytes), s2(bytes);
    unsigned char *acc = acc_in_recvbuf ? static_cast<unsigned char *>(a.recvbuf) : s1.get();
    unsigned char *tmp = s2.get();
    if (!acc || !tmp) co_return int(Err::intern);
    if (acc != mine) std::memcpy(acc, mine, bytes);
    for (int mask = 1; mask < lowbit && v + mask < p; mask <<= 1) {
      if (int e = co_await s.recv((v + mask + tree_root) % p, tmp, bytes)) co_return e;
      if (op.commutative) {
        op.apply(tmp, acc, count, op.arg);  // acc = theirs op mine
      } else {
        op.apply(acc, tmp, count, op.arg);  // tmp = mine op theirs: lower ranks on the left
        std::swap(acc, tmp);
      }
    }
    int e = 0;
    if (v != 0)
      e = co_await s.send(parent, acc, bytes);
    else if (hand_over)
      e = co_await s.send(root, acc, bytes);
    else if (acc != a.recvbuf)
      std::memcpy(a.recvbuf, acc, bytes);
    if (e) co_return e;
  }
  if (hand_over && is_root) co_return co_await s.recv(0, a.recvbuf, bytes);
  co_return 0;
}

Task reduce_linear(Sched &s, Args a) {
  const int p = s.team.size, rank = s.team.rank, root = a.root;
  const Reduction &op = a.op;
  const size_t count = a.count, bytes = count * op.extent;
  if (rank != root) {
    if (count == 0) co_return 0;
    co_return co_await s.send(root, a.sendbuf, bytes);
  }
  if (p == 1 || count == 0) {
    if (!a.in_place && bytes) std::memcpy(a.recvbuf, a.sendbuf, bytes);
    co_return 0;
  }
  // Combined from the highest rank down, so that acc = x(r) op (x(r+1) op ...) keeps rank order for a
  // non-commutative operation: recvbuf holds the running result of ranks r+1 .. p-1.
  Scratch s1(bytes), s2(bytes);
  unsigned char *mine = s1.get(), *tmp = s2.get();
  if (!mine || !tmp) co_return int(Err::intern);
  std::memcpy(mine, a.in_place ? a.recvbuf : a.sendbuf, bytes);
  auto *acc = static_cast<unsigned char *>(a.recvbuf);
  bool have = false;
  for (int r = p - 1; r >= 0; --r) {
    const unsigned char *x = mine;
    if (r != root) {
      if (int e = co_await s.recv(r, tmp, bytes)) co_return e;
      x = tmp;
    }
    if (!have) {
      std::memcpy(acc, x, bytes);
      have = true;
    } else {
      op.apply(x, acc, count, op.arg);  // acc = x(r) op acc
    }
  }
  co_return 0;
}

}  // namespace pamir::coll
