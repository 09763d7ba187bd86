// Removing what a job may leave in /dev/shm: the library names its node segment
// /dev/shm/pamir-<uid>-<nspace>-<hostname> and unlinks it once every rank is attached; a rank that
// dies before that leaves it behind, so mpirun removes every pamir-<uid>-<nspace>-* at job end.
#pragma once

#include <string>

namespace pamir::mpirun {

// The file name prefix of the job's shared-memory files, "pamir-<uid>-<nspace>-".
std::string shm_prefix(const std::string &nspace);

// Unlinks every file in dir (normally /dev/shm) whose name starts with prefix; returns how many.
int remove_shm_files(const std::string &dir, const std::string &prefix);

}  // namespace pamir::mpirun
