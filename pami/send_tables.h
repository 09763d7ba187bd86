// The send tables the devices bring (seed 000 per device): each peer's messages are selected by the
// table of the device that reaches it, checked against that device's packet. Where a table's text
// comes from, first match wins:
//   1. the device's own variable set in the environment (PAMIR_SHM_SEND_PROTOCOLS, PAMIR_OFI_SEND_PROTOCOLS);
//   2. PAMIR_SEND_PROTOCOLS set to a table (every device's);
//   3. the device's default: shm's is PAMIR_SHM_SEND_PROTOCOLS's default, ofi's the one measured for
//      the provider (kProviderTables), or a generic one for a provider not measured.
// Used by the context at MPI_Init and by pamir_info, before any device exists.
#pragma once

#include <cstdint>
#include <string>

#include "pami/select.h"
#include "pami/stats.h"

namespace pamir {

struct SendTableChoice {
  std::string text;       // the table as written
  std::string origin;     // where it came from: a variable's name, or "the table of provider tcp;ofi_rxm"
  bool from_env = false;  // set by the user rather than a default
  uint64_t limit = 0;     // the largest immediate payload the device's packet carries
  std::string limit_why;  // where that limit comes from
};

// The choice for the peers of `path` (shm or ofi; self takes shm's: a message to oneself never meets a
// device, and the node's table is what its protocol checks mean). Reads the loaded settings.
SendTableChoice send_table_choice(Path path);

// Parses and checks the choice; false with a message naming the variable, its text and the bad part.
bool load_send_table(Path path, SendTable &out, std::string &why);

// The tables measured per ofi provider: the provider as PAMIR_OFI_PROVIDER names it, and its table.
struct ProviderTable {
  const char *provider;
  const char *send_protocols;
};
extern const ProviderTable kProviderTables[];
extern const unsigned kProviderTableCount;
// What a provider not in kProviderTables gets.
extern const char *const kGenericOfiTable;

}  // namespace pamir
