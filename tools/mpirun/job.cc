#include "tools/mpirun/job.h"

#include <signal.h>
#include <sys/wait.h>

#include <cstring>
#include <utility>

#include "tools/mpirun/output.h"

namespace pamir::mpirun {
namespace {

// An exit code as the shell would report it: 0..255, never 0 for a failure.
int failure_code(int code) {
  int c = code & 0xff;
  return c != 0 ? c : 1;
}

const char *signal_name(int sig) {
  const char *s = strsignal(sig);
  return s != nullptr ? s : "unknown signal";
}

}  // namespace

void Job::rank_started(uint32_t rank, pid_t pid, OutputStream out, OutputStream err) {
  RankState &r = ranks_[rank];
  r.pid = pid;
  r.out = std::move(out);
  r.err = std::move(err);
  ++started_;
}

int Job::rank_of(pid_t pid) const {
  for (size_t i = 0; i < ranks_.size(); ++i)
    if (ranks_[i].pid == pid) return static_cast<int>(i);
  return -1;
}

void Job::note_exit(uint32_t rank, int wait_status) {
  RankState &r = ranks_[rank];
  if (r.exited) return;
  r.exited = true;
  ++exited_;
  pending_exits_.emplace_back(rank, wait_status);
}

void Job::apply_exits() {
  for (auto [rank, status] : std::exchange(pending_exits_, {})) {
    RankState &r = ranks_[rank];
    // Its last words first, then why the job ends.
    r.out.drain_and_close();
    r.err.drain_and_close();
    if (ending_) continue;  // the job is already ending: this is one of the ranks we stopped
    if (WIFSIGNALED(status)) {
      int sig = WTERMSIG(status);
      say("rank %u (pid %d) killed by signal %d (%s)%s; ending the job", rank, r.pid, sig, signal_name(sig),
          WCOREDUMP(status) ? ", core dumped" : "");
      end_job(128 + sig, SIGTERM);
    } else if (WIFEXITED(status)) {
      int code = WEXITSTATUS(status);
      if (r.connected && !r.finalized) {
        say("rank %u (pid %d) exited with code %d before MPI_Finalize; ending the job", rank, r.pid, code);
        end_job(failure_code(code), SIGTERM);
      } else if (code != 0) {
        say("rank %u (pid %d) exited with code %d; ending the job", rank, r.pid, code);
        end_job(code, SIGTERM);
      }
    }
  }
}

void Job::handle(const Event &event) {
  RankState *r = nullptr;
  if (event.rank < started_) r = &ranks_[event.rank];
  switch (event.kind) {
    case EventKind::kConnected:
      if (r != nullptr) r->connected = true;
      break;
    case EventKind::kFinalized:
      if (r != nullptr) r->finalized = true;
      break;
    case EventKind::kAbort:
      if (!ending_) {
        if (event.message.empty()) {
          say("rank %u called MPI_Abort with code %d", event.rank, event.status);
        } else {
          say("rank %u called MPI_Abort with code %d: %s", event.rank, event.status, event.message.c_str());
        }
        end_job(event.status == 0 ? 0 : failure_code(event.status), SIGTERM);
      }
      break;
  }
}

void Job::signal_received(int sig) {
  if (sig == SIGUSR1 || sig == SIGUSR2) {
    signal_all(sig);
    return;
  }
  if (!ending_) {
    say("received signal %d (%s); forwarding it to the ranks and ending the job", sig, signal_name(sig));
    ending_signal_ = sig;
    end_job(128 + sig, sig);
  } else if (!killed_) {
    // Asked twice: no more grace.
    signal_all(SIGKILL);
    killed_ = true;
  }
}

void Job::timed_out(const std::string &seconds) {
  if (ending_) return;
  say("job timed out after %s s (--timeout/MPIEXEC_TIMEOUT); ending the job", seconds.c_str());
  end_job(kTimeoutExitCode, SIGTERM);
}

void Job::launch_failed(const std::string &why) {
  if (ending_) return;
  say("%s; ending the job", why.c_str());
  end_job(1, SIGTERM);
}

void Job::tick(Clock::time_point now) {
  if (ending_ && !killed_ && now >= kill_deadline_) {
    signal_all(SIGKILL);
    killed_ = true;
  }
}

Clock::time_point Job::next_deadline() const {
  return ending_ && !killed_ ? kill_deadline_ : Clock::time_point::max();
}

void Job::end_job(int code, int sig) {
  ending_ = true;
  exit_code_ = code;
  signal_all(sig);
  kill_deadline_ = Clock::now() + grace_;
}

void Job::signal_all(int sig) {
  for (const RankState &r : ranks_) {
    if (r.pid <= 0 || r.exited) continue;
    // The rank's process group (the rank and whatever it started); the pid alone if the group is
    // not there yet.
    if (::kill(-r.pid, sig) != 0) ::kill(r.pid, sig);
  }
}

void Job::finish() {
  if (!ending_) return;
  for (const RankState &r : ranks_)
    if (r.pid > 0) ::kill(-r.pid, SIGKILL);
}

}  // namespace pamir::mpirun
