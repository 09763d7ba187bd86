// PAMIR_* settings: declared once here with their defaults, read once from the environment at
// MPI_Init, listed by pamir_info. A bad value is an error that names the variable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pamir::config {

enum class Type { Bool, Size, Count, ProtocolTable, Choice, Text };

struct Setting {
  Setting(const char *n, const char *d, Type t, const char *h, const char *c)
      : name(n), default_value(d), type(t), help(h), choices(c) {}
  const char *name;
  const char *default_value;
  Type type;
  const char *help;
  const char *choices;  // Type::Choice: comma-separated names
  std::string value;    // effective text
  bool from_env = false;
  // Parsed forms, valid after load(); for Type::Choice, number is the index of the choice.
  uint64_t number = 0;
  bool flag = false;
};

// All settings, in the order pamir_info prints them.
std::vector<Setting *> &all();
// Adds a setting of a layer above (the collectives' PAMIR_COLL_*), at static initialisation.
bool add(Setting *s);
Setting *find(const char *name);

// Settings every rank must set alike (MPI_T_SCOPE_ALL_EQ): the protocol tables and the collectives'
// choices (PAMIR_COLL_*). Ranks that differ would choose different protocols or algorithms for one
// message or collective and wait on each other for ever; Context::init refuses to start them.
bool must_agree(const Setting &s);
// "NAME=value\n" for each of them, in the order of all(): what the ranks compare at start.
std::string agreed_text();
// The first of them whose value differs between two agreed_text()s: its name and both values, or false.
bool first_difference(const std::string &mine, const std::string &theirs, std::string &name,
                      std::string &my_value, std::string &their_value);

// Reads every setting from the environment. Returns false with `why` naming the variable and the
// reason. Unknown PAMIR_* variables are reported in `warnings` (a likely typo).
bool load(std::string &why, std::vector<std::string> &warnings);

// Parsers, public for the unit tests.
bool parse_size(const char *text, uint64_t &out);  // "64", "32K", "4M", "1G"
bool parse_bool(const char *text, bool &out);      // 1/0, yes/no, true/false, on/off

// The settings themselves.
extern Setting send_protocols;          // PAMIR_SEND_PROTOCOLS
extern Setting shm_send_protocols;      // PAMIR_SHM_SEND_PROTOCOLS
extern Setting ofi_send_protocols;      // PAMIR_OFI_SEND_PROTOCOLS
extern Setting put_protocols;           // PAMIR_PUT_PROTOCOLS
extern Setting get_protocols;           // PAMIR_GET_PROTOCOLS
extern Setting stats;                   // PAMIR_STATS
extern Setting shm_ring_size;           // PAMIR_SHM_RING_SIZE
extern Setting spin_count;              // PAMIR_SPIN_COUNT
extern Setting sleep_max_us;            // PAMIR_SLEEP_MAX_US
extern Setting device;                  // PAMIR_DEVICE
extern Setting ofi_provider;            // PAMIR_OFI_PROVIDER
extern Setting torus_dims;              // PAMIR_TORUS_DIMS
extern Setting torus_map;               // PAMIR_TORUS_MAP
extern Setting torus_send_protocols;    // PAMIR_TORUS_SEND_PROTOCOLS
extern Setting torus_report;            // PAMIR_TORUS_REPORT
extern Setting torus_fault;             // PAMIR_TORUS_FAULT
extern Setting torus_link_mbps;         // PAMIR_TORUS_LINK_MBPS
extern Setting torus_hop_ns;            // PAMIR_TORUS_HOP_NS
extern Setting ofi_poll_interval;       // PAMIR_OFI_POLL_INTERVAL
extern Setting ofi_credits;             // PAMIR_OFI_CREDITS
extern Setting yield_when_idle;         // PAMIR_YIELD_WHEN_IDLE
extern Setting async_progress;          // PAMIR_ASYNC_PROGRESS
extern Setting async_progress_min;      // PAMIR_ASYNC_PROGRESS_MIN
extern Setting fault;                   // PAMIR_FAULT
extern Setting shm_cma;                 // PAMIR_SHM_CMA
extern Setting shm_shared_copy;         // PAMIR_SHM_SHARED_COPY
extern Setting verbose;                 // PAMIR_VERBOSE
extern Setting check_signature;         // PAMIR_CHECK_SIGNATURE
extern Setting ofi_ack;                 // PAMIR_OFI_ACK
extern Setting dt_chunk_min;            // PAMIR_DT_CHUNK_MIN
extern Setting ofi_dt_chunk_min;        // PAMIR_OFI_DT_CHUNK_MIN
extern Setting pattern_fifo;            // PAMIR_PATTERN_FIFO
extern Setting direct_put;              // PAMIR_DIRECT_PUT
extern Setting mailbox;                 // PAMIR_MAILBOX
extern Setting window_offers;           // PAMIR_WINDOW_OFFERS
extern Setting window_slow_handoff_ns;  // PAMIR_WINDOW_SLOW_HANDOFF_NS
extern Setting window_device_rma;       // PAMIR_WINDOW_DEVICE_RMA
extern Setting window_stream_run;       // PAMIR_WINDOW_STREAM_RUN
extern Setting wtime;                   // PAMIR_WTIME

}  // namespace pamir::config
