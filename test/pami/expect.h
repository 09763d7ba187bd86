// The check of the PAMI-layer test programs: a failed condition prints the rank, the place, the
// condition and a message, and is counted; the program sums `failures` over the ranks at its end.
#pragma once

#include <cstdio>

namespace pamir::test {

inline int failures = 0;
inline int checks = 0;
inline int me = 0;  // this process's rank, set by main

}  // namespace pamir::test

#define EXPECT(cond, ...)                                                                         \
  do {                                                                                            \
    ++::pamir::test::checks;                                                                      \
    if (!(cond)) {                                                                                \
      std::fprintf(stderr, "rank %d: %s:%d: %s: ", ::pamir::test::me, __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                                          \
      std::fputc('\n', stderr);                                                                   \
      ++::pamir::test::failures;                                                                  \
    }                                                                                             \
  } while (0)
