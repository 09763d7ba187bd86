#include "pami/stats.h"

#include <cstdio>
#include <string>

namespace pamir {

namespace {

// One line per protocol of a class: "<class>.<protocol> N messages N bytes".
template <typename Proto>
void print_class(int rank, const char *cls, const uint64_t *counts, const uint64_t *bytes) {
  for (unsigned p = 0; p < unsigned(Proto::count_); ++p)
    std::fprintf(stderr, "pamir stats: rank %d %s.%s %llu messages %llu bytes\n", rank, cls,
                 protocol_name(Proto(p)), (unsigned long long)counts[p], (unsigned long long)bytes[p]);
}

}  // namespace

const char *path_name(Path p) {
  static const char *const names[] = {"self", "shm", "ofi"};
  static_assert(sizeof names / sizeof names[0] == unsigned(Path::count_));
  return names[unsigned(p)];
}

void print_stats(int rank) {
  const Stats &s = stats();
  constexpr unsigned kProtos = unsigned(SendProtocol::count_);
  uint64_t sends[kProtos] = {}, bytes[kProtos] = {};
  for (unsigned d = 0; d < unsigned(Path::count_); ++d)
    for (unsigned p = 0; p < kProtos; ++p) {
      sends[p] += s.sends_by_path[d][p];
      bytes[p] += s.bytes_by_path[d][p];
    }
  print_class<SendProtocol>(rank, "send", sends, bytes);
  for (unsigned d = 0; d < unsigned(Path::count_); ++d) {
    const std::string cls = std::string("send.") + path_name(Path(d));
    print_class<SendProtocol>(rank, cls.c_str(), s.sends_by_path[d], s.bytes_by_path[d]);
  }
  print_class<PutProtocol>(rank, "put", s.puts_by_protocol, s.put_bytes_by_protocol);
  print_class<GetProtocol>(rank, "get", s.gets_by_protocol, s.get_bytes_by_protocol);
  const struct {
    const char *name;
    uint64_t value;
  } counters[] = {
      {"send.self", s.self_sends},
      {"recv.unexpected", s.unexpected},
      {"send.queued", s.send_queued},
      {"wait.sleeps", s.sleeps},
      {"async.engaged", s.async_engaged},
      {"async.passes", s.async_passes},
      {"async.completed", s.async_completed},
      {"ofi.poll_interval_max", s.ofi_interval_max},
      {"ofi.local_registrations", s.ofi_local_registrations},
      {"ofi.credits", s.ofi_credits},
      {"recv.rdma_reads", s.rdv_reads},
      {"recv.rdma_resends", s.rdv_resends},
      {"rdv.origin_armed_bytes", s.rdv_origin_armed},
      {"rdv.origin_acked", s.rdv_origin_acked},
      {"rdv.target_armed_bytes", s.rdv_target_armed},
      {"rdv.target_zero", s.rdv_target_zero},
      {"rdv.target_shared", s.rdv_shared},
      {"rdv.origin_helped_bytes", s.rdv_helped_bytes},
      {"rdv.async_reads", s.rdv_async_reads},
      {"rdv.atomic_acks", s.rdv_atomic_acks},
      {"rdv.holds", s.rdv_holds},
      {"rdv.held_reuses", s.rdv_held_reuses},
      {"dt.chunk_reads", s.dt_chunk_reads},
      {"dt.chunks", s.dt_chunks},
      {"dt.pushed", s.dt_pushed},
      {"dt.packed_packets", s.dt_packed_packets},
      {"dt.unpacked_packets", s.dt_unpacked_packets},
      {"pattern.records", s.pattern_records},
      {"pattern.descriptors", s.pattern_descriptors},
      {"pattern.replays", s.pattern_replays},
      {"pattern.fallbacks", s.pattern_fallbacks},
      {"pattern.diverged", s.pattern_diverged},
      {"direct.tokens", s.direct_tokens},
      {"direct.puts", s.direct_puts},
      {"direct.put_bytes", s.direct_put_bytes},
      {"box.tokens", s.box_tokens},
      {"box.sent", s.box_sent},
      {"box.taken", s.box_taken},
  };
  for (const auto &c : counters)
    std::fprintf(stderr, "pamir stats: rank %d %s %llu\n", rank, c.name, (unsigned long long)c.value);
}

}  // namespace pamir
