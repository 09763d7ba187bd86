#include "pami/select.h"

#include <cstring>

#include "pami/config.h"

namespace pamir {

static const char *const protocol_names[] = {"immediate", "eager", "rdma"};
static_assert(sizeof(protocol_names) / sizeof(protocol_names[0]) == size_t(SendProtocol::count_));

const char *protocol_name(SendProtocol p) {
  return protocol_names[unsigned(p)];
}

bool parse_send_table(const char *text, SendTable &out, std::string &why) {
  SendTable t;
  std::string s(text ? text : "");
  if (s.empty()) {
    why = "empty protocol list";
    return false;
  }
  size_t pos = 0;
  unsigned n = 0;
  bool last_seen = false;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    std::string entry = s.substr(pos, comma - pos);
    pos = comma + 1;
    if (last_seen) {
      why = "an entry without a bound must be the last";
      return false;
    }
    if (n == SendTable::max_ranges) {
      why = "more than " + std::to_string(SendTable::max_ranges) + " ranges";
      return false;
    }
    size_t colon = entry.find(':');
    std::string name = entry.substr(0, colon);
    unsigned p = 0;
    while (p < unsigned(SendProtocol::count_) && name != protocol_names[p]) ++p;
    if (p == unsigned(SendProtocol::count_)) {
      why = "unknown protocol \"" + name + "\" (known: immediate, eager, rdma)";
      return false;
    }
    uint64_t bound = UINT64_MAX;
    if (colon != std::string::npos) {
      if (!config::parse_size(entry.c_str() + colon + 1, bound)) {
        why = "bad size \"" + entry.substr(colon + 1) + "\" after " + name;
        return false;
      }
      if (n > 0 && bound <= t.bounds[n - 1]) {
        why = "bounds must strictly increase (" + entry + ")";
        return false;
      }
    } else {
      last_seen = true;
    }
    t.bounds[n] = bound;
    t.protos[n] = SendProtocol(p);
    ++n;
  }
  if (!last_seen) {
    why = "the last entry must have no bound (it covers every larger size)";
    return false;
  }
  for (unsigned k = n; k < SendTable::max_ranges; ++k) {
    t.bounds[k] = UINT64_MAX;
    t.protos[k] = t.protos[n - 1];
  }
  t.ranges = n;
  out = t;
  return true;
}

std::string format_send_table(const SendTable &t) {
  std::string s;
  uint64_t lo = 0;
  for (unsigned k = 0; k < t.ranges; ++k) {
    if (k) s += ", ";
    s += protocol_name(t.protos[k]);
    s += " [" + std::to_string(lo) + ", ";
    s += t.bounds[k] == UINT64_MAX ? std::string("inf)") : std::to_string(t.bounds[k]) + "]";
    lo = t.bounds[k] + 1;
  }
  return s;
}

bool check_send_table(const SendTable &t, uint64_t immediate_limit, const std::string &limit_why,
                      std::string &why) {
  for (unsigned k = 0; k < t.ranges; ++k) {
    if (t.protos[k] != SendProtocol::immediate || t.bounds[k] <= immediate_limit) continue;
    why = t.bounds[k] == UINT64_MAX
              ? std::string("immediate cannot be the last, unbounded range")
              : "immediate:" + std::to_string(t.bounds[k]) + " does not fit in one packet";
    why += ": a packet carries at most " + std::to_string(immediate_limit) + " bytes (" + limit_why + ")";
    return false;
  }
  return true;
}

}  // namespace pamir
