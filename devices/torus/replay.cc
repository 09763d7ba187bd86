// The timing model's replay after the run (replay.h).
#include "devices/torus/replay.h"

#include <algorithm>
#include <queue>
#include <tuple>

namespace pamir::torus {
namespace {

constexpr uint32_t kEngine = 0x80000000u;
constexpr uint32_t kNone = ~0u;  // no child: the time 0

// Every expression and transfer as one 32-bit index: the engine's nodes, then each rank's, then the
// transfers. Each has at most two children, kept once decoded (8 bytes an index, against decoding them
// three times).
class Graph {
 public:
  Graph(const ReplayLog &log, const std::vector<std::vector<uint64_t>> &ranks) : log_(log), ranks_(ranks) {
    offset_.push_back(log.nodes.size());
    for (const auto &r : ranks) offset_.push_back(offset_.back() + r.size());
    transfers_ = offset_.back();
    size_ = transfers_ + log.transfers.size();
  }
  uint64_t size() const { return size_; }
  uint64_t transfers() const { return transfers_; }

  // Decodes every index's children into kids (two an index, kNone for none): false, with why, where one
  // names nothing the logs hold.
  bool decode(std::vector<uint32_t> &kids, std::string &why) const {
    kids.assign(size_ * 2, kNone);
    bool ok = true;
    auto put = [&](uint64_t i, int k, VtRef ref) {
      if (ref == 0) return;
      const uint64_t space = ref >> 32;
      const uint32_t x = uint32_t(ref), low = x & ~kEngine;
      uint64_t c = kNone;
      if (space == 0 && (x & kEngine) && low != 0 && low <= log_.nodes.size()) c = low - 1;
      if (space != 0 && space <= ranks_.size() && !(x & kEngine) && x != 0 && x <= ranks_[space - 1].size())
        c = offset_[space - 1] + x - 1;
      if (c == kNone) ok = false;
      kids[i * 2 + k] = uint32_t(c);
    };
    for (uint64_t i = 0; i < log_.nodes.size(); ++i) {
      const ReplayLog::Node &node = log_.nodes[i];
      if (node.b != ReplayLog::kArrival) {
        put(i, 0, node.a);
        put(i, 1, node.b);
      } else if (node.a < log_.transfers.size()) {
        kids[i * 2] = uint32_t(transfers_ + node.a);
      } else {
        ok = false;
      }
    }
    for (uint32_t r = 0; r < ranks_.size(); ++r)
      for (uint64_t k = 0; k < ranks_[r].size(); ++k) {
        const uint64_t packed = ranks_[r][k], i = offset_[r] + k;
        put(i, 0, rank_ref(r, uint32_t(packed >> 32)));
        put(i, 1, rank_ref(r, uint32_t(packed)));
      }
    for (uint64_t t = 0; t < log_.transfers.size(); ++t) put(transfers_ + t, 0, log_.transfers[t].stamp);
    if (!ok) why = "an expression names nothing the logs hold";
    return ok;
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
  // 32-bit indices, and at most two edges an index.
  if (n >= 0x7fffffff || log.overflow) {
    res.why = "the run logged more than 2^31 expressions and transfers";
    return res;
  }
  std::vector<uint32_t> kids;
  if (!g.decode(kids, res.why)) return res;
  // Each index's unresolved children, and who waits on each (the edges child -> parent, grouped).
  std::vector<uint8_t> pending(n, 0);
  std::vector<uint32_t> first(n + 1, 0);
  for (uint64_t i = 0; i < n; ++i)
    for (int k = 0; k < 2; ++k)
      if (const uint32_t c = kids[i * 2 + k]; c != kNone) {
        ++pending[i];
        ++first[c + 1];
      }
  for (uint64_t i = 0; i < n; ++i) first[i + 1] += first[i];
  std::vector<uint32_t> parents(first[n]);
  {
    std::vector<uint32_t> at(first.begin(), first.end() - 1);
    for (uint64_t i = 0; i < n; ++i)
      for (int k = 0; k < 2; ++k)
        if (const uint32_t c = kids[i * 2 + k]; c != kNone) parents[at[c]++] = uint32_t(i);
  }

  std::vector<uint64_t> value(n, 0);
  auto value_of = [&](uint32_t c) { return c == kNone ? uint64_t(0) : value[c]; };
  // Stamp, sender, receiver, kind, the sender's order, index. A rank writes messages of equal stamps
  // to one receiver in the order its program posted them (MPI's order), but to different receivers in
  // whatever order its device had room for them, and a remote get as it matches, before or after its
  // sends of that stamp as the request-to-send came in.
  using Key = std::tuple<uint64_t, uint32_t, uint32_t, uint32_t, uint64_t, uint32_t>;
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> ready;
  std::vector<uint32_t> work;
  // An index whose children are all known: a transfer waits for the link, the rest are known now.
  auto resolved = [&](uint32_t i) {
    const uint64_t v = std::max(value_of(kids[size_t(i) * 2]), value_of(kids[size_t(i) * 2 + 1]));
    if (i >= g.transfers()) {
      const ReplayLog::Transfer &t = log.transfers[i - g.transfers()];
      ready.emplace(v, t.from, t.to, t.kind, t.order, i);
      return;
    }
    value[i] = v;
    work.push_back(i);
  };
  for (uint64_t i = 0; i < n; ++i)
    if (pending[i] == 0) resolved(uint32_t(i));

  std::vector<uint64_t> link_free(links, 0);
  for (;;) {
    while (!work.empty()) {
      const uint32_t i = work.back();
      work.pop_back();
      for (uint32_t p = first[i]; p < first[i + 1]; ++p)
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
    if (!t.lost) res.clock[t.to] = std::max(res.clock[t.to], value[i]);  // as the engine's own
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
