#include "pami/stats.h"

#include <cstddef>
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
  static const char *const names[] = {"self", "shm", "ofi", "torus"};
  static_assert(sizeof names / sizeof names[0] == unsigned(Path::count_));
  return names[unsigned(p)];
}

const std::vector<Counter> &counters() {
  static const std::vector<Counter> all = {
      {"send.self", "send.self (PAMIR_STATS)", offsetof(Stats, self_sends), 1, CounterKind::counter, "pami"},
      {"recv.unexpected", "recv.unexpected (PAMIR_STATS)", offsetof(Stats, unexpected), 1,
       CounterKind::counter, "pami"},
      {"send.queued", "send.queued (PAMIR_STATS)", offsetof(Stats, send_queued), 1, CounterKind::counter,
       "pami"},
      {"wait.sleeps", "wait.sleeps (PAMIR_STATS)", offsetof(Stats, sleeps), 1, CounterKind::counter, "pami"},
      {"async.engaged", "async.engaged (PAMIR_STATS)", offsetof(Stats, async_engaged), 1,
       CounterKind::counter, "pami"},
      {"async.passes", "async.passes (PAMIR_STATS)", offsetof(Stats, async_passes), 1, CounterKind::counter,
       "pami"},
      {"async.completed", "async.completed (PAMIR_STATS)", offsetof(Stats, async_completed), 1,
       CounterKind::counter, "pami"},
      {"ofi.poll_interval_max", "ofi.poll_interval_max (PAMIR_STATS)", offsetof(Stats, ofi_interval_max), 1,
       CounterKind::highwatermark, "devices"},
      {"ofi.local_registrations", "ofi.local_registrations (PAMIR_STATS)",
       offsetof(Stats, ofi_local_registrations), 1, CounterKind::counter, "devices"},
      {"ofi.credits", "ofi.credits (PAMIR_STATS)", offsetof(Stats, ofi_credits), 1, CounterKind::size,
       "devices"},
      {"recv.rdma_reads", "recv.rdma_reads (PAMIR_STATS)", offsetof(Stats, rdv_reads), 1,
       CounterKind::counter, "pami"},
      {"recv.rdma_resends", "recv.rdma_resends (PAMIR_STATS)", offsetof(Stats, rdv_resends), 1,
       CounterKind::counter, "pami"},
      {"rdv.origin_armed_bytes", "rdv.origin_armed_bytes (PAMIR_STATS)", offsetof(Stats, rdv_origin_armed), 1,
       CounterKind::counter, "pami"},
      {"rdv.origin_acked", "rdv.origin_acked (PAMIR_STATS)", offsetof(Stats, rdv_origin_acked), 1,
       CounterKind::counter, "pami"},
      {"rdv.target_armed_bytes", "rdv.target_armed_bytes (PAMIR_STATS)", offsetof(Stats, rdv_target_armed), 1,
       CounterKind::counter, "pami"},
      {"rdv.target_zero", "rdv.target_zero (PAMIR_STATS)", offsetof(Stats, rdv_target_zero), 1,
       CounterKind::counter, "pami"},
      {"rdv.target_shared", "rdv.target_shared (PAMIR_STATS)", offsetof(Stats, rdv_shared), 1,
       CounterKind::counter, "pami"},
      {"rdv.origin_helped_bytes", "rdv.origin_helped_bytes (PAMIR_STATS)", offsetof(Stats, rdv_helped_bytes),
       1, CounterKind::counter, "pami"},
      {"rdv.async_reads", "rdv.async_reads (PAMIR_STATS)", offsetof(Stats, rdv_async_reads), 1,
       CounterKind::counter, "pami"},
      {"rdv.atomic_acks", "rdv.atomic_acks (PAMIR_STATS)", offsetof(Stats, rdv_atomic_acks), 1,
       CounterKind::counter, "pami"},
      {"rdv.holds", "rdv.holds (PAMIR_STATS)", offsetof(Stats, rdv_holds), 1, CounterKind::counter, "pami"},
      {"rdv.held_reuses", "rdv.held_reuses (PAMIR_STATS)", offsetof(Stats, rdv_held_reuses), 1,
       CounterKind::counter, "pami"},
      {"dt.chunk_reads", "dt.chunk_reads (PAMIR_STATS)", offsetof(Stats, dt_chunk_reads), 1,
       CounterKind::counter, "pami"},
      {"dt.chunks", "dt.chunks (PAMIR_STATS)", offsetof(Stats, dt_chunks), 1, CounterKind::counter, "pami"},
      {"dt.pushed", "dt.pushed (PAMIR_STATS)", offsetof(Stats, dt_pushed), 1, CounterKind::counter, "pami"},
      {"dt.packed_packets", "dt.packed_packets (PAMIR_STATS)", offsetof(Stats, dt_packed_packets), 1,
       CounterKind::counter, "pami"},
      {"dt.unpacked_packets", "dt.unpacked_packets (PAMIR_STATS)", offsetof(Stats, dt_unpacked_packets), 1,
       CounterKind::counter, "pami"},
      {"pattern.records", "pattern.records (PAMIR_STATS)", offsetof(Stats, pattern_records), 1,
       CounterKind::counter, "collectives"},
      {"pattern.descriptors", "pattern.descriptors (PAMIR_STATS)", offsetof(Stats, pattern_descriptors), 1,
       CounterKind::counter, "collectives"},
      {"pattern.replays", "pattern.replays (PAMIR_STATS)", offsetof(Stats, pattern_replays), 1,
       CounterKind::counter, "collectives"},
      {"pattern.fallbacks", "pattern.fallbacks (PAMIR_STATS)", offsetof(Stats, pattern_fallbacks), 1,
       CounterKind::counter, "collectives"},
      {"pattern.diverged", "pattern.diverged (PAMIR_STATS)", offsetof(Stats, pattern_diverged), 1,
       CounterKind::counter, "collectives"},
      {"pattern.device_starts", "pattern.device_starts (PAMIR_STATS)", offsetof(Stats, pattern_device_starts),
       1, CounterKind::counter, "pami"},
      {"torus.descriptors", "torus.descriptors (PAMIR_STATS)", offsetof(Stats, torus_descriptors), 1,
       CounterKind::counter, "pami"},
      {"pattern.landed", "pattern.landed (PAMIR_STATS)", offsetof(Stats, pattern_landed), 1,
       CounterKind::counter, "pami"},
      {"direct.tokens", "direct.tokens (PAMIR_STATS)", offsetof(Stats, direct_tokens), 1,
       CounterKind::counter, "pami"},
      {"direct.puts", "direct.puts (PAMIR_STATS)", offsetof(Stats, direct_puts), 1, CounterKind::counter,
       "pami"},
      {"direct.put_bytes", "direct.put_bytes (PAMIR_STATS)", offsetof(Stats, direct_put_bytes), 1,
       CounterKind::counter, "pami"},
      {"box.tokens", "box.tokens (PAMIR_STATS)", offsetof(Stats, box_tokens), 1, CounterKind::counter,
       "devices"},
      {"box.sent", "box.sent (PAMIR_STATS)", offsetof(Stats, box_sent), 1, CounterKind::counter, "devices"},
      {"box.taken", "box.taken (PAMIR_STATS)", offsetof(Stats, box_taken), 1, CounterKind::counter,
       "devices"},
      {"win.offers", "win.offers (PAMIR_STATS)", offsetof(Stats, win_offers), 1, CounterKind::counter,
       "pami"},
      {"win.offers_taken_back", "win.offers_taken_back (PAMIR_STATS)", offsetof(Stats, win_offers_taken_back),
       1, CounterKind::counter, "pami"},
      {"win.offers_taken", "win.offers_taken (PAMIR_STATS)", offsetof(Stats, win_offers_taken), 1,
       CounterKind::counter, "pami"},
      {"win.offers_grown", "win.offers_grown (PAMIR_STATS)", offsetof(Stats, win_offers_grown), 1,
       CounterKind::counter, "pami"},
      {"win.offers_streamed", "win.offers_streamed (PAMIR_STATS)", offsetof(Stats, win_offers_streamed), 1,
       CounterKind::counter, "pami"},
      {"win.served", "win.served (PAMIR_STATS)", offsetof(Stats, win_served), 1, CounterKind::counter,
       "pami"},
      {"win.shared", "win.shared (PAMIR_STATS)", offsetof(Stats, win_shared), 1, CounterKind::counter,
       "pami"},
      {"win.device_rma", "win.device_rma (PAMIR_STATS)", offsetof(Stats, win_device_rma), 1,
       CounterKind::counter, "pami"},
      {"win.mapped_streamed", "win.mapped_streamed (PAMIR_STATS)", offsetof(Stats, win_mapped_streamed), 1,
       CounterKind::counter, "pami"},
      {"send.messages_by_path_protocol", "point-to-point sends by path (self, shm, ofi) and protocol",
       offsetof(Stats, sends_by_path), unsigned(Path::count_) * unsigned(SendProtocol::count_),
       CounterKind::counter, "pami"},
      {"send.bytes_by_path_protocol", "bytes of point-to-point sends by path and protocol",
       offsetof(Stats, bytes_by_path), unsigned(Path::count_) * unsigned(SendProtocol::count_),
       CounterKind::counter, "pami"},
      {"put.messages_by_protocol", "one-sided puts by protocol", offsetof(Stats, puts_by_protocol),
       unsigned(PutProtocol::count_), CounterKind::counter, "pami"},
      {"put.bytes_by_protocol", "bytes of one-sided puts by protocol", offsetof(Stats, put_bytes_by_protocol),
       unsigned(PutProtocol::count_), CounterKind::counter, "pami"},
      {"get.messages_by_protocol", "one-sided gets by protocol", offsetof(Stats, gets_by_protocol),
       unsigned(GetProtocol::count_), CounterKind::counter, "pami"},
      {"get.bytes_by_protocol", "bytes of one-sided gets by protocol", offsetof(Stats, get_bytes_by_protocol),
       unsigned(GetProtocol::count_), CounterKind::counter, "pami"},
  };
  return all;
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
  for (const Counter &c : counters())
    if (c.count == 1)
      std::fprintf(stderr, "pamir stats: rank %d %s %llu\n", rank, c.name,
                   (unsigned long long)*counter_values(c));
}

}  // namespace pamir
