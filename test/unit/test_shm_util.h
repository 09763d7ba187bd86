// Helpers for the shm device tests: ranks are real forked processes, the node barrier is a pipe protocol
// coordinated by the test process, and a child reports a failed check on stderr and through its exit code.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace shm_test {

inline unsigned g_rank = ~0u;  // rank of this child, for messages

inline std::string text() {
  return {};
}
inline std::string text(const std::string &s) {
  return s;
}

// In a child: report and exit with status 1 when `cond` is false. An optional second argument (a string)
// says more.
#define SHM_CHECK(cond, ...)                                                                                 \
  do {                                                                                                       \
    if (!(cond)) {                                                                                           \
      std::fprintf(stderr, "[rank %u] %s:%d: check failed: %s %s\n", ::shm_test::g_rank, __FILE__, __LINE__, \
                   #cond, ::shm_test::text(__VA_ARGS__).c_str());                                            \
      _exit(1);                                                                                              \
    }                                                                                                        \
  } while (0)

// splitmix64: cheap, deterministic data both sides can regenerate.
inline uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
inline void fill(void *buf, size_t len, uint64_t seed) {
  auto *p = static_cast<unsigned char *>(buf);
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    const uint64_t w = mix(seed + i);
    std::memcpy(p + i, &w, 8);
  }
  if (i < len) {
    const uint64_t w = mix(seed + i);
    std::memcpy(p + i, &w, len - i);
  }
}
inline uint64_t checksum(const void *buf, size_t len) {
  auto *p = static_cast<const unsigned char *>(buf);
  uint64_t h = 1469598103934665603ull ^ len;
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 1099511628211ull;
    h ^= h >> 29;
  }
  for (; i < len; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// A unique segment path for one test, named like the real ones so a leak is easy to spot.
inline std::string segment_path(const char *tag) {
  static unsigned counter = 0;
  return "/dev/shm/pamir-" + std::to_string(::getuid()) + "-unittest" + std::to_string(::getpid()) + "-" +
         tag + "-" + std::to_string(counter++);
}

inline bool path_exists(const std::string &path) {
  return ::access(path.c_str(), F_OK) == 0;
}

// Runs body(rank, barrier) in n forked processes and waits for them. Returns "" when every child exited
// with status 0, otherwise what went wrong. A child that dies makes the others get killed, and so does the
// deadline, which only guards against hangs (a healthy run takes a small fraction of it).
inline std::string run_ranks(unsigned n,
                             const std::function<void(unsigned, const std::function<int()> &)> &body,
                             unsigned deadline_s = 120) {
  int up[2];
  if (::pipe(up) != 0) return "pipe failed";
  std::vector<int> down_r(n), down_w(n);
  for (unsigned i = 0; i < n; ++i) {
    int d[2];
    if (::pipe(d) != 0) return "pipe failed";
    down_r[i] = d[0];
    down_w[i] = d[1];
  }
  std::fflush(nullptr);
  std::vector<pid_t> pids(n, -1);
  for (unsigned i = 0; i < n; ++i) {
    pid_t pid = ::fork();
    if (pid < 0) return "fork failed";
    if (pid == 0) {
      g_rank = i;
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed test run leaves no ranks behind
      if (::getppid() == 1) _exit(1);
      ::close(up[0]);
      for (unsigned j = 0; j < n; ++j) {
        ::close(down_w[j]);
        if (j != i) ::close(down_r[j]);
      }
      const int upw = up[1], downr = down_r[i];
      std::function<int()> barrier = [upw, downr]() -> int {
        char c = 'b';
        if (::write(upw, &c, 1) != 1) return -1;
        ssize_t r;
        while ((r = ::read(downr, &c, 1)) < 0 && errno == EINTR) {
        }
        return r == 1 ? 0 : -1;
      };
      body(i, barrier);
      std::fflush(nullptr);
      _exit(0);
    }
    pids[i] = pid;
  }
  ::close(up[1]);
  for (unsigned i = 0; i < n; ++i) ::close(down_r[i]);

  std::string err;
  std::vector<int> status(n, -1);
  unsigned alive = n, arrived = 0;
  struct timespec t0, now;
  ::clock_gettime(CLOCK_MONOTONIC, &t0);
  auto reap = [&](bool block) {
    for (unsigned i = 0; i < n; ++i) {
      if (pids[i] < 0) continue;
      int st;
      pid_t r = ::waitpid(pids[i], &st, block ? 0 : WNOHANG);
      if (r == pids[i]) {
        status[i] = st;
        pids[i] = -1;
        --alive;
        if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0) && err.empty())
          err = "rank " + std::to_string(i) +
                (WIFEXITED(st) ? " exited with status " + std::to_string(WEXITSTATUS(st))
                               : " was killed by signal " + std::to_string(WTERMSIG(st)));
      }
    }
  };
  bool eof = false;
  while (alive > 0 && err.empty()) {
    if (!eof) {
      struct pollfd pfd = {up[0], POLLIN, 0};
      if (::poll(&pfd, 1, 50) > 0) {
        char buf[64];
        ssize_t r = ::read(up[0], buf, sizeof buf);
        if (r == 0) eof = true;
        for (ssize_t k = 0; k < r; ++k) {
          if (++arrived == n) {
            arrived = 0;
            for (unsigned i = 0; i < n; ++i) {
              char c = 'g';
              if (::write(down_w[i], &c, 1) != 1) err = "barrier release failed";
            }
          }
        }
      }
    } else {
      ::usleep(10000);
    }
    reap(false);
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    if (err.empty() && now.tv_sec - t0.tv_sec > static_cast<time_t>(deadline_s))
      err = "hang: not finished after " + std::to_string(deadline_s) + " s";
  }
  for (unsigned i = 0; i < n; ++i)
    if (pids[i] > 0) ::kill(pids[i], SIGKILL);
  reap(true);
  ::close(up[0]);
  for (unsigned i = 0; i < n; ++i) ::close(down_w[i]);
  return err;
}

}  // namespace shm_test
