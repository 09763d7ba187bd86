// Notices that a rank of this host ended without MPI_Finalize. Under srun or another PMIx launcher no
// launcher of ours watches the ranks: Slurm 22.05's PMIx plugin cancels the step some 0.2 s later but
// names no MPI rank, and a launcher that does not would leave a rank blocked on the dead one for good.
// One pidfd per local peer, polled at most every kIntervalMs from the context's idle path.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace pamir {

class PeerWatch {
 public:
  static constexpr unsigned kIntervalMs = 10;
  static constexpr uint32_t kNone = UINT32_MAX;
  PeerWatch() = default;
  PeerWatch(const PeerWatch &) = delete;
  PeerWatch &operator=(const PeerWatch &) = delete;
  ~PeerWatch() { clear(); }

  // Watches `task`, whose process is `pid` in this pid namespace (the caller has checked that it is);
  // false when the kernel gives no pidfd (the peer is then not watched).
  bool add(uint32_t task, pid_t pid);
  // The first watched task whose process has ended and that `finished` does not excuse (a peer that
  // passed MPI_Finalize), or kNone. Looks at most once per kIntervalMs; cheap between looks.
  template <class Finished>
  uint32_t check(Finished &&finished) {
    if (fds_.empty() || !due()) return kNone;
    if (::poll(fds_.data(), fds_.size(), 0) <= 0) return kNone;
    for (size_t i = 0; i < fds_.size(); ++i)
      if ((fds_[i].revents & POLLIN) && !finished(tasks_[i])) return tasks_[i];
    return kNone;
  }
  pid_t pid_of(uint32_t task) const;
  size_t size() const { return fds_.size(); }
  void clear();

 private:
  bool due();
  std::vector<struct pollfd> fds_;
  std::vector<uint32_t> tasks_;
  std::vector<pid_t> pids_;
  uint64_t next_ns_ = 0;
};

}  // namespace pamir
