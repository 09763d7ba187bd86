// How a process learns about its job: the PMIx client, or a singleton when no launcher started it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pamir {

class Bootstrap {
 public:
  // Connects to the PMIx server; with none, becomes a singleton of size 1, unless the environment
  // shows that a launcher without PMIx (srun without --mpi=pmix, MPICH's hydra, ...) started this
  // process as one of several: then it fails, naming that launcher. Returns 0, or 1 with a message
  // in `why`.
  int init(std::string &why);
  void finalize();

  uint32_t rank() const { return rank_; }
  uint32_t size() const { return size_; }
  uint32_t local_rank() const { return local_rank_; }
  uint32_t local_size() const { return static_cast<uint32_t>(local_peers_.size()); }
  // Job ranks on this node, ascending; local_peers()[local_rank()] == rank().
  const std::vector<uint32_t> &local_peers() const { return local_peers_; }
  const std::string &nspace() const { return nspace_; }
  uint32_t appnum() const { return appnum_; }
  uint32_t universe_size() const { return universe_size_; }
  bool singleton() const { return singleton_; }
  const std::string &hostname() const { return hostname_; }

  // The node of every rank (index: rank), numbered from 0 in the order of each node's lowest rank, so
  // every rank computes the same numbers: from every rank's PMIX_HOSTNAME, or every rank's PMIX_NODEID
  // where the launcher gives no host names. Empty when the launcher gives neither for every rank. Read at the
  // first call, one PMIx_Get per rank answered from the local server's copy of the job's data.
  const std::vector<uint32_t> &nodes();

  // Business cards: publish a blob under a key, make it visible (fence), read a peer's blob.
  int put(const char *key, const void *data, size_t len);
  int fence(bool collect_data);
  int get(uint32_t rank, const char *key, std::vector<uint8_t> &out);
  // Ends the whole job (the launcher kills every rank) with the given exit code and message.
  [[noreturn]] void abort(int code, const char *msg);

 private:
  uint32_t rank_ = 0, size_ = 1, local_rank_ = 0, appnum_ = 0, universe_size_ = 1;
  std::vector<uint32_t> local_peers_{0};
  std::vector<uint32_t> nodes_;
  bool nodes_read_ = false;
  std::string nspace_ = "singleton", hostname_;
  bool singleton_ = true, connected_ = false;
  void *proc_ = nullptr;  // pmix_proc_t, kept opaque so this header needs no PMIx
};

// The name of the node's shared-memory segment of a job. mpirun removes every file that matches it
// when the job ends, so a rank that died before unlinking cannot leave one behind.
std::string shm_segment_path(const std::string &nspace, const std::string &hostname);

}  // namespace pamir
