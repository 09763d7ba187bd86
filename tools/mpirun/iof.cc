#include "tools/mpirun/iof.h"

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "tools/mpirun/output.h"

namespace pamir::mpirun {

OutputStream::OutputStream(int source_fd, int dest_fd, std::string prefix, bool own_dest)
    : fd_(source_fd), dest_(dest_fd), own_dest_(own_dest), prefix_(std::move(prefix)) {}

OutputStream::OutputStream(OutputStream &&other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      dest_(other.dest_),
      own_dest_(std::exchange(other.own_dest_, false)),
      prefix_(std::move(other.prefix_)),
      pending_(std::move(other.pending_)),
      pending_since_(other.pending_since_),
      at_line_start_(other.at_line_start_) {}

OutputStream &OutputStream::operator=(OutputStream &&other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    dest_ = other.dest_;
    own_dest_ = std::exchange(other.own_dest_, false);
    prefix_ = std::move(other.prefix_);
    pending_ = std::move(other.pending_);
    pending_since_ = other.pending_since_;
    at_line_start_ = other.at_line_start_;
  }
  return *this;
}

void OutputStream::emit(std::string_view text) {
  if (prefix_.empty()) {
    write_all(dest_, text);
    return;
  }
  out_.clear();
  while (!text.empty()) {
    size_t nl = text.find('\n');
    size_t len = nl == std::string_view::npos ? text.size() : nl + 1;
    if (at_line_start_) out_ += prefix_;
    out_.append(text.substr(0, len));
    at_line_start_ = nl != std::string_view::npos;
    text.remove_prefix(len);
  }
  write_all(dest_, out_);
}

void OutputStream::on_readable() {
  read_once();
}

int OutputStream::read_once() {
  if (fd_ < 0) return 0;
  char buf[65536];
  ssize_t n;
  do {
    n = ::read(fd_, buf, sizeof buf);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && errno == EAGAIN) return -1;
  if (n <= 0) {  // end of file (or a broken pipe): print what is left
    finish();
    return 0;
  }
  std::string_view chunk(buf, static_cast<size_t>(n));
  size_t last_nl = chunk.rfind('\n');
  if (last_nl == std::string_view::npos) {
    if (pending_.empty()) pending_since_ = Clock::now();
    pending_.append(chunk);
    if (pending_.size() >= kMaxLine) flush_partial(Clock::now(), true);
    return 1;
  }
  // Complete lines: whatever was pending plus the chunk up to its last newline, in one write.
  std::string_view complete = chunk.substr(0, last_nl + 1);
  if (!pending_.empty()) {
    pending_.append(complete);
    emit(pending_);
    pending_.clear();
  } else {
    emit(complete);
  }
  std::string_view rest = chunk.substr(last_nl + 1);
  if (!rest.empty()) {
    pending_.assign(rest);
    pending_since_ = Clock::now();
  }
  return 1;
}

void OutputStream::flush_partial(Clock::time_point now, bool force) {
  if (pending_.empty()) return;
  if (!force && now - pending_since_ < kPartialLineDelay) return;
  emit(pending_);
  pending_.clear();
}

Clock::time_point OutputStream::deadline() const {
  return pending_.empty() ? Clock::time_point::max() : pending_since_ + kPartialLineDelay;
}

void OutputStream::drain_and_close() {
  while (read_once() > 0) {
  }
  // Empty now; a process the rank left behind may still hold the pipe open: stop listening anyway.
  finish();
}

void OutputStream::finish() {
  if (!pending_.empty()) {
    pending_ += '\n';  // the next line printed must not continue this one
    emit(pending_);
    pending_.clear();
  } else if (!at_line_start_) {
    emit("\n");
  }
  close();
}

void OutputStream::close() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (own_dest_) {
    ::close(dest_);
    own_dest_ = false;
  }
}

}  // namespace pamir::mpirun

namespace pamir::mpirun {

int StdinForwarder::start() {
  int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (::fcntl(STDIN_FILENO, F_GETFL) < 0) return devnull;  // mpirun has no stdin
  // Reading a terminal from the background would stop mpirun (SIGTTIN): give rank 0 nothing then.
  if (::isatty(STDIN_FILENO) && ::tcgetpgrp(STDIN_FILENO) != ::getpgrp()) return devnull;
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return devnull;
  ::close(devnull);
  ::fcntl(p[1], F_SETFL, O_NONBLOCK);
  sink_ = p[1];
  active_ = true;
  return p[0];
}

void StdinForwarder::on_input() {
  if (!want_input()) return;
  char buf[16384];
  ssize_t n;
  do {
    n = ::read(STDIN_FILENO, buf, sizeof buf);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && errno == EAGAIN) return;
  if (n <= 0) {  // end of input: rank 0 sees end of file
    stop();
    return;
  }
  buffer_.assign(buf, static_cast<size_t>(n));
  on_output();
}

void StdinForwarder::on_output() {
  while (!buffer_.empty() && sink_ >= 0) {
    ssize_t n = ::write(sink_, buffer_.data(), buffer_.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n < 0) {  // rank 0 closed its stdin or is gone
      stop();
      return;
    }
    buffer_.erase(0, static_cast<size_t>(n));
  }
}

void StdinForwarder::stop() {
  active_ = false;
  buffer_.clear();
  if (sink_ >= 0) {
    ::close(sink_);
    sink_ = -1;
  }
}

}  // namespace pamir::mpirun
