// The job's state and the rules for ending it. Everything here runs on the event loop's thread.
//
// A rank that is killed by a signal, exits non-zero, or exits (even with 0) after connecting to
// PMIx but before PMIx_Finalize ends the job: one line on stderr names the rank, its pid and the
// cause; every other rank gets SIGTERM and, after a grace period, SIGKILL. MPI_Abort, --timeout and
// a signal to mpirun end the job the same way. The first cause decides the exit code.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tools/mpirun/events.h"
#include "tools/mpirun/iof.h"

namespace pamir::mpirun {

// mpirun's exit code when the job ran out of time.
constexpr int kTimeoutExitCode = 124;

struct RankState {
  pid_t pid = -1;
  bool connected = false;  // PMIx_Init reached us: from now on exiting before finalize is a failure
  bool finalized = false;  // PMIx_Finalize reached us
  bool exited = false;
  OutputStream out, err;
};

class Job {
 public:
  Job(uint32_t nranks, Clock::duration grace) : ranks_(nranks), grace_(grace) {}

  void rank_started(uint32_t rank, pid_t pid, OutputStream out, OutputStream err);
  std::vector<RankState> &ranks() { return ranks_; }
  int rank_of(pid_t pid) const;  // -1 if none
  uint32_t started() const { return started_; }

  // Records an exit seen by waitpid; apply_exits() acts on it after the PMIx events queued so far
  // were handled (a rank's PMIx_Finalize is always queued before the rank can exit).
  void note_exit(uint32_t rank, int wait_status);
  void apply_exits();
  void handle(const Event &event);

  void signal_received(int sig);
  void timed_out(const std::string &seconds);
  void launch_failed(const std::string &why);  // ends the job with exit code 1
  void tick(Clock::time_point now);            // SIGKILL once the grace period is over
  Clock::time_point next_deadline() const;

  bool ending() const { return ending_; }
  bool all_exited() const { return exited_ == started_; }
  int exit_code() const { return exit_code_; }
  // After every rank is reaped: on an abnormal end, SIGKILL whatever the ranks left in their
  // process groups.
  void finish();

 private:
  void end_job(int code, int sig);
  void signal_all(int sig);

  std::vector<RankState> ranks_;
  std::vector<std::pair<uint32_t, int>> pending_exits_;
  Clock::duration grace_;
  uint32_t started_ = 0;
  uint32_t exited_ = 0;
  bool ending_ = false;
  bool killed_ = false;
  int exit_code_ = 0;
  int ending_signal_ = 0;  // the signal mpirun received, if that is why the job ends
  Clock::time_point kill_deadline_ = Clock::time_point::max();
};

}  // namespace pamir::mpirun
