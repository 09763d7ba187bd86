// The one interface every device (shm, ofi, torus) implements.
//
// A device moves packets between tasks and reads and writes remote memory. It knows nothing of MPI, matching
// or datatypes: a packet is a dispatch id, a protocol header of at most max_header() bytes and a payload. The
// context owns the devices and reaches one through a single virtual call per packet.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "pami/vclock.h"

namespace pamir {
class Bootstrap;
}

namespace pamir::dev {

// Where a device hands every received packet. `hdr` and `payload` point into the device's own memory
// (for shm, straight into the ring cell) and are valid only until deliver() returns.
struct Sink {
  void (*deliver)(void *arg, uint32_t src_task, uint16_t dispatch, const void *hdr, uint32_t hdr_len,
                  const void *payload, size_t payload_len);
  void *arg;
  // Where a device that reads asynchronously (start_read) reports that every read of `cookie` is done:
  // status 0, or -errno. Called from poll(), never from inside another call of the device.
  void (*read_done)(void *arg, uint64_t cookie, int64_t status) = nullptr;
  // Where a device with landings (Device::landing_add) hands the packet written into landing `id`, in its
  // source's order with the packets deliver() gets; its dispatch and header are the landing's. True keeps
  // the landing open for the next one.
  bool (*landed)(void *arg, uint32_t id, uint32_t src_task, const void *payload,
                 size_t payload_len) = nullptr;
  // Called by a device with landings before it delivers any packet, while it has some: what the packet
  // would overtake is dealt with first.
  void (*before)(void *arg, uint32_t src_task, uint16_t dispatch, const void *hdr) = nullptr;
};

// A remote memory region a peer may read directly (CMA on shm, registered memory on ofi).
struct RemoteRegion {
  uint64_t addr;
  uint64_t len;
  uint64_t key;  // 0 on shm; the memory-registration key on ofi
};

class Device {
 public:
  virtual ~Device() = default;

  virtual const char *name() const noexcept = 0;

  // Largest protocol header a packet carries, and largest payload next to a header of hdr_len bytes.
  virtual uint32_t max_header() const noexcept = 0;
  virtual size_t max_payload(uint32_t hdr_len) const noexcept = 0;

  // Whether this device reaches `task` at all.
  virtual bool reaches(uint32_t task) const noexcept = 0;

  // Queues one packet for `task`. Returns false, having sent nothing, when there is no room now; the
  // caller keeps the packet and tries again after advance(). Packets to one task arrive in the order
  // they were accepted. payload_len <= max_payload(hdr_len).
  virtual bool try_send(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len,
                        const void *payload, size_t payload_len) noexcept = 0;

  // try_send() whose payload fill.fn(fill.arg, dst, payload_len) writes straight into the packet: how a
  // non-contiguous message is packed into packets with no buffer in between (seed 003). fill.fn is
  // called only when the packet is accepted, and must write exactly payload_len bytes.
  struct Fill {
    void (*fn)(void *arg, void *dst, size_t len);
    void *arg;
  };
  virtual bool try_send_fill(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len,
                             size_t payload_len, const Fill &fill) noexcept = 0;

  // Delivers received packets through the sink; returns how many.
  virtual unsigned poll() noexcept = 0;

  // Reads from a peer's memory into local memory. `remote` is in the peer's terms: addresses and `key`
  // as the peer's expose() gave them (on shm plain addresses and key 0). Returns bytes read, or -errno
  // (for example -EPERM where cross-memory attach is refused).
  virtual ssize_t read_remote(uint32_t task, const struct iovec *local, unsigned nlocal,
                              const struct iovec *remote, unsigned nremote, uint64_t key) noexcept = 0;

  // read_remote() that returns at once: the reads proceed while the caller goes on, and the sink's
  // read_done(cookie, status) reports them all done, from a later poll(). False, having started
  // nothing, where the device reads synchronously only, or has no room for another such read now: the
  // caller then calls read_remote().
  virtual bool start_read(uint32_t task, const struct iovec *local, unsigned nlocal,
                          const struct iovec *remote, unsigned nremote, uint64_t key,
                          uint64_t cookie) noexcept {
    (void)task, (void)local, (void)nlocal, (void)remote, (void)nremote, (void)key, (void)cookie;
    return false;
  }

  // Writes local memory into a peer's memory; the same results as read_remote().
  virtual ssize_t write_remote(uint32_t task, const struct iovec *local, unsigned nlocal,
                               const struct iovec *remote, unsigned nremote, uint64_t key) noexcept = 0;

