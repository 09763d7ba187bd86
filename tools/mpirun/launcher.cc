#include "tools/mpirun/launcher.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "devices/torus/geometry.h"
#include "tools/mpirun/binding.h"
#include "tools/mpirun/cleanup.h"
#include "tools/mpirun/environment.h"
#include "tools/mpirun/events.h"
#include "tools/mpirun/iof.h"
#include "tools/mpirun/job.h"
#include "tools/mpirun/output.h"
#include "tools/mpirun/server.h"
#include "tools/mpirun/signals.h"
#include "tools/mpirun/spawn.h"

namespace pamir::mpirun {
namespace {

constexpr auto kGrace = std::chrono::seconds(1);  // SIGTERM, then this long, then SIGKILL
constexpr auto kShutdownLimit = std::chrono::seconds(5);

// Ends mpirun with the job's exit code if libpmix's shutdown does not return in time: the job is
// over and cleaned up by then, and a hung launcher is worse than an unfinished PMIx_server_finalize.
class Watchdog {
 public:
  Watchdog(std::chrono::seconds limit, int exit_code)
      : thread_([this, limit, exit_code] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!cv_.wait_for(lock, limit, [this] { return done_; })) {
            say("libpmix did not shut down within %lld s; exiting anyway",
                static_cast<long long>(limit.count()));
            _exit(exit_code);
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// fds 0-2 must be open, or a pipe created later could land on them and be clobbered in the child.
void ensure_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) >= 0) continue;
    int null = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (null >= 0 && null != fd) {
      ::dup2(null, fd);
      ::close(null);
    }
  }
}

std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

int poll_timeout_ms(Clock::time_point now, Clock::time_point deadline) {
  if (deadline == Clock::time_point::max()) return -1;
  if (deadline <= now) return 0;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
  return static_cast<int>(std::min<long long>(ms, INT_MAX));
}

// Collects every rank that ended (waitpid), before the PMIx events of this round are handled.
void reap(Job &job) {
  for (;;) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    int rank = job.rank_of(pid);
    if (rank >= 0) job.note_exit(static_cast<uint32_t>(rank), status);
  }
}

// What the ranks leave as this subreaper's children once they are all reaped (a torus job's engine, which
// ends by itself within milliseconds of its ranks): waited for up to `limit`, then killed, so that the
// job leaves no process behind.
void reap_orphans(Clock::duration limit) {
  const Clock::time_point deadline = Clock::now() + limit;
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) continue;
    if (pid < 0) return;  // ECHILD: none left
    if (Clock::now() >= deadline) break;
    ::usleep(10 * 1000);
  }
  const std::string me = std::to_string(::getpid());
  if (DIR *d = ::opendir("/proc")) {
    while (dirent *e = ::readdir(d)) {
      const std::string stat = std::string("/proc/") + e->d_name + "/stat";
      FILE *f =
          std::isdigit(static_cast<unsigned char>(e->d_name[0])) ? std::fopen(stat.c_str(), "r") : nullptr;
      if (!f) continue;
      char line[512] = {};
      const bool got = std::fgets(line, sizeof line, f) != nullptr;
      std::fclose(f);
      const char *close = got ? std::strrchr(line, ')') : nullptr;  // the name may hold spaces
      char state = 0;
      int ppid = 0;
      if (close && std::sscanf(close + 1, " %c %d", &state, &ppid) == 2 && std::to_string(ppid) == me)
        ::kill(static_cast<pid_t>(std::atoi(e->d_name)), SIGKILL);
    }
    ::closedir(d);
  }
  while (::waitpid(-1, nullptr, 0) > 0) {
  }
}

