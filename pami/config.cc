#include "pami/config.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

#include "pami/select.h"

extern char **environ;

namespace pamir::config {

Setting send_protocols{"PAMIR_SEND_PROTOCOLS", "device", Type::ProtocolTable,
                       "point-to-point protocol by message size for the peers of every device: "
                       "name:upper-bound,...,name (bounds in bytes, K/M/G suffixes; the last entry has no "
                       "bound), checked against each device's packet; device: each device's own table "
                       "(PAMIR_SHM_SEND_PROTOCOLS, PAMIR_OFI_SEND_PROTOCOLS, which win over this one)",
                       nullptr};
Setting shm_send_protocols{"PAMIR_SHM_SEND_PROTOCOLS", "immediate:192,eager:2K,rdma", Type::ProtocolTable,
                           "the send table of the peers reached through the shm device; same form as "
                           "PAMIR_SEND_PROTOCOLS",
                           nullptr};
Setting ofi_send_protocols{"PAMIR_OFI_SEND_PROTOCOLS", "provider", Type::ProtocolTable,
                           "the send table of the peers reached through the ofi device; same form as "
                           "PAMIR_SEND_PROTOCOLS; provider: the table measured for PAMIR_OFI_PROVIDER "
                           "(pamir_info lists them), or a generic one for a provider not measured",
                           nullptr};
Setting put_protocols{"PAMIR_PUT_PROTOCOLS", "eager:16K,rdma", Type::ProtocolTable,
                      "one-sided put protocol by size: eager (packets the target copies in), rdma (written "
                      "straight into the target's memory); same form as PAMIR_SEND_PROTOCOLS",
                      nullptr};
Setting get_protocols{"PAMIR_GET_PROTOCOLS", "rdma", Type::ProtocolTable,
                      "one-sided get protocol by size: eager (the target answers with packets), rdma (read "
                      "straight from the target's memory); same form as PAMIR_SEND_PROTOCOLS",
                      nullptr};
Setting stats{"PAMIR_STATS", "0", Type::Bool, "print per-protocol message counts at MPI_Finalize", nullptr};
Setting shm_ring_size{"PAMIR_SHM_RING_SIZE", "64K", Type::Size,
                      "bytes of each shared-memory ring between a pair of local ranks (4K to 16M)", nullptr};
Setting spin_count{
    "PAMIR_SPIN_COUNT", "2000", Type::Count,
    "progress polls a blocked call makes before it sleeps on its doorbell (on the torus also "
    "the polls of a synchronous transfer's counter, which yield as PAMIR_YIELD_WHEN_IDLE says)",
    nullptr};
Setting sleep_max_us{"PAMIR_SLEEP_MAX_US", "10000", Type::Count,
                     "longest sleep, in microseconds, before a blocked call polls again", nullptr};
Setting device{"PAMIR_DEVICE", "auto", Type::Choice,
               "how ranks reach each other: auto (shm between ranks of one node, ofi between nodes), shm "
               "(every peer must be on this node), ofi (libfabric for every peer, also on this node), "
               "torus (every peer through the emulated torus's engine, which rank 0 starts; one node)",
               "auto,shm,ofi,torus"};
Setting torus_dims{"PAMIR_TORUS_DIMS", "", Type::Text,
                   "the emulated torus's sizes, 1 to 5 dimensions A to E (4x4x2x2x2), whose product "
                   "divides the job; the quotient is the ranks per node; empty: a balanced "
                   "factorisation of the job, one rank per node (PAMIR_DEVICE=torus only)",
                   nullptr};
Setting torus_map{"PAMIR_TORUS_MAP", "", Type::Text,
                  "the order in which ranks fill the torus: its dimensions' letters and T (the rank "
                  "within a node), the last varying fastest; empty: the letters in order, then T "
                  "(ABCDT for 4 dimensions; PAMIR_DEVICE=torus only)",
                  nullptr};
Setting torus_report{"PAMIR_TORUS_REPORT", "", Type::Text,
                     "with PAMIR_DEVICE=torus: a file the engine writes at the end of the job, a JSON "
                     "report of the packets and bytes on every link and direction, each rank's packets "
                     "and hops, and (apart) the timing model's figures, its virtual times worked out "
                     "again after the run so that they repeat (empty: none)",
                     nullptr};
Setting torus_fault{
    "PAMIR_TORUS_FAULT", "", Type::Text,
    "with PAMIR_DEVICE=torus: links to fail, separated by ';': down:COORDS:LINK (traffic "
    "that meets it takes the escape channel round it) or drop:COORDS:LINK:P:SEED (it drops each "
    "packet with probability P, chosen by SEED; what the packets carried fails with an "
    "error naming the link), as down:1,0:B+ (empty: none)",
    nullptr};
Setting torus_link_mbps{"PAMIR_TORUS_LINK_MBPS", "2000", Type::Count,
                        "with PAMIR_DEVICE=torus: the timing model's link bandwidth per direction, in MB/s "
                        "(Blue Gene/Q's 2 GB/s; 1 to 1000000)",
                        nullptr};
Setting torus_hop_ns{"PAMIR_TORUS_HOP_NS", "40", Type::Count,
                     "with PAMIR_DEVICE=torus: the timing model's latency per hop, in ns (Blue Gene/Q's "
                     "about 40; 0 to 1000000)",
                     nullptr};
Setting torus_send_protocols{"PAMIR_TORUS_SEND_PROTOCOLS", "immediate:256,eager:4K,rdma", Type::ProtocolTable,
                             "the send table of the peers reached through the torus device; same form as "
                             "PAMIR_SEND_PROTOCOLS (immediate and eager go in 512-byte memory-FIFO "
                             "packets, rdma is the engine's remote get)",
                             nullptr};
Setting ofi_provider{"PAMIR_OFI_PROVIDER", "tcp;ofi_rxm", Type::Text,
                     "the libfabric provider of the ofi device, as fi_info names it (tcp;ofi_rxm, net, shm, "
                     "verbs;ofi_rxm, efa, cxi, psm3 ...); a socket provider is pinned to one interface by "
                     "its own variable (FI_TCP_IFACE for tcp, FI_NET_IFACE for net)",
                     nullptr};
Setting ofi_ack{"PAMIR_OFI_ACK", "auto", Type::Choice,
                "how a rendezvous target over ofi acknowledges into its origin's counter: packet (a message "
                "the origin's poll applies), atomic (a remote fetch-free atomic add into the counter, where "
                "the provider has FI_ATOMIC), or auto (the one measured faster for the provider: packet on "
                "every provider measured here)",
                "auto,packet,atomic"};
Setting ofi_credits{"PAMIR_OFI_CREDITS", "32", Type::Count,
                    "packets a peer reached through libfabric may send this process before it hears "
                    "that they were taken: each peer gets this many receive buffers (and 2 for "
                    "credit packets), fewer, down to 4, where the provider's receive queue cannot "
                    "hold that many for every peer; published to peers at start-up (4 to 1024)",
                    nullptr};
Setting ofi_poll_interval{
    "PAMIR_OFI_POLL_INTERVAL", "256", Type::Count,
    "while the shm device delivers, the fabric (whose every poll is a system call "
    "with the tcp provider) is polled once per this many progress passes at least, so "
    "latency inside a node does not pay for it, and less often (up to 65536) while its "
    "polls cost over 1/20 of the time between them; with shm quiet, or when blocked calls yield the "
    "core (PAMIR_YIELD_WHEN_IDLE), it is polled every pass (1: always every pass)",
    nullptr};
Setting yield_when_idle{"PAMIR_YIELD_WHEN_IDLE", "auto", Type::Choice,
                        "a blocked call yields the core between polls, and so does a nonblocking one "
                        "(MPI_Test, MPI_Iprobe, ...) that finds nothing done: auto (when the node's "
                        "ranks, and a torus job's engine, outnumber its usable CPUs), yes, no",
                        "auto,yes,no"};
Setting async_progress{"PAMIR_ASYNC_PROGRESS", "1", Type::Bool,
                       "a nonblocking collective left waiting is advanced by a thread of Pamir's own while "
                       "the application computes; the thread sleeps on the doorbell, and while such a "
                       "collective is in flight every call takes the library lock (0: progress only "
                       "inside MPI calls)",
                       nullptr};
Setting async_progress_min{"PAMIR_ASYNC_PROGRESS_MIN", "256K", Type::Size,
                           "the smallest nonblocking collective (its bytes, as the size tables count them) "
                           "that engages the progress thread: below it the thread's wake-ups cost more "
                           "than they hide",
                           nullptr};
Setting shm_cma{"PAMIR_SHM_CMA", "1", Type::Bool,
                "0: never read a peer's memory (no rendezvous by cross-memory attach); large messages take "
                "the pipelined copy through the shared-memory rings, as when the kernel refuses it",
                nullptr};
Setting shm_shared_copy{"PAMIR_SHM_SHARED_COPY", "auto", Type::Choice,
                        "a rendezvous of 256 KiB or more (32 KiB between non-contiguous datatypes) is "
                        "copied by both ends at once, the receiver "
                        "reading chunks while the waiting sender writes others: auto (when the node's ranks "
                        "do not outnumber its usable CPUs), yes, no",
                        "auto,yes,no"};
Setting verbose{"PAMIR_VERBOSE", "0", Type::Bool,
                "print on stderr the paths chosen per peer and why (for instance large messages through the "
                "rings where cross-memory attach is refused)",
                nullptr};
Setting check_signature{"PAMIR_CHECK_SIGNATURE", "0", Type::Bool,
                        "1: every message carries a hash of its type signature and a receive whose datatype "
                        "does not start with that signature fails with MPI_ERR_TYPE (MPI_BYTE and MPI_PACKED "
                        "match anything); sends then skip the one-packet fast path",
                        nullptr};
Setting dt_chunk_min{"PAMIR_DT_CHUNK_MIN", "4K", Type::Size,
                     "a rendezvous between non-contiguous layouts whose average contiguous piece (on the "
                     "smaller side) is below this goes through the shared-memory rings, packed and unpacked, "
                     "instead of one cross-memory read of many small pieces (0: always read)",
                     nullptr};
Setting ofi_dt_chunk_min{"PAMIR_OFI_DT_CHUNK_MIN", "4K", Type::Size,
                         "PAMIR_DT_CHUNK_MIN for peers reached through ofi: below this average piece a "
                         "non-contiguous rendezvous goes in packets, packed and unpacked, instead of fabric "
                         "reads of the common chunks (0: always read)",
                         nullptr};
Setting pattern_fifo{"PAMIR_PATTERN_FIFO", "65536", Type::Count,
                     "descriptors in the FIFO that persistent requests record their messages into once and "
                     "replay from at every later start (64 bytes each, allocated at the first record); a "
                     "pattern that finds no room takes the ordinary path (0: never record)",
                     nullptr};
Setting direct_put{
    "PAMIR_DIRECT_PUT", "0", Type::Bool,
    "1: a replayed persistent receive of one source and tag (64 KiB to 256 KiB) writes its source a "
    "ready token into the shared memory of the pair, and the replayed send that is that source's next "
    "message puts its data straight into the receive's buffer (seed 004; shm only, single-threaded "
    "runs only); off by default: measured slower than the rendezvous here",
    nullptr};
Setting mailbox{
    "PAMIR_MAILBOX", "1", Type::Bool,
    "a replayed persistent receive of one source and tag (below the rendezvous sizes) writes its "
    "source a ready token into the shared memory of the pair, and the replayed send that is that "
    "source's next message, of at most 32 bytes, goes into the pair's mailbox instead of the ring: "
    "no packet, no matching (seed 004; shm only; 0: never)",
    nullptr};
Setting wtime{"PAMIR_WTIME", "auto", Type::Choice,
              "MPI_Wtime's clock: auto (the time-stamp counter where it is invariant and the kernel's "
              "clocksource, calibrated against CLOCK_MONOTONIC at MPI_Init; else clock_gettime), tsc, clock",
              "auto,tsc,clock"};
Setting window_offers{
    "PAMIR_WINDOW_OFFERS", "1", Type::Bool,
    "one-sided operations on a node rank's MPI_Win_create memory are offered to the target's progress "
    "through the window's shared memory (up to a slot's 16 KiB whole, small ones side by side joined, a "
    "put or get of up to 16 KiB in 4 KiB pieces, batches of up to 64 KiB in whole slots, the target's "
    "half of a larger copy), and taken back and done by cross-memory attach only if the "
    "target does not take them in time (0: always cross-memory attach)",
    nullptr};
Setting window_slow_handoff_ns{
    "PAMIR_WINDOW_SLOW_HANDOFF_NS", "150", Type::Count,
    "where a window's offers measure a cache line's way between two node ranks' cores at or above this "
    "many nanoseconds (a moving average), puts and gets offered from 4 KiB go through memory with streaming "
    "stores, and batches above 16 KiB are shared rather than offered in whole slots (0: always so; "
    "measured only where MPI_Wtime reads the time-stamp counter, else never so)",
    nullptr};
Setting window_device_rma{
    "PAMIR_WINDOW_DEVICE_RMA", "1", Type::Bool,
    "puts and gets to a window rank whose memory this process neither maps nor attaches go through the "
    "device's own RMA where it needs nothing of the target (the torus's engine), into the memory each "
    "rank exposes at the window's creation, so passive target works while the target computes; "
    "accumulates and locks are still served by the target's progress (0: all of them served)",
    nullptr};
Setting window_stream_run{
    "PAMIR_WINDOW_STREAM_RUN", "4M", Type::Size,
    "puts and gets into mapped window memory (MPI_Win_allocate, shared, MPI_Alloc_mem on the node) whose "
    "destinations follow one another, once their run passes this many bytes, copy with streaming stores: "
    "the run's first lines have left the cache before it comes back to them (a bandwidth window), so "
    "stores that read each line first only cost; a copy into the same place again never runs on "
    "(0: never stream)",
    nullptr};
Setting fault{"PAMIR_FAULT", "none", Type::Choice,
              "inject a failure, for tests: none, rdma-read (every rendezvous read fails; both sides "
              "get MPI_ERR_OTHER), or mr-local (the ofi device registers memory as a provider asking "
              "for FI_MR_LOCAL needs: its packet buffers, every read's destination)",
              "none,rdma-read,mr-local"};

std::vector<Setting *> &all() {
  static std::vector<Setting *> list{&send_protocols,
                                     &shm_send_protocols,
                                     &ofi_send_protocols,
                                     &put_protocols,
                                     &get_protocols,
                                     &stats,
                                     &shm_ring_size,
                                     &spin_count,
                                     &sleep_max_us,
                                     &device,
                                     &ofi_provider,
                                     &torus_dims,
                                     &torus_map,
                                     &torus_send_protocols,
                                     &torus_report,
                                     &torus_fault,
                                     &torus_link_mbps,
                                     &torus_hop_ns,
                                     &ofi_ack,
                                     &ofi_poll_interval,
                                     &ofi_credits,
                                     &yield_when_idle,
                                     &async_progress,
                                     &async_progress_min,
                                     &shm_cma,
                                     &shm_shared_copy,
                                     &verbose,
                                     &check_signature,
                                     &dt_chunk_min,
                                     &ofi_dt_chunk_min,
                                     &pattern_fifo,
                                     &direct_put,
                                     &mailbox,
                                     &window_offers,
                                     &window_slow_handoff_ns,
                                     &window_device_rma,
                                     &window_stream_run,
                                     &wtime,
                                     &fault};
  return list;
}

bool add(Setting *s) {
  all().push_back(s);
  return true;
}

bool must_agree(const Setting &s) {
  const std::string_view n = s.name;
  return n.starts_with("PAMIR_COLL_") || n.find("PROTOCOLS") != std::string_view::npos;
}

std::string agreed_text() {
  std::string text;
  for (const Setting *s : all())
    if (must_agree(*s)) text.append(s->name).append("=").append(s->value).append("\n");
  return text;
}

namespace {
// The value of `name` in an agreed_text(), or false when it is not there.
bool value_in(const std::string &text, const std::string &name, std::string &value) {
  const std::string key = name + "=";
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (text.compare(at, key.size(), key) == 0) {
      value = text.substr(at + key.size(), end - at - key.size());
      return true;
    }
    at = end + 1;
  }
  return false;
}
}  // namespace

