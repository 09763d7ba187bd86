#include "tools/mpirun/signals.h"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>

namespace pamir::mpirun {
namespace {
sigset_t g_original_mask;
struct sigaction g_original_sigpipe;
}  // namespace

int setup_signals() {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGPIPE, &ignore, &g_original_sigpipe);
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) sigaddset(&set, sig);
  if (::sigprocmask(SIG_BLOCK, &set, &g_original_mask) != 0) return -1;
  return ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

void restore_for_child() {
  ::sigaction(SIGPIPE, &g_original_sigpipe, nullptr);
  ::sigprocmask(SIG_SETMASK, &g_original_mask, nullptr);
}

std::vector<int> read_signals(int fd) {
  std::vector<int> sigs;
  signalfd_siginfo info[16];
  for (;;) {
    ssize_t n = ::read(fd, info, sizeof info);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (size_t i = 0; i < static_cast<size_t>(n) / sizeof info[0]; ++i)
      sigs.push_back(static_cast<int>(info[i].ssi_signo));
  }
  return sigs;
}

}  // namespace pamir::mpirun
