// pamir_info: what this Pamir build is and how it is set up -- version, MPI and ABI versions, devices,
// the effective protocol table, every PAMIR_* setting (value, default, help) and the procedures of the
// standard that are not implemented yet. Reads the settings exactly as MPI_Init does (config::load), so
// a bad PAMIR_* value fails here the same way, naming the variable. Does not initialise MPI.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "collectives/reduce_ops.h"
#include "collectives/registry.h"
#include "devices/ofi/ofi_device.h"
#include "devices/torus/area.h"
#include "devices/torus/geometry.h"
#include "mpi.h"
#include "pami/config.h"
#include "pami/context.h"
#include "pami/select.h"
#include "pami/send_tables.h"

namespace pamir::abi {
// Generated into mpi/bindings.cc by mpi/gen/gen_bindings.py.
// nullptr-terminated:
__attribute__((visibility("hidden"))) extern const char *const unsupported_procedures[];
__attribute__((visibility("hidden"))) extern const std::size_t unsupported_count;
}  // namespace pamir::abi

namespace {

using pamir::config::Setting;
using pamir::config::Type;

const char *const usage_text =
    "usage: pamir_info [--settings | --unsupported | --version | --torus N | --help]\n"
    "Prints what this Pamir build is and how it is set up: version, MPI and ABI versions, devices,\n"
    "the effective send-protocol table, every PAMIR_* setting with its value, default and help, and\n"
    "the MPI procedures that are not implemented yet (they return MPI_ERR_UNSUPPORTED_OPERATION).\n"
    "Settings are read from the environment as MPI_Init reads them: a bad value is an error (exit 1).\n"
    "  --settings     print only the PAMIR_* settings\n"
    "  --unsupported  print only the unsupported procedures, one per line\n"
    "  --version      print only the version line\n"
    "  --torus N      the torus a job of N ranks gets under PAMIR_DEVICE=torus (with PAMIR_TORUS_DIMS\n"
    "                 and PAMIR_TORUS_MAP as set): its geometry, each rank's coordinates, the memory\n"
    "                 each rank shares with the engine\n"
    "  --help         this text\n";

struct Device {
  const char *name;
  bool built;
  const char *what;
  // Which peers it reaches under each PAMIR_DEVICE choice (auto, shm, ofi, torus), in that order.
  const char *use[4];
};

// Devices of DESIGN.md; the ones not built yet are listed so users know what is coming.
const Device devices[] = {
    {"shm",
     true,
     "shared memory between the ranks of one node (rings per pair, CMA for RDMA)",
     {"used for the ranks of this node", "used for every peer (all must be on this node)", "not used",
      "not used"}},
    {"ofi",
     true,
     "libfabric FI_EP_RDM (verbs, efa, cxi, tcp, shm), loaded with dlopen when some peer needs it",
     {"used for the ranks of other nodes", "not used", "used for every peer", "not used"}},
    {"torus",
     true,
     "an emulated Blue Gene/Q-style torus: descriptor FIFOs that pamir_torus_engine carries hop by hop",
     {"not used", "not used", "not used", "used for every peer (all must be on this node)"}},
};

// Sections are separated by one blank line.
bool printed_section = false;
void section() {
  if (printed_section) std::putchar('\n');
  printed_section = true;
}

const char *type_name(Type t) {
  switch (t) {
    case Type::Bool:
      return "boolean";
    case Type::Size:
      return "size";
    case Type::Count:
      return "count";
    case Type::ProtocolTable:
      return "protocol table";
    case Type::Choice:
      return "choice";
    case Type::Text:
      return "text";
  }
  return "?";
}

void print_version() {
  section();
  std::printf("Pamir %s\n", PACKAGE_VERSION);
  std::printf("  MPI version       %d.%d\n", MPI_VERSION, MPI_SUBVERSION);
  std::printf(
      "  ABI version       %d.%d (MPI 5.0 standard ABI; library libmpi_abi.so.1, link name libmpi.so)\n",
      MPI_ABI_VERSION, MPI_ABI_SUBVERSION);
}

void print_devices() {
  section();
  std::printf("Devices (%zu)\n", sizeof(devices) / sizeof(devices[0]));
  const uint64_t choice = pamir::config::device.number;  // PAMIR_DEVICE: auto, shm, ofi, torus
  for (const Device &d : devices) {
    std::printf("  %-6s %-14s %s\n", d.name, d.built ? "built" : "not built yet", d.what);
    if (d.built)
      std::printf("  %-6s %-14s %s (PAMIR_DEVICE=%s)\n", "", "", d.use[choice],
                  pamir::config::device.value.c_str());
    // libfabric's answer for the provider the ofi device would open (loading libfabric to ask).
    if (std::strcmp(d.name, "ofi") == 0)
      std::printf("  %-6s %-14s PAMIR_OFI_PROVIDER=%s: %s\n", "", "",
                  pamir::config::ofi_provider.value.c_str(),
                  pamir::dev::OfiDevice::describe(pamir::config::ofi_provider.value,
                                                  unsigned(pamir::config::ofi_credits.number))
                      .c_str());
  }
}

template <typename Table>
bool print_table(const Setting &s, const char *what, std::string &out) {
  Table table;
  std::string why;
  if (!pamir::parse_table(s.value.c_str(), table, why)) {
    std::fprintf(stderr, "pamir_info: %s=\"%s\" is not valid: %s\n", s.name, s.value.c_str(), why.c_str());
    return false;
  }
  char head[256];
  std::snprintf(head, sizeof head, "%s by size in bytes (%s=%s%s)\n", what, s.name, s.value.c_str(),
                s.from_env ? ", from the environment" : ", the default");
  out += head;
  out += "  shm  " + pamir::format_table(table) + "\n";
  // Context::init marks every ofi peer as one whose memory cannot be reached directly.
  out += "  ofi  every transfer by packets (eager): the ofi device offers no one-sided RMA yet\n";
  return true;
}

// Send tables are per device (pami/send_tables.h): each with where it came from and the packet that
// bounds its immediate range; then the tables measured per ofi provider.
bool print_send_tables(std::string &out) {
  const Setting &every = pamir::config::send_protocols;
  out += "Send protocols by size in bytes, per device (" + std::string(every.name) + "=" + every.value +
         (every.from_env ? ", from the environment)\n" : ", the default)\n");
  for (pamir::Path path : {pamir::Path::shm, pamir::Path::ofi, pamir::Path::torus}) {
    pamir::SendTable table;
    std::string why;
    if (!pamir::load_send_table(path, table, why)) {
      std::fprintf(stderr, "pamir_info: %s\n", why.c_str());
      return false;
    }
    const pamir::SendTableChoice c = pamir::send_table_choice(path);
    char line[512];
    std::snprintf(line, sizeof line,
                  "  %-4s %s\n       (%s%s; %s: immediate carries at most %llu bytes: %s)\n",
                  pamir::path_name(path), pamir::format_table(table).c_str(), c.origin.c_str(),
                  c.from_env ? ", from the environment" : "", pamir::path_name(path),
                  (unsigned long long)c.limit, c.limit_why.c_str());
    out += line;
  }
  out += "  ofi tables measured per provider (PAMIR_OFI_SEND_PROTOCOLS=provider):\n";
  for (unsigned k = 0; k < pamir::kProviderTableCount; ++k)
    out += "    " + std::string(pamir::kProviderTables[k].provider) +
           std::string(14 - std::min<size_t>(13, std::strlen(pamir::kProviderTables[k].provider)), ' ') +
           pamir::kProviderTables[k].send_protocols + "\n";
  out += "    any other     " + std::string(pamir::kGenericOfiTable) + "\n";
  return true;
}

// One table per operation class; only send has a range (immediate) that a device bounds.
bool print_protocols() {
  std::string text;
  if (!print_send_tables(text) ||
      !print_table<pamir::PutTable>(pamir::config::put_protocols, "Put protocols", text) ||
      !print_table<pamir::GetTable>(pamir::config::get_protocols, "Get protocols", text))
    return false;
  section();
  std::fputs(text.c_str(), stdout);
  return true;
}

// Each collective's size classes, its ordered (mask, care) list with the bits spelled out, and its
// algorithms: what the selection of seed 002 does with this environment (PAMIR_COLL_*).
bool print_collectives() {
  std::string why;
  if (!pamir::coll::registry_init(why)) {
    std::fprintf(stderr, "pamir_info: %s\n", why.c_str());
    return false;
  }
  section();
  std::printf(
      "Collective algorithms (per collective: its size classes; its list, where the first entry whose bits "
      "match a call wins; its algorithms. PAMIR_COLL_<NAME> forces one)\n");
  std::fputs(pamir::coll::describe_selection().c_str(), stdout);
  if (!pamir::coll::reduce_init(why)) {
    std::fprintf(stderr, "pamir_info: %s\n", why.c_str());
    return false;
  }
  std::printf("Reduction kernels: %s (PAMIR_REDUCE_ISA; this CPU runs:",
              pamir::coll::reduce_isa_name(pamir::coll::reduce_isa()));
  for (unsigned i = 0; i < unsigned(pamir::coll::ReduceIsa::count_); ++i)
    if (pamir::coll::reduce_isa_supported(pamir::coll::ReduceIsa(i)))
      std::printf(" %s", pamir::coll::reduce_isa_name(pamir::coll::ReduceIsa(i)));
  std::printf(")\n");
  return true;
}

void print_settings() {
  const std::vector<Setting *> &all = pamir::config::all();
  section();
  std::printf("Settings (%zu; environment variables read once at MPI_Init)\n", all.size());
  for (const Setting *s : all) {
    std::printf("  %s=%s%s\n", s->name, s->value.c_str(), s->from_env ? "   (set in the environment)" : "");
    std::printf("      default %s; %s", s->default_value, type_name(s->type));
    if (s->type == Type::Choice && s->choices) std::printf(" (one of: %s)", s->choices);
    std::printf("\n      %s\n", s->help);
  }
}

void print_unsupported() {
  section();
  std::printf("Unsupported procedures (%zu; each returns MPI_ERR_UNSUPPORTED_OPERATION naming itself)\n",
              pamir::abi::unsupported_count);
  for (const char *const *p = pamir::abi::unsupported_procedures; *p; ++p) std::printf("  %s\n", *p);
}

// What a torus job of `ranks` ranks gets: the geometry, the map, every rank's coordinates and node, and
// the memory of the area (per rank, in all) that rank 0 makes before the job starts.
bool print_torus(uint32_t ranks) {
  pamir::torus::Geometry g;
  std::string why;
  if (!g.make(ranks, pamir::config::torus_dims.value, pamir::config::torus_map.value, why)) {
    std::fprintf(stderr, "pamir_info: %s\n", why.c_str());
    return false;
  }
  std::printf("Torus for %u ranks: %s\n", ranks, g.describe().c_str());
  std::printf("  %u nodes, %d rank%s per node, %zu links (one per direction per dimension)\n", g.nodes(),
              g.per_node(), g.per_node() == 1 ? "" : "s", size_t(g.nodes()) * size_t(g.ndims()) * 2);
  std::printf(
      "  per rank: %u injection descriptors of %zu bytes with %u-byte lookaside payloads, %u reception\n"
      "  packets of %zu bytes, %u counters, %u base-address entries, %u pattern FIFOs of %u descriptors:\n"
      "  %zu KiB shared with the engine (%.1f MiB for the job, in /dev/shm)\n",
      pamir::torus::kInjectionSlots, sizeof(pamir::torus::Descriptor), pamir::torus::kPacketPayload,
      pamir::torus::kReceptionSlots, sizeof(pamir::torus::ReceptionSlot), pamir::torus::kCounters,
      pamir::torus::kBases, pamir::torus::kPatternFifos, pamir::torus::kPatternSlots,
      sizeof(pamir::torus::RankBlock) / 1024, double(pamir::torus::area_bytes(ranks)) / (1024.0 * 1024.0));
  std::printf("  rank  node  coordinates (%.*s, T)\n", g.ndims(), "ABCDE");
  for (uint32_t r = 0; r < ranks; ++r) {
    const pamir::torus::Coords c = g.coords(r);
    std::string at;
    for (int d = 0; d < g.ndims(); ++d) at += (d ? "," : "") + std::to_string(c.at[size_t(d)]);
    std::printf("  %4u  %4u  (%s, %d)\n", r, g.node(c), at.c_str(), c.t);
  }
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  enum class Only { all, settings, unsupported, version, torus } only = Only::all;
  unsigned long torus_ranks = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!std::strcmp(a, "--help") || !std::strcmp(a, "-h")) {
      std::fputs(usage_text, stdout);
      return 0;
    } else if (!std::strcmp(a, "--settings")) {
      only = Only::settings;
    } else if (!std::strcmp(a, "--unsupported")) {
      only = Only::unsupported;
    } else if (!std::strcmp(a, "--version")) {
      only = Only::version;
    } else if (!std::strcmp(a, "--torus") && i + 1 < argc) {
      char *end = nullptr;
      torus_ranks = std::strtoul(argv[++i], &end, 10);
      if (*end || torus_ranks == 0 || torus_ranks > (1ul << 20)) {
        std::fprintf(stderr, "pamir_info: --torus takes a number of ranks (1 to 1048576), not \"%s\"\n",
                     argv[i]);
        return 2;
      }
      only = Only::torus;
    } else {
      std::fprintf(stderr, "pamir_info: unknown option \"%s\"\n%s", a, usage_text);
      return 2;
    }
  }
  if (only == Only::version) {
    std::printf("pamir_info (Pamir) %s\n", PACKAGE_VERSION);
    return 0;
  }

  std::string why;
  std::vector<std::string> warnings;
  if (!pamir::config::load(why, warnings)) {
    std::fprintf(stderr, "pamir_info: %s\n", why.c_str());
    return 1;
  }
  for (const std::string &w : warnings) std::fprintf(stderr, "pamir_info: warning: %s\n", w.c_str());

  switch (only) {
    case Only::settings:
      print_settings();
      break;
    case Only::unsupported:
      print_unsupported();
      break;
    case Only::torus:
      if (!print_torus(uint32_t(torus_ranks))) return 1;
      break;
    default:
      print_version();
      print_devices();
      if (!print_protocols()) return 1;
      if (!print_collectives()) return 1;
      print_settings();
      print_unsupported();
      break;
  }
  return std::fflush(stdout) == 0 ? 0 : 1;
}
