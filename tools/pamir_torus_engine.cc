// The torus job's messaging unit as a process of its own (devices/torus/engine.h): started by a torus
// job's rank 0 with the path of the area the job's ranks share, it serves them until they detach.
#include <cstdio>

#include "devices/torus/engine.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: pamir_torus_engine AREA\n"
                 "The torus device's engine; a torus job's rank 0 starts it (PAMIR_DEVICE=torus).\n");
    return 2;
  }
  return pamir::torus::serve_area(argv[1]);
}