bool first_difference(const std::string &mine, const std::string &theirs, std::string &name,
                      std::string &my_value, std::string &their_value) {
  for (const Setting *s : all()) {
    if (!must_agree(*s)) continue;
    std::string a, b;
    const bool in_a = value_in(mine, s->name, a), in_b = value_in(theirs, s->name, b);
    if (in_a != in_b || a != b) {
      name = s->name, my_value = in_a ? a : "(not a setting here)",
      their_value = in_b ? b : "(not a setting there)";
      return true;
    }
  }
  return false;
}

Setting *find(const char *name) {
  for (Setting *s : all())
    if (std::strcmp(s->name, name) == 0) return s;
  return nullptr;
}

bool parse_size(const char *text, uint64_t &out) {
  if (!text || !std::isdigit(static_cast<unsigned char>(*text))) return false;
  char *end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (errno) return false;
  uint64_t mult = 1;
  switch (*end) {
    case '\0':
      break;
    case 'k':
    case 'K':
      mult = 1ull << 10;
      ++end;
      break;
    case 'm':
    case 'M':
      mult = 1ull << 20;
      ++end;
      break;
    case 'g':
    case 'G':
      mult = 1ull << 30;
      ++end;
      break;
    default:
      return false;
  }
  if (*end == 'B' || *end == 'b') ++end;
  if (*end != '\0') return false;
  if (v > UINT64_MAX / mult) return false;
  out = v * mult;
  return true;
}

