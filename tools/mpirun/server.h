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
