// Starting one rank: fork, put it in its own process group, tie its life to mpirun's
// (PR_SET_PDEATHSIG), wire its stdio to pipes, bind it, exec. Also: finding the program first.
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace pamir::mpirun {

// Resolves program like execvp would (PATH from the ranks' environment). On failure returns false
// with a message and the exit code to use: 127 not found, 126 found but not executable.
bool resolve_program(const std::string &program, const char *path_env, std::string *resolved,
                     std::string *error, int *exit_code);

struct RankSpawn {
  const char *path;       // resolved program
  char *const *argv;      // NULL-terminated
  char *const *envp;      // NULL-terminated
  int stdin_fd;           // becomes the rank's fd 0 (a pipe from mpirun, or /dev/null)
  const cpu_set_t *cpus;  // nullptr: unbound
  const char *wdir;       // the rank's working directory; nullptr: mpirun's
};

struct RankProcess {
  pid_t pid = -1;
  int stdout_fd = -1;  // read ends, non-blocking, close-on-exec
  int stderr_fd = -1;
};

// Prepared entirely before fork: the child only makes async-signal-safe calls (libpmix runs a
// thread in this process). Returns false with a message if the fork itself failed; a failing exec
// shows up as the rank exiting with 127 after printing why on its stderr.
bool spawn_rank(const RankSpawn &spec, RankProcess *out, std::string *error);

}  // namespace pamir::mpirun