bool parse_bool(const char *text, bool &out) {
  static const struct {
    const char *word;
    bool value;
  } words[] = {{"1", true},    {"0", false},     {"yes", true}, {"no", false},
               {"true", true}, {"false", false}, {"on", true},  {"off", false}};
  for (const auto &w : words)
    if (strcasecmp(text, w.word) == 0) {
      out = w.value;
      return true;
    }
  return false;
}

static bool parse(Setting &s, const char *text, std::string &why) {
  switch (s.type) {
    case Type::Bool:
      if (!parse_bool(text, s.flag)) {
        why = "expected 0 or 1 (or yes/no, true/false, on/off)";
        return false;
      }
      s.number = s.flag;
      return true;
    case Type::Size:
    case Type::Count:
      if (!parse_size(text, s.number)) {
        why = s.type == Type::Size ? "expected a size such as 65536, 64K or 4M" : "expected a whole number";
        return false;
      }
      if (&s == &shm_ring_size &&
          (s.number < 4096 || s.number > (16u << 20) || (s.number & (s.number - 1)))) {
        why = "expected a power of two from 4K to 16M";
        return false;
      }
      if (&s == &ofi_poll_interval && (s.number < 1 || s.number > (uint64_t(1) << 20))) {
        why = "expected a whole number from 1 to 1048576";
        return false;
      }
      if (&s == &ofi_credits && (s.number < 4 || s.number > 1024)) {
        why = "expected a whole number from 4 to 1024";
        return false;
      }
      if (&s == &pattern_fifo && s.number > (uint64_t(1) << 24)) {
        why = "expected at most 16M descriptors (1 GiB)";
        return false;
      }
      return true;
    case Type::ProtocolTable: {
      // Each class has its own protocol names; what a device can serve is checked at MPI_Init.
      SendTable st;
      PutTable pt;
      GetTable gt;
      if (&s == &put_protocols) return parse_table(text, pt, why);
      // The words that leave the choice to the devices (Context::send_table_text).
      if ((&s == &send_protocols && std::strcmp(text, "device") == 0) ||
          (&s == &ofi_send_protocols && std::strcmp(text, "provider") == 0))
        return true;
      if (&s == &get_protocols) return parse_table(text, gt, why);
      return parse_table(text, st, why);
    }
    case Type::Choice: {
      // number is the index of the choice in the list, so callers switch on it without comparing text.
      std::string list = s.choices;
      size_t pos = 0;
      for (uint64_t index = 0; pos <= list.size(); ++index) {
        size_t comma = list.find(',', pos);
        if (comma == std::string::npos) comma = list.size();
        if (list.compare(pos, comma - pos, text) == 0 && std::strlen(text) == comma - pos) {
          s.number = index;
          return true;
        }
        pos = comma + 1;
      }
      why = std::string("expected one of: ") + s.choices;
      return false;
    }
    case Type::Text:
      return true;  // its user checks it (a path is opened at MPI_Init)
  }
  return false;
}

