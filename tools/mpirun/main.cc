// mpirun / mpiexec: Pamir's launcher. See launcher.h for the life of a job and job.h for how it ends.
#include "tools/mpirun/launcher.h"
#include "tools/mpirun/options.h"

int main(int argc, char **argv) {
  pamir::mpirun::Options options;
  if (int code = pamir::mpirun::parse_options(argc, argv, &options); code >= 0) return code;
  return pamir::mpirun::run_job(options);
}
