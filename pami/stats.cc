#include "pami/stats.h"

#include <cstdio>

namespace pamir {

void print_stats(int rank) {
  const Stats &s = stats();
  for (unsigned p = 0; p < unsigned(SendProtocol::count_); ++p)
    std::fprintf(stderr, "pamir stats: rank %d send.%s %llu messages %llu bytes\n", rank,
                 protocol_name(SendProtocol(p)), (unsigned long long)s.sends_by_protocol[p],
                 (unsigned long long)s.bytes_by_protocol[p]);
  for (unsigned p = 0; p < unsigned(PutProtocol::count_); ++p)
    std::fprintf(stderr, "pamir stats: rank %d put.%s %llu messages %llu bytes\n", rank,
                 protocol_name(PutProtocol(p)), (unsigned long long)s.puts_by_protocol[p],
                 (unsigned long long)s.put_bytes_by_protocol[p]);
  for (unsigned p = 0; p < unsigned(GetProtocol::count_); ++p)
    std::fprintf(stderr, "pamir stats: rank %d get.%s %llu messages %llu bytes\n", rank,
                 protocol_name(GetProtocol(p)), (unsigned long long)s.gets_by_protocol[p],
                 (unsigned long long)s.get_bytes_by_protocol[p]);
  std::fprintf(stderr, "pamir stats: rank %d send.self %llu\n", rank, (unsigned long long)s.self_sends);
  std::fprintf(stderr, "pamir stats: rank %d recv.unexpected %llu\n", rank, (unsigned long long)s.unexpected);
  std::fprintf(stderr, "pamir stats: rank %d send.queued %llu\n", rank, (unsigned long long)s.send_queued);
  std::fprintf(stderr, "pamir stats: rank %d wait.sleeps %llu\n", rank, (unsigned long long)s.sleeps);
  std::fprintf(stderr, "pamir stats: rank %d recv.rdma_reads %llu\n", rank, (unsigned long long)s.rdv_reads);
  std::fprintf(stderr, "pamir stats: rank %d recv.rdma_resends %llu\n", rank,
               (unsigned long long)s.rdv_resends);
  std::fprintf(stderr, "pamir stats: rank %d rdv.origin_armed_bytes %llu\n", rank,
               (unsigned long long)s.rdv_origin_armed);
  std::fprintf(stderr, "pamir stats: rank %d rdv.origin_acked %llu\n", rank,
               (unsigned long long)s.rdv_origin_acked);
  std::fprintf(stderr, "pamir stats: rank %d rdv.target_armed_bytes %llu\n", rank,
               (unsigned long long)s.rdv_target_armed);
  std::fprintf(stderr, "pamir stats: rank %d rdv.target_zero %llu\n", rank,
               (unsigned long long)s.rdv_target_zero);
  std::fprintf(stderr, "pamir stats: rank %d rdv.target_shared %llu\n", rank,
               (unsigned long long)s.rdv_shared);
  std::fprintf(stderr, "pamir stats: rank %d rdv.origin_helped_bytes %llu\n", rank,
               (unsigned long long)s.rdv_helped_bytes);
}

}  // namespace pamir
