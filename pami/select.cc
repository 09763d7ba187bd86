#include "pami/select.h"

#include <cstring>
#include <iterator>

#include "pami/config.h"

namespace pamir {

namespace {
const char *const send_names[] = {"immediate", "eager", "rdma"};
const char *const put_names[] = {"eager", "rdma"};
const char *const get_names[] = {"eager", "rdma"};
static_assert(std::size(send_names) == size_t(SendProtocol::count_));
static_assert(std::size(put_names) == size_t(PutProtocol::count_));
static_assert(std::size(get_names) == size_t(GetProtocol::count_));
}  // namespace

template <>
const char *const *protocol_names<SendProtocol>() {
  return send_names;
}
template <>
const char *const *protocol_names<PutProtocol>() {
  return put_names;
}
template <>
const char *const *protocol_names<GetProtocol>() {
  return get_names;
}

const char *protocol_name(SendProtocol p) {
  return send_names[unsigned(p)];
}
const char *protocol_name(PutProtocol p) {
  return put_names[unsigned(p)];
}
const char *protocol_name(GetProtocol p) {
  return get_names[unsigned(p)];
}

bool parse_ranges(const char *text, const char *const *names, unsigned nnames, unsigned max_ranges,
                  uint64_t *bounds, uint8_t *protos, unsigned &ranges, std::string &why) {
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
    if (n == max_ranges) {
      why = "more than " + std::to_string(max_ranges) + " ranges";
      return false;
    }
    size_t colon = entry.find(':');
    std::string name = entry.substr(0, colon);
    unsigned p = 0;
    while (p < nnames && name != names[p]) ++p;
    if (p == nnames) {
      why = "unknown protocol \"" + name + "\" (known:";
      for (unsigned k = 0; k < nnames; ++k) why += std::string(k ? ", " : " ") + names[k];
      why += ")";
      return false;
    }
    uint64_t bound = UINT64_MAX;
    if (colon != std::string::npos) {
      if (!config::parse_size(entry.c_str() + colon + 1, bound)) {
        why = "bad size \"" + entry.substr(colon + 1) + "\" after " + name;
        return false;
      }
      if (n > 0 && bound <= bounds[n - 1]) {
        why = "bounds must strictly increase (" + entry + ")";
        return false;
      }
    } else {
      last_seen = true;
    }
    bounds[n] = bound;
    protos[n] = uint8_t(p);
    ++n;
  }
  if (!last_seen) {
    why = "the last entry must have no bound (it covers every larger size)";
    return false;
  }
  // The unused tail repeats the last range, so the branch-free count never passes it.
  for (unsigned k = n; k < max_ranges; ++k) {
    bounds[k] = UINT64_MAX;
    protos[k] = protos[n - 1];
  }
  ranges = n;
  return true;
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