  // Lets peers read [addr, addr + len) until the acknowledgment object `ack_ref` is freed (seed 001's
  // origin buffer). Returns the address peers read byte 0 of it at (addr itself where the fabric takes
  // virtual addresses, an offset otherwise) and sets `key`; false when the memory cannot be exposed
  // (the caller then sends the data in packets). On shm every address is readable: addr, key 0.
  virtual bool expose(uint64_t ack_ref, const void *addr, uint64_t len, uint64_t &remote_addr,
                      uint64_t &key) noexcept {
    (void)ack_ref, (void)len;
    remote_addr = uint64_t(uintptr_t(addr));
    key = 0;
    return true;
  }
  // expose() for memory a recorded pattern sends from at every start (seed 004): registered at the first
  // call, the registration kept in `hold` (0 before it) and reused until release_held(hold), so a
  // replay registers nothing. On shm every address is readable: nothing is held.
  virtual bool expose_held(uint32_t &hold, const void *addr, uint64_t len, uint64_t &remote_addr,
                           uint64_t &key) noexcept {
    (void)hold, (void)len;
    remote_addr = uint64_t(uintptr_t(addr));
    key = 0;
    return true;
  }
  virtual void release_held(uint32_t hold) noexcept { (void)hold; }
  // Whether a target may read the origin's layout metadata (segments, loops) as well as its data:
  // only where every address is readable. Elsewhere non-contiguous rendezvous go in packets.
  virtual bool reads_layouts() const noexcept { return true; }

  // Acknowledgment objects (seed 001): a counter and a status in memory peers can write (on shm a slot
  // of the node segment, named by its offset; on ofi registered memory). The owner allocates one with
  // its counter set to `expect` bytes and hands the reference to a peer; the peer's ack_write() stores
  // the status and takes `bytes` off the counter, then wakes the owner. The owner watches ack_counter()
  // reach zero, reads ack_status() and frees the slot. ack_alloc() returns 0 when every slot is in use
  // (the caller then takes a protocol that needs none). A slot whose counter is zero counts as work for
  // wait(), so an owner asleep on it is never left there.
  virtual uint64_t ack_alloc(uint64_t expect) noexcept = 0;
  virtual uint64_t ack_counter(uint64_t ref) const noexcept = 0;
  virtual int64_t ack_status(uint64_t ref) const noexcept = 0;
  // The timing model's virtual arrival of the counter's last bytes (pami/vclock.h); 0 where a device
  // keeps no model.
  virtual Vt ack_time(uint64_t) const noexcept { return Vt{}; }
  virtual void ack_free(uint64_t ref) noexcept = 0;
  virtual void ack_write(uint32_t task, uint64_t ref, uint64_t bytes, int64_t status) noexcept = 0;

  // Shared copies: both ends of a rendezvous move chunks of one message, the target reading and the
  // origin writing, through the origin's acknowledgment object (`owner` is the task that allocated it).
  // The target opens the share with where the data goes; then each end claims chunks until none is
  // left, moves each claimed chunk, and reports it with share_moved(), which returns the bytes still to
  // move; the target acknowledges (ack_write) once none remain. A device that cannot share (its
  // transfers are offloaded anyway) says so and the target moves everything itself.
  virtual bool share_supported() const noexcept { return false; }
  virtual void share_open(uint32_t, uint64_t, uint64_t, uint64_t, uint64_t) noexcept {}
  // What the target opened the share with (its buffer, or a value of the layer above's), else 0 (the
  // owner polls it).
  virtual uint64_t share_dest(uint32_t, uint64_t) const noexcept { return 0; }
  // Claims the next chunk: its offset and length; false when every chunk is taken.
  virtual bool share_claim(uint32_t, uint64_t, uint64_t &, uint64_t &) noexcept { return false; }
  // share_note_bytes() bytes beside the share, in memory both ends map, for the layer above: the target
  // writes them before share_open(), the owner reads them once share_dest() is set (the slot keeps them
  // until the acknowledgment). nullptr where the device has none.
  virtual void *share_note(uint32_t, uint64_t) noexcept { return nullptr; }
  virtual size_t share_note_bytes() const noexcept { return 0; }
  // Takes `bytes` off what remains (a failed chunk too, with its -errno in `status`); returns what
  // remains after.
  virtual uint64_t share_moved(uint32_t, uint64_t, uint64_t, int64_t) noexcept { return 0; }
  virtual uint64_t share_remaining(uint32_t, uint64_t) const noexcept { return 0; }
  // The first chunk failure (-errno) of the share, 0 if none.
  virtual int64_t share_status(uint32_t, uint64_t) const noexcept { return 0; }
  // Whether read_remote/write_remote can reach `task`: 0, or the -errno of the refusal (probed once).
  virtual int remote_access(uint32_t) noexcept { return -ENOTSUP; }
  // Whether read_remote() and write_remote() move the data of memory a peer exposed with expose_held()
  // with no part of that peer's: a messaging unit of their own does it (the torus's engine). One-sided
  // windows then put and get through them while the target computes. Not ofi (under manual progress
  // the target's polls serve its reads, and it does no writes), nor shm (node ranks map or attach).
  virtual bool passive_rma() const noexcept { return false; }

