// Hand-off from libpmix's progress thread to mpirun's event loop. The PMIx server module callbacks
// only record what happened and wake the loop; the loop acts on it and then completes the PMIx
// callback, so a client's PMIx_Init/PMIx_Finalize/PMIx_Abort returns only after mpirun has recorded it.
#pragma once

#include <pmix_server.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace pamir::mpirun {

enum class EventKind { kConnected, kFinalized, kAbort, kFence };

struct Event {
  EventKind kind = EventKind::kConnected;
  uint32_t rank = 0;
  int status = 0;       // kAbort: the code given to PMIx_Abort
  std::string message;  // kAbort: its message
  pmix_op_cbfunc_t op_cb = nullptr;  // kConnected, kFinalized, kAbort
  pmix_modex_cbfunc_t modex_cb = nullptr;  // kFence
  void *cbdata = nullptr;
  std::string data;  // kFence: the collected data to hand back
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

// Completes an event's PMIx callback with status (for a fence, hands back its data).
void complete(Event &event, pmix_status_t status);

}  // namespace pamir::mpirun
