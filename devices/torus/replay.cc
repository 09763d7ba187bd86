// The timing model's replay after the run (replay.h).
#include "devices/torus/replay.h"

#include <algorithm>
#include <queue>
#include <tuple>

namespace pamir::torus {
namespace {

constexpr uint32_t kEngine = 0x80000000u;
constexpr uint64_t kConstant = ~uint64_t(0);  // an index: the time 0

// Every expression and transfer as one index: the engine's nodes, then each rank's, then the transfers.
class Graph {
 public:
  Graph(const ReplayLog &log, const std::vector<std::vector<uint64_t>> &ranks) : log_(log), ranks_(ranks) {
    offset_.push_back(log.nodes.size());
    for (const auto &r : ranks) offset_.push_back(offset_.back() + r.size());
    transfers_ = offset_.back();
    size_ = transfers_ + log.transfers.size();
  }
  size_t size() const { return size_; }
  size_t transfers() const { return transfers_; }

  // The index of an expression, kConstant for 0, or false when it names nothing the logs hold.
  bool index(VtRef ref, uint64_t &i) const {
    if (ref == 0) {
      i = kConstant;
      return true;
    }
    const uint64_t space = ref >> 32;
    const uint32_t x = uint32_t(ref);
    if (space == 0) {
      if (!(x & kEngine) || (x & ~kEngine) == 0 || (x & ~kEngine) > log_.nodes.size()) return false;
      i = (x & ~kEngine) - 1;
      return true;
    }
    const uint64_t r = space - 1;
    if (r >= ranks_.size() || (x & kEngine) || x == 0 || x > ranks_[r].size()) return false;
    i = offset_[r] + x - 1;
    return true;
  }

  // The children of index i (at most two): false where one names nothing.
  bool children(uint64_t i, uint64_t out[2], int &n) const {
    n = 0;
    auto add = [&](VtRef ref) {
      uint64_t c;
      if (!index(ref, c)) return false;
      if (c != kConstant) out[n++] = c;
      return true;
    };
    if (i >= transfers_) return add(log_.transfers[i - transfers_].stamp);
    if (i < log_.nodes.size()) {
      const ReplayLog::Node &node = log_.nodes[i];
      if (node.b == ReplayLog::kArrival) {
        if (node.a >= log_.transfers.size()) return false;
        out[n++] = transfers_ + node.a;
        return true;
      }
      return add(node.a) && add(node.b);
    }
    const size_t r = size_t(std::upper_bound(offset_.begin(), offset_.end(), i) - offset_.begin()) - 1;
    const uint64_t packed = ranks_[r][i - offset_[r]];
    return add(rank_ref(uint32_t(r), uint32_t(packed >> 32))) && add(rank_ref(uint32_t(r), uint32_t(packed)));
  }

 private:
  const ReplayLog &log_;
  const std::vector<std::vector<uint64_t>> &ranks_;
  std::vector<uint64_t> offset_;  // where each rank's nodes start, and the end of the last
  uint64_t transfers_ = 0, size_ = 0;
};

}  // namespace

std::string replay_log_path(const std::string &report, uint32_t rank) {
  return report + ".vt." + std::to_string(rank);
}

ReplayResult replay(const ReplayLog &log, const std::vector<std::vector<uint64_t>> &rank_nodes, size_t links,
                    uint32_t hop_ns) {
  ReplayResult res;
  res.clock.assign(rank_nodes.size(), 0);
  const Graph g(log, rank_nodes);
  const uint64_t n = g.size();
  // Each index's unresolved children, and who waits on each (the edges child -> parent, grouped).
  std::vector<uint8_t> pending(n, 0);
  std::vector<uint64_t> first(n + 1, 0);
  uint64_t kids[2];
  int nk;
  for (uint64_t i = 0; i < n; ++i) {
    if (!g.children(i, kids, nk)) {
      res.why = "an expression names nothing the logs hold";
      return res;
    }
    pending[i] = uint8_t(nk);
    for (int k = 0; k < nk; ++k) ++first[kids[k] + 1];
  }
  for (uint64_t i = 0; i < n; ++i) first[i + 1] += first[i];
  std::vector<uint64_t> parents(first[n]);
  {
    std::vector<uint64_t> at(first.begin(), first.end() - 1);
    for (uint64_t i = 0; i < n; ++i) {
      g.children(i, kids, nk);
      for (int k = 0; k < nk; ++k) parents[at[kids[k]]++] = i;
    }
  }

  std::vector<uint64_t> value(n, 0);
  // Stamp, sender, receiver, kind, the sender's order, index. A rank writes messages of equal stamps
  // to one receiver in the order its program posted them (MPI's order), but to different receivers in
  // whatever order its device had room for them, and a remote get as it matches, before or after its
  // sends of that stamp as the request-to-send came in.
  using Key = std::tuple<uint64_t, uint32_t, uint32_t, uint32_t, uint64_t, uint64_t>;
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> ready;
  std::vector<uint64_t> work;
  // An index whose children are all known: a transfer waits for the link, the rest are known now.
  auto resolved = [&](uint64_t i) {
    if (i >= g.transfers()) {
      const ReplayLog::Transfer &t = log.transfers[i - g.transfers()];
      uint64_t stamp = 0;
      if (g.children(i, kids, nk) && nk) stamp = value[kids[0]];
      ready.emplace(stamp, t.from, t.to, t.kind, t.order, i);
      return;
    }
    uint64_t v = 0;
    g.children(i, kids, nk);
    for (int k = 0; k < nk; ++k) v = std::max(v, value[kids[k]]);
    value[i] = v;
    work.push_back(i);
  };
  for (uint64_t i = 0; i < n; ++i)
    if (pending[i] == 0) resolved(i);

  std::vector<uint64_t> link_free(links, 0);
  for (;;) {
    while (!work.empty()) {
      const uint64_t i = work.back();
      work.pop_back();
      for (uint64_t p = first[i]; p < first[i + 1]; ++p)
        if (--pending[parents[p]] == 0) resolved(parents[p]);
    }
    if (ready.empty()) break;
    const auto [stamp, from, to, kind, order, i] = ready.top();
    ready.pop();
    const ReplayLog::Transfer &t = log.transfers[i - g.transfers()];
    uint64_t &free = link_free[t.link];
    const uint64_t depart = std::max(free, stamp) + t.wire_ns;
    free = depart;
    value[i] = depart + uint64_t(t.hops) * hop_ns;
    res.clock[t.from] = std::max(res.clock[t.from], depart);
    res.clock[t.to] = std::max(res.clock[t.to], value[i]);
    ++res.transfers;
    work.push_back(i);
  }
  res.complete = res.transfers == log.transfers.size();
  if (!res.complete)
    res.why = std::to_string(log.transfers.size() - res.transfers) +
              " transfers' stamps depend on arrivals the logs never resolve";
  return res;
}

}  // namespace pamir::torus
