// The PMIx server side of mpirun: libpmix initialisation, the server module (whose callbacks only
// queue events, see events.h), namespace and client registration, and an orderly shutdown.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tools/mpirun/events.h"

namespace pamir::mpirun {

struct JobLayout {
  std::string nspace;                // short, no '/': "pamir-<pid>"
  uint32_t nranks = 0;               // all on this node
  std::string hostname;
  std::vector<std::string> cpusets;  // per rank, hwloc list syntax; empty when unbound
};

class PmixServer {
 public:
  explicit PmixServer(EventQueue *queue) : queue_(queue) {}
  ~PmixServer() { shutdown(); }
  PmixServer(const PmixServer &) = delete;
  PmixServer &operator=(const PmixServer &) = delete;

  // Each returns false with a message in *error.
  bool init(std::string *error);
  bool register_job(const JobLayout &layout, std::string *error);
  bool register_client(uint32_t rank, std::string *error);
  // Adds the PMIx connection variables for rank to env (a pmix_argv array, NULL-terminated).
  bool setup_fork(uint32_t rank, char ***env, std::string *error);

  // Deregisters clients and the namespace and finalizes libpmix; safe to call more than once.
  // Events still queued are completed first so no client stays blocked in libpmix.
  void shutdown();

 private:
  EventQueue *queue_;
  bool initialized_ = false;
  bool nspace_registered_ = false;
  std::string nspace_;
  std::vector<uint32_t> clients_;
};

}  // namespace pamir::mpirun
