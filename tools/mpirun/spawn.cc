#include "tools/mpirun/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tools/mpirun/signals.h"

namespace pamir::mpirun {
namespace {

[[noreturn]] void child_fail(const char *what, const char *path, int err) {
  // Only write(2) here: we are between fork and exec in a threaded process.
  const char *reason = strerrordesc_np(err);
  const char *parts[] = {"mpirun: ", what, " '", path, "': ", reason ? reason : "error", "\n"};
  for (const char *p : parts) {
    if (::write(STDERR_FILENO, p, std::strlen(p)) < 0) break;
  }
  _exit(err == ENOENT ? 127 : 126);
}

bool executable_file(const std::string &path, int *err) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    *err = errno;
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *err = EISDIR;
    return false;
  }
  if (::access(path.c_str(), X_OK) != 0) {
    *err = errno;
    return false;
  }
  return true;
}

}  // namespace

bool resolve_program(const std::string &program, const char *path_env, std::string *resolved,
                     std::string *error, int *exit_code) {
  int err = ENOENT;
  if (program.find('/') != std::string::npos) {
    if (executable_file(program, &err)) {
      *resolved = program;
      return true;
    }
  } else if (!program.empty()) {
    std::string path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
    int first_other = 0;  // a match that exists but cannot be run, like execvp reports it
    size_t start = 0;
    while (start <= path.size()) {
      size_t end = path.find(':', start);
      if (end == std::string::npos) end = path.size();
      std::string dir = path.substr(start, end - start);
      std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
      int e = 0;
      if (executable_file(candidate, &e)) {
        *resolved = candidate;
        return true;
      }
      if (e != ENOENT && e != ENOTDIR && first_other == 0) first_other = e;
      start = end + 1;
    }
    if (first_other != 0) err = first_other;
  }
  if (err == ENOENT || err == ENOTDIR) {
    *error = program.find('/') != std::string::npos ? "program '" + program + "' not found"
                                                    : "program '" + program + "' not found in PATH";
    *exit_code = 127;
  } else {
    *error = "program '" + program + "' cannot be executed: " + std::strerror(err);
    *exit_code = 126;
  }
  return false;
}

bool spawn_rank(const RankSpawn &spec, RankProcess *out, std::string *error) {
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return false;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    return false;
  }
  if (pid == 0) {
    // Own process group: mpirun signals the rank and anything it started with kill(-pid).
    ::setpgid(0, 0);
    // Die with mpirun, even if it is SIGKILLed; re-check the parent to close the race with an
    // mpirun that died before the prctl.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(137);
    if (::dup2(spec.stdin_fd, STDIN_FILENO) < 0 || ::dup2(out_pipe[1], STDOUT_FILENO) < 0 ||
        ::dup2(err_pipe[1], STDERR_FILENO) < 0)
      _exit(127);
    // Anything else mpirun holds (libpmix's sockets, other ranks' pipes) must not leak into the rank.
    ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
    restore_for_child();
    if (spec.cpus != nullptr) ::sched_setaffinity(0, sizeof(cpu_set_t), spec.cpus);
    if (spec.wdir != nullptr && ::chdir(spec.wdir) != 0)
      child_fail("cannot change to the working directory", spec.wdir, errno);
    ::execve(spec.path, spec.argv, spec.envp);
    child_fail("cannot execute", spec.path, errno);
  }
  // Also from this side, so a kill(-pid) right after fork cannot miss the group.
  ::setpgid(pid, pid);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
  ::fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);
  out->pid = pid;
  out->stdout_fd = out_pipe[0];
  out->stderr_fd = err_pipe[0];
  return true;
}

}  // namespace pamir::mpirun
