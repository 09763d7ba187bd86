#include "tools/mpirun/signals.h"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>

namespace pamir::mpirun {

int setup_signals() {
  ::signal(SIGPIPE, SIG_IGN);
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) sigaddset(&set, sig);
  if (::sigprocmask(SIG_BLOCK, &set, nullptr) != 0) return -1;
  return ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
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
