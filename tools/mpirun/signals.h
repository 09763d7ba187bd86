// The signals mpirun handles arrive through a signalfd in its event loop: SIGCHLD (a rank ended),
// SIGINT/SIGTERM/SIGHUP/SIGQUIT (forward and end the job), SIGUSR1/SIGUSR2 (forward). SIGPIPE is
// ignored (a closed stdout must not kill the launcher). Ranks get the default dispositions back.
#pragma once

#include <vector>

namespace pamir::mpirun {

// Must run before any thread is created (libpmix's progress thread inherits the blocked mask).
// Returns the signalfd, or -1.
int setup_signals();

// The signals that arrived since the last call (non-blocking).
std::vector<int> read_signals(int fd);

}  // namespace pamir::mpirun