  // Node-shared memory for the shared-memory collectives (seed 002's stand-in for a collective network):
  // coll_area(task) is task's area of coll_area_bytes(), mapped in this process, which every process
  // on the node may read and write; nullptr where the device has none or does not reach task. The
  // collectives own its layout. After writing into memory a peer may be waiting on, coll_notify(task)
  // wakes the peer if it sleeps in wait() (a load otherwise, with no fence: a sleeper that announced
  // itself just as the write was published may be missed, so such waiters sleep with a short timeout);
  // the sleeper's `also` sees the write.
  virtual void *coll_area(uint32_t) noexcept { return nullptr; }
  virtual size_t coll_area_bytes() const noexcept { return 0; }
  virtual void coll_notify(uint32_t) noexcept {}
  // Memory shared by this process and one peer alone, for a protocol above the device to lay out (the
  // mailboxes of seed 004's ready tokens, pami/protocols/mailbox.cc): pair_area(task, true) belongs to
  // the direction this process sends to task in, pair_area(task, false) to the direction task sends in;
  // pair_area_bytes() each, zeroed when the direction opens. nullptr where the device has none, or
  // while that direction has not carried its first packet. After writing into a pair area the peer
  // may be waiting on, pair_notify(task) wakes it if it sleeps in wait() (with a fence: a sleeper's
  // `also` is then sure to see the write).
  virtual void *pair_area(uint32_t, bool) noexcept { return nullptr; }
  virtual size_t pair_area_bytes() const noexcept { return 0; }
  virtual void pair_notify(uint32_t) noexcept {}
  // Sleeps until a packet may have arrived for this process, also(arg) holds (checked once the process
  // has announced that it sleeps, so a peer that changes it and then notifies is never missed), or
  // timeout_us has passed. Senders ring the receiver's doorbell only when it has announced that it
  // sleeps, so a busy receiver costs nothing.
  virtual void wait(unsigned timeout_us, bool (*also)(void *) = nullptr, void *arg = nullptr) noexcept = 0;

  // Patterns the device replays by itself (seed 004 on a unit that walks descriptor FIFOs): a FIFO of n
  // sends written once by pattern_add() -- each a packet of dispatch `dispatch` whose header bytes are
  // kept and whose payload is read from `payload` at every start -- then started again and again, a start
  // moving the FIFO's tail only. pattern_open() returns an id, or 0 where the device replays nothing or
  // has no FIFO free (the caller takes the ordinary path). pattern_done() says whether every send of the
  // last start has left this process's memory (its buffers may be reused); the device rings this
  // process's doorbell when it has. pattern_close() only once it has.
  virtual uint32_t pattern_open(uint32_t n) noexcept {
    (void)n;
    return 0;
  }
  virtual bool pattern_add(uint32_t id, uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len,
                           const void *payload, size_t payload_len) noexcept {
    (void)id, (void)task, (void)dispatch, (void)hdr, (void)hdr_len, (void)payload, (void)payload_len;
    return false;
  }
  virtual void pattern_start(uint32_t id) noexcept { (void)id; }
  virtual bool pattern_done(uint32_t id) noexcept {
    (void)id;
    return true;
  }
  virtual void pattern_close(uint32_t id) noexcept { (void)id; }

  // Landings (seed 004's receive side, on a device that writes packets into this process's memory by
  // itself): a reception slot kept for the next packet from `task` of dispatch `dispatch` whose header
  // is `key` (a recorded receive's match bits). While it is open, such a packet goes there rather than
  // among the others, and poll() hands it to Sink::landed in its source's order (before any later
  // packet of that source). A packet that finds its landing closed, or full, goes the ordinary way.
  // landing_add() returns an id, or 0 where the device has none (the caller takes the ordinary path);
  // a new landing is closed. landing_close() closes an open one: a packet already there (or being
  // written) goes among the others, in its order, for the next poll. A landing that handed its packet
  // over is closed unless the sink kept it open. landing_remove() only once it is closed.
  virtual uint32_t landing_add(uint32_t task, uint16_t dispatch, const void *key, uint32_t key_len) noexcept {
    (void)task, (void)dispatch, (void)key, (void)key_len;
    return 0;
  }
  virtual void landing_open(uint32_t id) noexcept { (void)id; }
  virtual void landing_close(uint32_t id) noexcept { (void)id; }
  virtual void landing_remove(uint32_t id) noexcept { (void)id; }

  // Called once every local rank has finished communicating (after the finalize barrier).
  virtual void shutdown() noexcept = 0;
};

}  // namespace pamir::dev
