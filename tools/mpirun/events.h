// Hand-off from libpmix's progress thread to mpirun's event loop. The PMIx server module callbacks
// record what happened here before they let libpmix answer the client, so an event is always queued
// before the client can go on (and exit): the loop reaps exits first, then drains this queue, then
// judges the exits, and never mistakes a finalized rank for one that died before PMIx_Finalize.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace pamir::mpirun {

enum class EventKind { kConnected, kFinalized, kAbort };

struct Event {
  EventKind kind = EventKind::kConnected;
  uint32_t rank = 0;
  int status = 0;       // kAbort: the code given to PMIx_Abort
  std::string message;  // kAbort: its message
};

class EventQueue {
 public:
  EventQueue();
  ~EventQueue();
  EventQueue(const EventQueue &) = delete;
  EventQueue &operator=(const EventQueue &) = delete;

  int fd() const { return fd_; }  // readable when events are waiting
  void push(Event event);         // any thread
  std::vector<Event> drain();     // the loop's thread

 private:
  std::mutex mutex_;
  std::vector<Event> events_;
  int fd_ = -1;  // eventfd
};

}  // namespace pamir::mpirun