namespace {
// Variables of the project's own scripts (scripts/common.sh, scripts/test, test/*/run.sh) and of its
// launcher: they share the PAMIR_ prefix but are not library settings, so they are not reported as typos.
constexpr const char *script_variables[] = {
    "PAMIR_JOBS",
    "PAMIR_BUILD_DIR",
    "PAMIR_PREFIX",
    "PAMIR_SAN_BUILD_DIR",
    "PAMIR_SAN_PREFIX",
    "PAMIR_NO_APT",
    "PAMIR_SANITIZER_PASS",
    "PAMIR_PHASE_TIMEOUT",
    "PAMIR_TEST_QUICK",
    "PAMIR_TEST_KEEP",
    "PAMIR_TEST_CASES",
    "PAMIR_FUZZ_SECONDS",
    "PAMIR_FUZZ_SEED",
    "PAMIR_FUZZ_CXX",
    "PAMIR_MULTINODE",
    "PAMIR_MULTINODE_PAMIR",
    "PAMIR_MULTINODE_TIMEOUT",
    "PAMIR_MN_DEBUG",
    // Set by Pamir's mpirun for its ranks (the job's size, for MPI_Info_create_env before MPI_Init).
    "PAMIR_JOB_SIZE",
};

bool is_script_variable(const std::string &name) {
  for (const char *v : script_variables)
    if (name == v) return true;
  return false;
}
}  // namespace

bool load(std::string &why, std::vector<std::string> &warnings) {
  for (Setting *s : all()) {
    const char *env = std::getenv(s->name);
    s->from_env = env != nullptr;
    const char *text = env ? env : s->default_value;
    std::string reason;
    if (!parse(*s, text, reason)) {
      why = std::string(s->name) + "=\"" + text + "\" is not valid: " + reason;
      return false;
    }
    s->value = text;
  }
  for (char **e = environ; e && *e; ++e) {
    if (std::strncmp(*e, "PAMIR_", 6) != 0) continue;
    std::string name(*e, std::strcspn(*e, "="));
    if (!find(name.c_str()) && !is_script_variable(name))
      warnings.push_back("unknown setting " + name + " is ignored (pamir_info lists them all)");
  }
  return true;
}

}  // namespace pamir::config
