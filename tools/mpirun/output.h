// Writing to mpirun's own stdout/stderr: whole buffers, retried, never raising SIGPIPE.
// Only the main thread writes, so lines from different ranks never interleave.
#pragma once

#include <cstddef>
#include <string_view>

namespace pamir::mpirun {

// Writes all of data to fd (waits if fd is non-blocking and full). Errors such as EPIPE drop the
// rest silently: a closed terminal must not stop the job's clean-up.
void write_all(int fd, std::string_view data);

// Prints "mpirun: <formatted>\n" on stderr in one write.
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace pamir::mpirun
