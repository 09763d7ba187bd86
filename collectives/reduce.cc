// Reduce up a binomial tree. A rank v of the tree receives the partial results of v + 2^j (j below v's
// lowest set bit, smallest subtree first), each covering the next contiguous block of tree ranks, then
// sends its own partial result to v - lowbit(v).
//
// Commutative operations use the tree rooted at `root` (tree ranks are ranks relative to the root). A
// non-commutative one needs the result x0 op x1 op ... op x(p-1) in rank order: it uses the tree rooted
// at rank 0, where every block is a contiguous run of ranks, so each step computes (mine) op (theirs)
// with the lower ranks on the left; rank 0 then sends the result to the root.
//
// Cost: ceil(log2 p) * (alpha + n*beta + n*gamma), plus (alpha + n*beta) for a non-commutative
// operation with root != 0. (Large vectors want reduce-scatter + gather, which the collectives issue
// adds.) Scratch: two vectors on inner ranks of the tree, on the stack up to 4 KiB each.
#include <cstdlib>
#include <cstring>

#include "collectives/coll.h"
#include "collectives/scratch.h"
#include "pami/request.h"

namespace pamir::coll {

namespace {

constexpr int kTag = 3;

}  // namespace

int reduce(const Team &t, const void *sendbuf, void *recvbuf, size_t count, const Reduction &op, int root,
           bool in_place) {
  const int p = t.size;
  const size_t bytes = count * op.extent;
  const bool is_root = t.rank == root;
  const void *mine = is_root && in_place ? recvbuf : sendbuf;
  if (p == 1 || count == 0) {
    if (is_root && !in_place && bytes) std::memcpy(recvbuf, sendbuf, bytes);
    return 0;
  }
  const int tree_root = op.commutative ? root : 0;
  const bool hand_over = tree_root != root;  // non-commutative, root != 0: rank 0 sends the result on
  const int v = (t.rank - tree_root + p) % p;
  const int lowbit = v == 0 ? p : (v & -v);  // v's children are v + 2^j for 2^j < lowbit
  const int parent = (v - lowbit + tree_root) % p;

  int e = 0;
  if (v + 1 >= p || lowbit == 1) {
    e = send(t, parent, kTag, mine, bytes);  // a leaf sends its own vector as it is (never v == 0 here)
  } else {
    // acc: the partial result so far; tmp: where a child's arrives. The real root at the top of the
    // tree accumulates straight into recvbuf.
    const bool acc_in_recvbuf = v == 0 && is_root;
    Scratch s1(acc_in_recvbuf ? 0 : bytes), s2(bytes);
    unsigned char *acc = acc_in_recvbuf ? static_cast<unsigned char *>(recvbuf) : s1.get();
    unsigned char *tmp = s2.get();
    if (!acc || !tmp) return int(Err::intern);
    if (acc != mine) std::memcpy(acc, mine, bytes);
    for (int mask = 1; mask < lowbit && v + mask < p; mask <<= 1) {
      if ((e = recv(t, (v + mask + tree_root) % p, kTag, tmp, bytes))) return e;
      if (op.commutative) {
        op.apply(tmp, acc, count, op.arg);  // acc = theirs op mine
      } else {
        op.apply(acc, tmp, count, op.arg);  // tmp = mine op theirs: lower ranks on the left
        unsigned char *x = acc;
        acc = tmp;
        tmp = x;
      }
    }
    if (v != 0) {
      e = send(t, parent, kTag, acc, bytes);
    } else if (hand_over) {
      e = send(t, root, kTag, acc, bytes);
    } else if (acc != recvbuf) {
      std::memcpy(recvbuf, acc, bytes);
    }
  }
  if (e) return e;
  if (hand_over && is_root) return recv(t, 0, kTag, recvbuf, bytes);
  return 0;
}

}  // namespace pamir::coll