void event_loop(Job &job, EventQueue &queue, StdinForwarder &stdin_fwd, int sigfd,
                Clock::time_point timeout_at, const std::string &timeout_text) {
  enum Kind { kSignal, kQueue, kStdinIn, kStdinOut, kRankOut, kRankErr };
  std::vector<pollfd> fds;
  std::vector<std::pair<Kind, uint32_t>> what;
  auto watch = [&](int fd, short events, Kind kind, uint32_t rank = 0) {
    if (fd < 0) return;
    fds.push_back(pollfd{fd, events, 0});
    what.emplace_back(kind, rank);
  };
  while (!job.all_exited()) {
    fds.clear();
    what.clear();
    watch(sigfd, POLLIN, kSignal);
    watch(queue.fd(), POLLIN, kQueue);
    watch(stdin_fwd.source_fd(), POLLIN, kStdinIn);
    watch(stdin_fwd.sink_fd(), POLLOUT, kStdinOut);
    Clock::time_point deadline =
        std::min(job.next_deadline(), job.ending() ? Clock::time_point::max() : timeout_at);
    auto &ranks = job.ranks();
    for (uint32_t r = 0; r < job.started(); ++r) {
      watch(ranks[r].out.fd(), POLLIN, kRankOut, r);
      watch(ranks[r].err.fd(), POLLIN, kRankErr, r);
      deadline = std::min({deadline, ranks[r].out.deadline(), ranks[r].err.deadline()});
    }
    int n = ::poll(fds.data(), fds.size(), poll_timeout_ms(Clock::now(), deadline));
    if (n < 0 && errno != EINTR) job.launch_failed(std::string("poll failed: ") + strerror(errno));
    const Clock::time_point now = Clock::now();
    for (size_t i = 0; n > 0 && i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      auto [kind, rank] = what[i];
      switch (kind) {
        case kSignal:
          for (int sig : read_signals(sigfd))
            if (sig != SIGCHLD) job.signal_received(sig);
          break;
        case kStdinIn:
          stdin_fwd.on_input();
          break;
        case kStdinOut:
          stdin_fwd.on_output();
          break;
        case kRankOut:
          ranks[rank].out.on_readable();
          break;
        case kRankErr:
          ranks[rank].err.on_readable();
          break;
        case kQueue:
          break;  // drained below, every round
      }
    }
    // Order matters: exits first, then the PMIx events, then act on the exits. A client is held in
    // PMIx_Init/PMIx_Finalize until its event is handled, so an exit seen here comes after any
    // event that it could have sent before.
    reap(job);
    for (const Event &e : queue.drain()) job.handle(e);
    job.apply_exits();
    if (job.ending() || (ranks.size() > 0 && ranks[0].exited)) stdin_fwd.stop();
    for (uint32_t r = 0; r < job.started(); ++r) {
      ranks[r].out.flush_partial(now, false);
      ranks[r].err.flush_partial(now, false);
    }
    if (now >= timeout_at) job.timed_out(timeout_text);
    job.tick(now);
  }
}

