// stdio forwarding. Each rank's stdout and stderr arrive on pipes; whole lines are copied to mpirun's
// stdout/stderr (with the --tag-output prefix), so lines of different ranks never mix mid-line. A
// partial line is held until its newline, or printed after kPartialLineDelay (prompts without a
// newline) or when the buffer grows past kMaxLine. mpirun's stdin goes to rank 0 only.
#pragma once

#include <unistd.h>

#include <chrono>
#include <string>
#include <string_view>

namespace pamir::mpirun {

using Clock = std::chrono::steady_clock;

class OutputStream {
 public:
  static constexpr std::chrono::milliseconds kPartialLineDelay{200};
  static constexpr size_t kMaxLine = 64 * 1024;

  OutputStream() = default;
  // own_dest: dest_fd is a file of this stream's own (--output-filename), closed with it.
  OutputStream(int source_fd, int dest_fd, std::string prefix, bool own_dest = false);
  ~OutputStream() { close(); }
  OutputStream(OutputStream &&other) noexcept;
  OutputStream &operator=(OutputStream &&other) noexcept;
  OutputStream(const OutputStream &) = delete;
  OutputStream &operator=(const OutputStream &) = delete;

  int fd() const { return fd_; }  // -1 once closed
  // Reads what is there (non-blocking) and prints complete lines. At end of file prints the rest
  // and closes the pipe.
  void on_readable();
  // Prints a partial line that has waited long enough (or at once with force).
  void flush_partial(Clock::time_point now, bool force);
  // When a held partial line is due; time_point::max() if none.
  Clock::time_point deadline() const;
  // Reads until the pipe is empty, prints everything, closes it (the rank is gone).
  void drain_and_close();
  void close();

 private:
  void emit(std::string_view text);  // prefixed lines to dest
  int read_once();                   // 1: data consumed, 0: end of file (closed), -1: nothing now
  void finish();                     // print the rest, end the line, close

  int fd_ = -1;
  int dest_ = -1;
  bool own_dest_ = false;
  std::string prefix_;
  std::string pending_;  // an incomplete line
  Clock::time_point pending_since_{};
  bool at_line_start_ = true;  // the next byte printed starts a line (gets the prefix)
  std::string out_;            // reused output buffer
};

// mpirun's stdin to rank 0's stdin pipe, through a bounded buffer (stdin is not read while the
// rank has not taken the previous chunk). Closing stdin closes the rank's pipe.
class StdinForwarder {
 public:
  StdinForwarder() = default;
  ~StdinForwarder() { stop(); }
  StdinForwarder(const StdinForwarder &) = delete;
  StdinForwarder &operator=(const StdinForwarder &) = delete;

  // Decides whether mpirun's stdin can be forwarded (open, and not a terminal of which we are in the
  // background). Returns the fd rank 0 must get as stdin: a pipe's read end or /dev/null; the caller
  // closes it after the fork.
  int start();
  int source_fd() const { return want_input() ? STDIN_FILENO : -1; }  // poll for POLLIN
  int sink_fd() const { return buffer_.empty() ? -1 : sink_; }        // poll for POLLOUT
  void on_input();
  void on_output();
  void stop();  // rank 0 is gone or the job ends

 private:
  bool want_input() const { return active_ && buffer_.empty() && sink_ >= 0; }
  bool active_ = false;
  int sink_ = -1;  // write end of rank 0's stdin pipe
  std::string buffer_;
};

}  // namespace pamir::mpirun
