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
  std::string nspace;   // short, no '/': "pamir-<pid>"
  uint32_t nranks = 0;  // all on this node
  std::string hostname;
  std::vector<std::string> cpusets;  // per rank, hwloc list syntax; empty when unbound
  std::vector<uint32_t> app_sizes;   // ranks of each application, in rank order; they sum to nranks

  // The application (MPI_APPNUM) of a rank, and the rank's first rank of it.
  size_t app_of(uint32_t rank) const {
    size_t a = 0;
    for (uint32_t first = 0; a + 1 < app_sizes.size() && rank >= first + app_sizes[a]; ++a)
      first += app_sizes[a];
    return a;
  }
  uint32_t app_first(size_t app) const {
    uint32_t first = 0;
    for (size_t a = 0; a < app; ++a) first += app_sizes[a];
    return first;
  }
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
  // Tells the callbacks which process is rank (right after fork).
  void set_pid(uint32_t rank, pid_t pid);
  // Adds the PMIx connection variables for rank to env (a pmix_argv array, NULL-terminated).
  bool setup_fork(uint32_t rank, char ***env, std::string *error);

  // Finalizes libpmix, which releases the namespace, its clients and the server's files (see
  // server.cc for why nothing is deregistered before); safe to call more than once.
  void shutdown();
  // For a job that ended abnormally: libpmix is left as it is and the process must end with
  // _exit (see server.cc). The server made no files (TCP on 127.0.0.1, in-memory data store), so
  // nothing is left behind.
  void abandon() { initialized_ = false; }

 private:
  EventQueue *queue_;
  bool initialized_ = false;
  std::string nspace_;
};

}  // namespace pamir::mpirun
