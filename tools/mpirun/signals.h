// The signals mpirun handles arrive through a signalfd in its event loop: SIGCHLD (a rank ended),
// SIGINT/SIGTERM/SIGHUP/SIGQUIT (forward and end the job), SIGUSR1/SIGUSR2 (forward). SIGPIPE is
// ignored (a closed stdout must not kill the launcher). Ranks get mpirun's original mask and SIGPIPE
// disposition back (restore_for_child), so a signal ignored by whoever started mpirun (nohup, a
// shell's background job) stays ignored, as with any other launcher.
#pragma once

#include <vector>

namespace pamir::mpirun {

// Must run before any thread is created (libpmix's progress thread inherits the blocked mask).
// Returns the signalfd, or -1.
int setup_signals();

// The signals that arrived since the last call (non-blocking).
std::vector<int> read_signals(int fd);

// In a forked child before exec: async-signal-safe.
void restore_for_child();

}  // namespace pamir::mpirun