// --output-filename: rank r's stdout and stderr go to DIR/1/rank.r/{stdout,stderr} (Open MPI's
// layout; "1" is the job), made as needed, truncated. False (with *error) when they cannot be.
bool open_output_files(const std::string &dir, uint32_t r, int *out_fd, int *err_fd, std::string *error) {
  std::string path;
  for (const std::string &part : {dir, std::string("1"), "rank." + std::to_string(r)}) {
    path += (path.empty() ? "" : "/") + part;
    if (::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST) {
      *error = "cannot make the output directory " + path + ": " + std::strerror(errno);
      return false;
    }
  }
  *out_fd = ::open((path + "/stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  *err_fd = ::open((path + "/stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (*out_fd < 0 || *err_fd < 0) {
    *error = "cannot write the output files in " + path + ": " + std::strerror(errno);
    if (*out_fd >= 0) ::close(*out_fd);
    if (*err_fd >= 0) ::close(*err_fd);
    return false;
  }
  return true;
}

}  // namespace

int run_job(const Options &options) {
  ensure_standard_fds();
  const Clock::time_point started_at = Clock::now();
  Fd sigfd(setup_signals());
  if (sigfd.get() < 0) {
    say("cannot set up signal handling: %s", strerror(errno));
    return 1;
  }
  prepare_own_environment();
  // A job of a thousand ranks holds a few descriptors for each (its output pipes): the soft limit is
  // raised to the hard one, as a shell's ulimit -n would.
  if (struct rlimit l; ::getrlimit(RLIMIT_NOFILE, &l) == 0 && l.rlim_cur < l.rlim_max) {
    l.rlim_cur = l.rlim_max;
    (void)::setrlimit(RLIMIT_NOFILE, &l);
  }
  // What a rank starts and leaves behind (a torus job's engine, which rank 0 starts as an orphan) is
  // ours to reap, not left a zombie of an init that may never collect it (reap() takes any child).
  (void)::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  // Each application's environment (the global -x, then its own) and program. Nothing is started
  // before we know every program can run.
  const size_t napps = options.apps.size();
  std::vector<std::vector<std::string>> envs(napps);
  std::vector<std::string> programs(napps), wdirs(napps);
  std::vector<std::vector<char *>> argvs(napps);
  std::string error;
  for (size_t a = 0; a < napps; ++a) {
    const App &app = options.apps[a];
    Exports exports = options.exports;
    exports.insert(exports.end(), app.exports.begin(), app.exports.end());
    // -wdir: an absolute directory that exists, which the rank's PWD names too.
    if (const std::string &wdir = app.wdir.empty() ? options.wdir : app.wdir; !wdir.empty()) {
      char *real = ::realpath(wdir.c_str(), nullptr);
      struct stat st;
      if (real == nullptr || ::stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
        say("cannot use '%s' as the working directory: %s", wdir.c_str(),
            real == nullptr ? strerror(errno) : "not a directory");
        std::free(real);
        return 1;
      }
      wdirs[a] = real;
      std::free(real);
      exports.emplace_back("PWD", wdirs[a]);
    }
    envs[a] = rank_environment(exports);
    int code = 0;
    if (!resolve_program(app.command[0], find_variable(envs[a], "PATH"), &programs[a], &error, &code)) {
      say("%s", error.c_str());
      return code;
    }
    // A program found relative to mpirun's directory stays that one after the rank changes directory.
    if (!wdirs[a].empty() && programs[a][0] != '/') {
      char *real = ::realpath(programs[a].c_str(), nullptr);
      if (real != nullptr) programs[a] = real;
      std::free(real);
    }
    for (const std::string &arg : app.command) argvs[a].push_back(const_cast<char *>(arg.c_str()));
    argvs[a].push_back(nullptr);
  }

  // A lone application without -n takes one rank per core; an MPMD job's applications each gave theirs.
  int nranks = 0;
  for (const App &app : options.apps) nranks += app.nranks;
  std::vector<Binding> binding;
  if (!plan_binding(options, &nranks, &binding, &error)) {
    say("%s", error.c_str());
    return 1;
  }
  if (options.report_bindings)
    for (int r = 0; r < nranks; ++r) {
      const Binding &b = binding[size_t(r)];
      if (b.bound)
        say("rank %d is bound to CPUs %s", r, b.list.c_str());
      else
        say("rank %d is not bound", r);
    }

  // The job's size before the ranks can ask the server: MPI_Info_create_env's maxprocs before MPI_Init.
  for (std::vector<std::string> &env : envs) {
    std::erase_if(env, [](const std::string &e) { return e.starts_with("PAMIR_JOB_SIZE="); });
    env.push_back("PAMIR_JOB_SIZE=" + std::to_string(nranks));
  }
  // --torus: checked here, so that a torus that does not fit the job fails before anything starts.
  if (!options.torus.empty()) {
    const std::string dims = options.torus == "auto" ? "" : options.torus;
    torus::Geometry g;
    const char *map = find_variable(envs[0], "PAMIR_TORUS_MAP");
    if (!g.make(uint32_t(nranks), dims, map ? map : "", error, "--torus")) {
      say("%s", error.c_str());
      return 1;
    }
    for (std::vector<std::string> &env : envs) {
      std::erase_if(env, [](const std::string &e) {
        return e.starts_with("PAMIR_DEVICE=") || e.starts_with("PAMIR_TORUS_DIMS=");
      });
      env.push_back("PAMIR_DEVICE=torus");
      env.push_back("PAMIR_TORUS_DIMS=" + dims);
    }
  }

  JobLayout layout;
  layout.nspace = "pamir-" + std::to_string(::getpid());
  layout.nranks = static_cast<uint32_t>(nranks);
  layout.hostname = host_name();
  for (const Binding &b : binding) layout.cpusets.push_back(b.bound ? b.list : "");
  for (size_t a = 0; a < napps; ++a)
    layout.app_sizes.push_back(napps == 1 ? layout.nranks : static_cast<uint32_t>(options.apps[a].nranks));

  EventQueue queue;
  Job job(layout.nranks, kGrace);
  int exit_code = 0;
  {
    PmixServer server(&queue);
    if (!server.init(&error) || !server.register_job(layout, &error)) {
      say("%s", error.c_str());
      return 1;
    }
    StdinForwarder stdin_fwd;
    Fd rank0_stdin(stdin_fwd.start());
    Fd devnull(::open("/dev/null", O_RDONLY | O_CLOEXEC));

    for (uint32_t r = 0; r < layout.nranks; ++r) {
      const size_t a = layout.app_of(r);
      char **rank_env = to_pmix_argv(envs[a]);
      bool ok = server.register_client(r, &error) && server.setup_fork(r, &rank_env, &error);
      RankProcess proc;
      if (ok) {
        RankSpawn spec{programs[a].c_str(),
                       argvs[a].data(),
                       rank_env,
                       r == 0 ? rank0_stdin.get() : devnull.get(),
                       binding[r].bound ? &binding[r].cpus : nullptr,
                       wdirs[a].empty() ? nullptr : wdirs[a].c_str()};
        ok = spawn_rank(spec, &proc, &error);
        if (ok) server.set_pid(r, proc.pid);
      }
      free_pmix_argv(rank_env);
      if (!ok) {
        job.launch_failed("cannot start rank " + std::to_string(r) + ": " + error);
        break;
      }
      const std::string tag = "[1," + std::to_string(r) + "]";
      int out_fd = STDOUT_FILENO, err_fd = STDERR_FILENO;
      const bool to_files = !options.output_dir.empty();
      if (to_files && !open_output_files(options.output_dir, r, &out_fd, &err_fd, &error)) {
        job.launch_failed(error);
        break;
      }
      job.rank_started(
          r, proc.pid,
          OutputStream(proc.stdout_fd, out_fd, options.tag_output ? tag + "<stdout>:" : "", to_files),
          OutputStream(proc.stderr_fd, err_fd, options.tag_output ? tag + "<stderr>:" : "", to_files));
    }
    rank0_stdin.reset();  // rank 0 has its copy

    Clock::time_point timeout_at = Clock::time_point::max();
    if (options.timeout_s > 0)
      timeout_at = started_at + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(options.timeout_s));
    event_loop(job, queue, stdin_fwd, sigfd.get(), timeout_at, options.timeout_text);
    job.finish();
    reap_orphans(kGrace);
    stdin_fwd.stop();
    exit_code = job.exit_code();
    // Every rank is reaped: nothing can create the job's files any more.
    remove_shm_files("/dev/shm", shm_prefix(layout.nspace));
    if (job.ending()) {
      // Abnormal end: libpmix may be damaged by the dropped connections (see server.cc); it made no
      // files, so leave it alone and exit without running its teardown or atexit handlers.
      server.abandon();
      std::_Exit(exit_code);
    }
    Watchdog watchdog(kShutdownLimit, exit_code);
    server.shutdown();
  }
  return exit_code;
}

}  // namespace pamir::mpirun
