#include "pami/send_tables.h"

#include <cstring>

#include "devices/ofi/ofi_device.h"
#include "devices/shm/shm_device.h"
#include "devices/torus/torus_device.h"
#include "pami/config.h"
#include "pami/dispatch.h"

namespace pamir {

// Measured with benchmarks/latency.c and bw.c, 2 ranks, PAMIR_DEVICE=ofi on one host
// (docs/performance.md, "Send tables per device"). Immediate: a packet copied into a send buffer costs
// no more than the eager path's header and request, so every provider's immediate range reaches 4 KiB.
// Eager ends where reading from the origin starts to win: over tcp a read costs a round trip more (at
// 64 KiB eager took 1.3-1.4 GB/s, the read 1.7-1.9), while the shm provider's read is one cross-memory
// copy that beats two packets (16 KiB in 3.8-5 us against 8.8 eager).
const ProviderTable kProviderTables[] = {
    {"tcp;ofi_rxm", "immediate:4K,eager:32K,rdma"},
    {"tcp", "immediate:4K,eager:32K,rdma"},
    {"net", "immediate:4K,eager:32K,rdma"},
    {"net;ofi_rxm", "immediate:4K,eager:32K,rdma"},
    {"shm", "immediate:4K,rdma"},
};
const unsigned kProviderTableCount = sizeof kProviderTables / sizeof kProviderTables[0];
const char *const kGenericOfiTable = "immediate:192,eager:16K,rdma";

namespace {

const char *provider_table(const std::string &provider) {
  for (const ProviderTable &t : kProviderTables)
    if (provider == t.provider) return t.send_protocols;
  return kGenericOfiTable;
}

}  // namespace

SendTableChoice send_table_choice(Path path) {
  const bool ofi = path == Path::ofi, torus = path == Path::torus;
  const config::Setting &own = ofi     ? config::ofi_send_protocols
                               : torus ? config::torus_send_protocols
                                       : config::shm_send_protocols;
  const config::Setting &every = config::send_protocols;
  SendTableChoice c;
  if (ofi) {
    c.limit = dev::OfiDevice::payload_limit(sizeof(MsgHeader));
    c.limit_why = "ofi packets of " + std::to_string(dev::OfiDevice::kPacketBytes) + " bytes";
  } else if (torus) {
    c.limit = dev::TorusDevice::payload_limit(sizeof(MsgHeader));
    c.limit_why = "torus packets of " + std::to_string(torus::kPacketPayload) + " bytes";
  } else {
    c.limit = dev::ShmDevice::payload_limit(size_t(config::shm_ring_size.number), sizeof(MsgHeader));
    c.limit_why = "shm packets with PAMIR_SHM_RING_SIZE=" + config::shm_ring_size.value;
  }
  if (own.from_env && !(ofi && own.value == "provider")) {
    c.text = own.value;
    c.origin = own.name;
    c.from_env = true;
  } else if (every.from_env && every.value != "device") {
    c.text = every.value;
    c.origin = every.name;
    c.from_env = true;
  } else if (ofi) {
    c.text = provider_table(config::ofi_provider.value);
    c.origin = "the table of provider " + config::ofi_provider.value;
  } else {
    c.text = own.value;
    c.origin = own.name;
  }
  return c;
}

bool load_send_table(Path path, SendTable &out, std::string &why) {
  const SendTableChoice c = send_table_choice(path);
  if (!parse_table(c.text.c_str(), out, why) || !check_send_table(out, c.limit, c.limit_why, why)) {
    why = (c.origin.rfind("PAMIR_", 0) == 0 ? c.origin + "=\"" + c.text + "\""
                                            : c.origin + ", \"" + c.text + "\",") +
          " is not valid: " + why;
    return false;
  }
  return true;
}

}  // namespace pamir
