// The context: a progress engine over the devices, the endpoint table (task -> device), the matcher
// and the point-to-point protocols. Progress is weak: advance() runs inside MPI calls only.
#pragma once

#include <sys/uio.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "datatype/segments.h"
#include "devices/device.h"
#include "pami/bootstrap.h"
#include "pami/dispatch.h"
#include "pami/list.h"
#include "pami/lock.h"
#include "pami/match.h"
#include "pami/peer_watch.h"
#include "pami/protocols/mailbox.h"
#include "pami/request.h"
#include "pami/select.h"
#include "pami/stats.h"

namespace pamir::dev::shm {
struct Doorbell;
}

namespace pamir {

// Where a rendezvous send is (Request::rdv).
enum RdvState : uint8_t {
  kRdvNone = 0,
  kRdvRts,     // its request-to-send waits for room in the peer's ring
  kRdvWait,    // sent; waits for the target to write the acknowledgment
  kRdvResend,  // the target cannot read this process: the data goes out through the rings
  kRdvHelped,  // waits for the acknowledgment, having moved its share of a shared copy
};

class Context {
 public:
  Context();
  ~Context();

  // Bootstrap, then the devices. Returns 0, or nonzero with the reason in `why`.
  int init(std::string &why);
  // Sends everything still queued, shuts the devices down, leaves PMIx.
  void finalize();

  Bootstrap &boot() { return boot_; }
  uint32_t task() const { return self_; }
  uint32_t ntasks() const { return ntasks_; }
  // The send table messages to `task` are selected by: its device's (pami/send_tables.h).
  const SendTable &send_table(uint32_t task) const { return *peers_[task].table; }
  Matcher &matcher() { return matcher_; }
  const char *device_name(uint32_t task) const;

  // The fast path of a blocking send: sends the whole message at once when it fits in one packet and
  // nothing is queued for the peer. Returns false (having sent nothing) otherwise.
  bool try_send_immediate(uint32_t task, uint64_t bits, const void *buf, uint64_t bytes) {
    Peer &p = peers_[task];
    if (bytes >= p.immediate_end || !p.sendq.empty()) return false;
    // Only the match bits: the length is the packet's, and such a send is never synchronous. With a
    // 16-byte device header that leaves 40 payload bytes in the first cache line instead of 24.
    if (!p.dev->try_send(task, kDispatchShort, &bits, sizeof bits, buf, bytes)) return false;
    ++p.sent;
    ++stats().sends_by_path[unsigned(p.path)][unsigned(SendProtocol::immediate)];
    stats().bytes_by_path[unsigned(p.path)][unsigned(SendProtocol::immediate)] += bytes;
    return true;
  }

  // Drops the registration a recorded send kept between its starts (request_release; nothing once the
  // device is closed, which closed it).
  void release_held(Request *r) noexcept {
    if (r->peer_task < peers_.size() && peers_[r->peer_task].dev)
      peers_[r->peer_task].dev->release_held(r->held);
    r->held = 0;
  }

  // Starts a send described by r (peer_task, buf, bytes, ctx, source = own rank, tag, sync).
  // It completes through request_complete().
  void start_send(Request *r) { start_send(r, peers_[r->peer_task].table->select(r->bytes)); }
  // The same with the protocol chosen already (a replayed descriptor, pami/pattern.h).
  void start_send(Request *r, SendProtocol proto);
  // Starts a receive described by r (ctx, source, tag, buf, bytes = capacity).
  void start_recv(Request *r);
  // Cancels a posted receive; false if it has matched already, or if the message a ready token
  // promised it has claimed the token (it then completes r).
  bool cancel_recv(Request *r);

  // Seed 004's ready tokens, for replayed descriptors, in the pair's shared memory (mailbox.cc,
  // mailbox.h). A token goes out when r was just started as a receive of a specific source and tag,
  // is posted, and is the receive that source's next message would match (`first`: the caller knows it
  // is, Matcher::first_for need not look). It names that message's number.
  // box_token: below the rendezvous sizes, the token offers room in the cell; box_send: a send of
  // `bytes` <= box::kPayload that the peer's token names goes into the pair's mailbox; true then, and
  // it is done. mailbox(): PAMIR_MAILBOX, single-threaded (a sleeper checks the mailboxes without the
  // library lock), and a send table with immediate sizes (only those go in).
  // ready_token (direct.cc): at the rendezvous sizes, with PAMIR_DIRECT_PUT, the token offers r's
  // buffer; direct_put: a send the peer's token names writes its data straight into that buffer and
  // the message into the cell; true then, and the send is done.
  void box_token(Request *r, bool first = false);
  bool box_send(uint32_t task, uint64_t bits, const void *buf, uint64_t bytes);
  void ready_token(Request *r, bool first = false);
  bool direct_put(uint32_t task, uint64_t bits, const void *buf, uint64_t bytes);
  bool mailbox() const { return mailbox_ && shm_immediate_ && !library_lock().enabled; }
  // Landings (landing.cc; seed 004's receive side, where the replaying device writes packets into this
  // process's memory itself: the torus): a replayed receive of one source and tag whose source's
  // messages reach it through that device keeps a landing, which the device fills with that source's
  // next one-packet message of exactly its envelope. A start arms the landing instead of posting the
  // receive (landing_start; false: the caller posts it), when nothing posted or unexpected could take
  // that message first; the landed packet then completes it with no matching. A message that lands
  // before its receive starts is kept beside the landing and completes the receive at its start. Any
  // other message of that source, or a receive or probe posted that could take the envelope, first
  // puts a kept message among the others and closes the landing, posting an armed receive, so MPI's
  // order holds. Single-threaded runs only.
  bool lands_receives() const { return replay_dev_ != nullptr && !library_lock().enabled; }
  uint32_t landing_add(uint32_t task, uint64_t bits);  // 0: the receive has none
  bool landing_start(uint32_t id, Request *r);
  // landing_start's common case, inline: when nothing_to_match() (so nothing posted or here could take
  // the envelope first) and the landing is open, keeping nothing, arming it is all a start does.
  bool nothing_to_match() const { return matcher_.posted_count() == 0 && matcher_.unexpected_count() == 0; }
  bool landing_arm_if_ready(uint32_t id, Request *r) {
    Landing &l = landings_[id - 1];
    if (!l.open || l.kept) return false;
    l.armed = r;
    return true;
  }
  void landing_remove(uint32_t id);
  // Shared copies: from this size both ends of a rendezvous move the data (below it the second call
  // costs more than the second core saves); Context::share_chunk cuts them.
  static constexpr uint64_t kShareMinBytes = uint64_t(256) << 10;
  // Between layouts the reader pays more per byte (a page pin per iovec, the cursor), and the shares are
  // pipelined (LayoutShare) with the target's layout in the note, so the second core pays from much
  // smaller messages: OSU's vect:8192:4096 moving 32 KiB, osu_bw 5.2-8.6 -> 6.6-10.5 GB/s at the same
  // latency; 64 KiB 5.8-10.4 -> 8.5-14.2 GB/s and 7.5-11.5 -> 6.3-9.3 us.
  static constexpr uint64_t kShareTypedMinBytes = uint64_t(32) << 10;
  // A layout of at most this many bytes of segments and loops rides in its request-to-send even where
  // the target could read it (shm): 16 of them, a vector's or a few blocks of an indexed type.
  static constexpr size_t kRtsLayoutInline = 256;
  // Whether a direct put of `bytes` can pay: one process's cross-memory write is no match for the
  // shared copy, which the ordinary rendezvous makes from kShareMinBytes (measured here: 2 MiB put in
  // 235-244 us against 79-88 us shared).
  bool direct_put_pays(uint64_t bytes) const {
    return direct_put_ && (!shared_copy_ || bytes < kShareMinBytes);
  }
  // First unexpected message that a receive (ctx, src, tag) would take; removed when `remove`.
  Unexpected *probe(uint16_t ctx, int32_t src, int32_t tag, bool remove) {
    if (landings_open_) [[unlikely]]
      landings_before_post(ctx, src, tag);
    return matcher_.find_unexpected(ctx, src, tag, remove);
  }
  // Receives a message taken by probe(remove=true) (MPI_Mrecv).
  void recv_unexpected(Request *r, Unexpected *u);

  // One-sided transfers (PAMI_Put, PAMI_Get) with the peer's memory at `remote_addr`, which the peer
  // has exposed for it. r: kind put or get, peer_task, buf, bytes. The protocol comes from the put or
  // get size table; a peer whose memory this process cannot reach directly (cross-memory attach refused,
  // or PAMIR_SHM_CMA=0) is served by packets instead, which needs the peer to advance its context. A put
  // completes when the data is in the peer's memory, a get when it is in buf; a failed direct transfer
  // completes the request with Err::rdma.
  void start_put(Request *r, uint64_t remote_addr);
  void start_get(Request *r, uint64_t remote_addr);
  const PutTable &put_table() const { return put_table_; }
  const GetTable &get_table() const { return get_table_; }

  // The acknowledgment counter of a rendezvous send still waiting for its target (tests: it holds the
  // acknowledgment's size until the target writes it); UINT64_MAX when r waits for none.
  uint64_t rdv_ack_counter(const Request *r) const {
    if ((r->rdv != kRdvWait && r->rdv != kRdvHelped) || !r->ack_ref) return UINT64_MAX;
    return peers_[r->peer_task].dev->ack_counter(r->ack_ref);
  }

  // Progress of the layer above: the nonblocking collectives register `fn`, which advance() calls while
  // `active` (their number in flight) is nonzero.
  // Windows register `windows` while a served lock request waits at them or node ranks may offer them
  // operations (pami/window.cc), counted in `windows_active` and in `active`.
  struct ProgressHook {
    void (*fn)() = nullptr;
    unsigned active = 0;
    void (*windows)() = nullptr;
    unsigned windows_active = 0;  // of `active`: windows polled (the rest are nonblocking collectives)
  };
  ProgressHook &progress_hook() { return hook_; }
  // A hook served a peer's request (a window's offer): a blocked call polls its full spin again before
  // it sleeps, since the peer likely waits on the next one.
  void note_served() { served_ = true; }

  // Record and replay on a device that walks its own FIFOs (the torus: Device::pattern_open): whether
  // there is one, which, whether it reaches `task`, and the starts whose sends it still carries.
  bool replays_on_device() const { return replay_dev_ != nullptr; }
  dev::Device *replay_device() const { return replay_dev_; }
  bool replays_to(uint32_t task) const { return task < ntasks_ && peers_[task].dev == replay_dev_; }
  void watch_device_pattern(uint32_t id, uint32_t section) { device_patterns_.push_back({id, section}); }
  // Copies the counts a device keeps itself into stats() (before they are printed).
  void collect_device_stats();
  // The torus's grid under PAMIR_DEVICE=torus (the collectives' torus algorithms, collectives/grid.h):
  // the extents of its dimensions with more than one position, A to E and then, where a node holds
  // several ranks, T; and every task's coordinates in them, task-major. Empty without a torus.
  const std::vector<int> &grid_extents() const { return grid_extents_; }
  const std::vector<int> &grid_coords() const { return grid_coords_; }
  bool grid_has_t() const { return grid_has_t_; }

  void advance() {
    if (__builtin_expect(!box_peers_.empty(), 0)) poll_boxes();
    if (__builtin_expect(!device_patterns_.empty(), 0)) poll_device_patterns();
    unsigned got = 1;
    if (shm_) {
      got = shm_->poll();
      if (ofi_) poll_ofi_beside_shm(got);
    } else if (ofi_) {
      ofi_->poll();
    } else if (torus_) {
      got = torus_->poll();
      // Landings shut for a message of their envelope open again once it has matched (landing.cc).
      if (__builtin_expect(landings_reopen_, 0)) landings_reopen();
    }
    if (__builtin_expect(!pending_.empty(), 0)) push_pending();
    if (__builtin_expect(!rdv_sends_.empty(), 0)) check_rdv_sends();
    if (__builtin_expect(layout_shares_used_ != 0, 0)) poll_layout_shares(got == 0);
    // Last, so a schedule sees every completion of this pass: a step left waiting for a send that
    // check_rdv_sends just completed would otherwise sleep until its doorbell's timeout.
    if (__builtin_expect(hook_.active != 0, 0)) run_hooks();
  }

  // With both devices: a poll of the fabric costs a system call or more (tcp, under manual progress)
  // where one of shm costs a few loads, so while shm has delivered in the last kShmBusyPasses passes
  // the fabric waits ofi_interval_ passes between polls; once shm is quiet it is polled every pass, so
  // a rank that waits for the fabric after shm traffic (a collective between hosts) waits only those
  // few passes. A fabric poll handles at most one batch of completions.
  //
  // The interval in passes says nothing of time: a poll that finds a flood to copy out of its sockets
  // costs microseconds, and at 256 passes of a ping-pong it took half of the shm latency. So while shm
  // is busy each poll is timed, and the interval doubles while polls cost on average more than
  // 1/kOfiPollShare of the time between them, halving back (never below PAMIR_OFI_POLL_INTERVAL) once they
  // cost under a quarter of that: the fabric is polled as often as it is cheap to, whatever the provider.
  static constexpr unsigned kShmBusyPasses = 64;
  static constexpr uint64_t kOfiPollShare = 20;
  static constexpr unsigned kOfiMaxInterval = 1u << 16;
  void poll_ofi_beside_shm(unsigned shm_got) {
    if (shm_got) shm_recent_ = kShmBusyPasses;
    if (shm_recent_) {
      --shm_recent_;
      if (++ofi_skipped_ < ofi_interval_) return;
      ofi_skipped_ = 0;
      if (ofi_interval_min_ > 1) {
        poll_ofi_timed();
        return;
      }
    }
    ofi_skipped_ = 0;
    ofi_->poll();
    ofi_last_end_ns_ = 0;  // a quiet-shm poll: the next busy one starts a new measurement
  }
  void poll_ofi_timed();

  // Advances until done() holds: spins a little, then sleeps on the doorbell, dropping the library
  // lock while it sleeps, for up to sleep_us at a time (0: PAMIR_SLEEP_MAX_US).
  template <typename Pred>
  void wait_until(Pred &&done, unsigned sleep_us = 0) {
    for (unsigned i = 0;; ++i) {
      advance();
      if (done()) return;
      if (i >= spin_) {
        if (__builtin_expect(served_, 0)) {  // served a peer's request since: more may follow, stay awake
          served_ = false;
          i = 0;
          continue;
        }
        idle(&check<Pred>, &done, sleep_us);
      } else if (yield_) {
        relax();
      }
    }
  }

  // After a nonblocking call's pass found nothing (MPI_Test, MPI_Iprobe and their kin): where blocked
  // calls yield (PAMIR_YIELD_WHEN_IDLE), so does a poll that came up empty, since a loop of them may wait
  // for a peer that needs this very core. Without it, 3 ranks on 2 cores took 12 s for what 2 took in
  // 0.1 (coll_persistent's starts completed by MPI_Test); Open MPI's progress yields so too.
  void poll_missed() {
    if (yield_) relax();
  }

  // Whether a shared copy between layouts is in flight: it ends by polling, not by a ring for certain,
  // so a caller about to sleep yields instead.
  bool shares_in_flight() const { return layout_shares_used_ != 0; }
  // Whether this node's ranks outnumber its usable CPUs (pami/cpus.h), whatever PAMIR_YIELD_WHEN_IDLE says.
  bool oversubscribed() const { return oversubscribed_; }

  // The shared-memory collectives' area of `task` (Device::coll_area): nullptr when no device offers one.
  void *coll_area(uint32_t task) const { return shm_ ? shm_->coll_area(task) : nullptr; }
  size_t coll_area_bytes() const { return shm_ ? shm_->coll_area_bytes() : 0; }
  // After a write into shared memory that `task` may wait on (Device::coll_notify).
  void coll_notify(uint32_t task) {
    if (task != self_ && shm_) shm_->coll_notify(task);
  }
  // The shared-memory device's doorbell of this process, which the progress thread sleeps on
  // (pami/progress_thread.h); nullptr without that device.
  dev::shm::Doorbell *own_doorbell();
  // Rings this process's own doorbell: another of its threads completed what a sleeper waits for.
  void wake_sleepers() {
    if (shm_) shm_->coll_notify(self_);
  }
  // One-sided windows' path remote (pami/window.h): the device whose RMA moves the data of memory
  // exposed with expose_held() with no part of its owner's (Device::passive_rma), where it reaches `task`
  // (never this process), else nullptr; and the device this process exposes its window memory on.
  dev::Device *passive_rma_to(uint32_t task) const {
    dev::Device *d = task < ntasks_ && task != self_ ? peers_[task].dev : nullptr;
    return d && d->passive_rma() ? d : nullptr;
  }
  dev::Device *passive_rma_device() const {
    for (dev::Device *d : {ofi_.get(), torus_.get()})
      if (d && d->passive_rma()) return d;
    return nullptr;
  }
  // Cross-memory access to the memory of a process of this node, for the collectives that reduce
  // straight out of each other's buffers: whether this process may read and write `task`'s memory
  // (the shm device's probe, and PAMIR_SHM_CMA), and the copies themselves (bytes moved, or -errno).
  bool node_memory_reachable(uint32_t task) {
    return task == self_ || (shm_ && peers_[task].path == Path::shm && !peers_[task].cma_refused &&
                             shm_->remote_access(task) == 0);
  }
  ssize_t node_read(uint32_t task, void *local, const void *remote, size_t len) {
    struct iovec l = {local, len}, r = {const_cast<void *>(remote), len};
    return shm_->read_remote(task, &l, 1, &r, 1, 0);
  }
  ssize_t node_readv(uint32_t task, const struct iovec *local, unsigned nlocal, const struct iovec *remote,
                     unsigned nremote) {
    return shm_->read_remote(task, local, nlocal, remote, nremote, 0);
  }
  ssize_t node_writev(uint32_t task, const struct iovec *local, unsigned nlocal, const struct iovec *remote,
                      unsigned nremote) {
    return shm_->write_remote(task, local, nlocal, remote, nremote, 0);
  }
  // Active messages of the layer above (kDispatchWin, handed to window_deliver): sent in order with
  // everything else to `task`, at once when there is room, else queued with copies of header and payload.
  void send_am(uint32_t task, const void *hdr, uint32_t hdr_len, const void *payload, size_t len);
  size_t am_payload(uint32_t task, uint32_t hdr_len) const { return peers_[task].dev->max_payload(hdr_len); }

  ssize_t node_write(uint32_t task, const void *local, void *remote, size_t len) {
    struct iovec l = {const_cast<void *>(local), len}, r = {remote, len};
    return shm_->write_remote(task, &l, 1, &r, 1, 0);
  }

 private:
  struct Incoming {
    Request *req = nullptr;       // a matched receive being filled
    Unexpected *unexp = nullptr;  // or an unexpected message being filled
    uint64_t received = 0;
    uint64_t total = 0;
  };
  // The first line holds what a send to the peer reads first: its device, that device's send table
  // and the table's immediate bound.
  struct alignas(64) Peer : ListNode {
    dev::Device *dev = nullptr;
    const SendTable *table = nullptr;
    // Exclusive bound of the immediate range: 0 for self (a message to oneself takes the loopback),
    // and when the table does not start with immediate, so that even a zero-byte message then takes
    // the protocol the table chose.
    uint64_t immediate_end = 0;
    Path path = Path::self;  // which device dev is, for the counts
    List<Request> sendq;     // sends (and control packets) not yet fully handed to the device
    Incoming in;
    // Messages (not control packets) sent to the peer and arrived from it, in the order of its ring:
    // the numbers ready tokens name.
    uint64_t sent = 0;
    uint64_t arrived = 0;
    // Mailboxes: the pair areas of both directions (looked up at first use), the number after the last
    // message from the peer promised by a token, the last unbroken run [run_start, run_end) of messages
    // sent to the peer through its mailbox, and the receive each promise names.
    box::Area *box_out = nullptr;
    box::Area *box_in = nullptr;
    uint64_t promised = 0;
    uint64_t run_start = 0, run_end = 0;
    bool box_listed = false;                // in box_peers_
    std::unique_ptr<Request *[]> box_recv;  // box::kSlots, made with box_in
    bool pending = false;
    uint32_t landings = 0;     // landings of receives from the peer open or keeping a message (landing.cc)
    bool rdv_refused = false;  // the peer could not read this process: rendezvous sends go eagerly
    bool cma_refused = false;  // this process cannot reach the peer's memory: one-sided goes by packets
  };

  static void deliver(void *arg, uint32_t src_task, uint16_t dispatch, const void *hdr, uint32_t hdr_len,
                      const void *payload, size_t payload_len);
  // Called by a device with landings before it delivers a packet of src_task (Sink::before).
  static void before_packet(void *arg, uint32_t src_task, uint16_t dispatch, const void *hdr);
  static bool landed(void *arg, uint32_t id, uint32_t src_task, const void *payload, size_t payload_len);
  // Landings (landing.cc): what a message about to be matched, or a receive or probe about to be posted,
  // could otherwise overtake: kept messages are delivered, landings closed, armed receives posted.
  void landings_before_message(uint32_t task, uint16_t dispatch, const void *hdr);
  void landings_before_post(uint16_t ctx, int32_t src, int32_t tag);
  void landing_withdraw(Request *r);
  void landing_shut(uint32_t id);
  void landing_unkeep(uint32_t id);
  void landing_complete(Request *r, uint64_t bits, const void *payload, size_t len);
  void landing_reopen(uint32_t id);
  void landings_reopen();
  static constexpr uint32_t kMaxLandings = 32, kLandingKeep = 512;
  struct Landing {
    Request *armed = nullptr;  // the started receive it completes
    uint64_t bits = 0;
    uint32_t task = 0;
    bool used = false, open = false;
    bool kept = false;    // a message that landed before its receive started, in `data`
    bool reopen = false;  // shut for a message of its envelope: open again once that is delivered
    uint32_t len = 0;
    Vt vt;
    uint8_t data[kLandingKeep];
  };
  std::unique_ptr<Landing[]> landings_;  // kMaxLandings, made at the first landing_add
  uint32_t landings_open_ = 0;           // open or keeping a message: the hooks' check
  bool landings_reopen_ = false;         // some Landing::reopen is set
  bool landing_clear(const Landing &l);
  void on_msg(uint32_t src_task, const MsgHeader &h, const void *payload, size_t len, uint64_t sig = 0);
  static void check_signature(Request *r, uint64_t sig, uint64_t total);
  // A message no receive was posted for: its envelope recorded, `hold` bytes of room for its data; the
  // caller fills the data in and queues it.
  Unexpected *unexpected(uint64_t bits, uint32_t src_task, uint64_t total, uint64_t hold,
                         uint64_t sync_cookie, uint64_t sig);
  void on_frag(uint32_t src_task, const void *payload, size_t len);
  // Rendezvous (pami/protocols/rendezvous.cc).
  void on_rts(uint32_t src_task, const RtsHeader &h, const void *layout, size_t layout_len);
  void on_resend(uint32_t src_task, const ResendHeader &h);
  void on_rdv_data(uint32_t src_task, const RdvDataHeader &h, const void *payload, size_t len);
  // `layout`: the origin's segments and loops where they came in the request-to-send (kLayoutInPacket).
  void pull(Request *r, uint32_t src_task, const RdvSource &src, const void *layout = nullptr,
            size_t layout_len = 0);
  static void read_done(void *arg, uint64_t cookie, int64_t status);  // Sink::read_done
  void pull_shared(Request *r, uint32_t src_task, uint64_t addr, uint64_t ack_ref);
  void help(Request *r);
  void check_rdv_sends();
  // Non-contiguous data (pami/protocols/typed.cc, seed 003).
  bool push_typed(Peer &p, Request *r);
  template <typename Send>
  bool push_packets(dev::Device *d, Request *r, Send &&send);  // pami/protocols/packets.h
  void on_msg_self_typed(const MsgHeader &h, Request *s);
  void fill_typed(Request *r, uint64_t offset, const void *data, size_t len);
  bool push_rts_typed(dev::Device *d, Request *r, RtsHeader &h);
  bool expose_send(dev::Device *d, Request *r, const void *addr, uint64_t len, uint64_t &remote_addr,
                   uint64_t &key);
  ssize_t pull_typed(Request *r, uint32_t src_task, const RdvSource &src, const void *layout,
                     size_t layout_len);
  void pull_typed_shared(Request *r, uint32_t src_task, const RdvSource &src, const void *layout,
                         size_t layout_len);
  void help_typed(Request *r);
  void finish_shared(Request *r, uint32_t src_task, uint64_t ack_ref);
  void complete_shared(Request *r, uint32_t src_task, uint64_t ack_ref);
  ssize_t read_layout(dev::Device *d, uint32_t task, uint64_t segs, uint64_t nsegs, uint64_t loops,
                      uint64_t nloops, std::vector<dt::Segment> &seg_out, dt::Loop *loop_out);
  ssize_t origin_cursor(Request *r, uint32_t src_task, const RdvSource &src, const void *layout,
                        size_t layout_len, dt::Segment &one, dt::Cursor &out, std::vector<dt::Segment> &segs,
                        dt::Loop *loops);
  ssize_t move_chunks(dev::Device *d, uint32_t task, bool read, uintptr_t local_base, dt::Cursor &local,
                      uintptr_t remote_base, uint64_t key, dt::Cursor &remote, uint64_t len);
  static void rdv_describe(const Request *r, RdvSource &src);
  // One-sided transfers (pami/protocols/onesided.cc).
  void start_onesided(Request *r, uint64_t remote_addr, bool direct, uint64_t *counts, uint64_t *bytes);
  bool push_onesided(Peer &p, Request *r);
  void sent_onesided(Request *r);
  void on_put(uint32_t src_task, const PutHeader &h, const void *payload, size_t len);
  void on_put_ack(uint64_t cookie);
  void on_get(uint32_t src_task, const GetHeader &h);
  void on_get_data(const GetDataHeader &h, const void *payload, size_t len);
  // Mailboxes (pami/protocols/mailbox.cc). A token: box_cell finds r's cell (nullptr when none can
  // go out) and fills what every token holds, the caller what its kind offers, box_promise publishes
  // it. A message: box_claimable finds the token of this process's next message to p if it names
  // `bits` and offers `kind`, box_claim takes it (false if withdrawn), box_sent publishes the message.
  box::Cell *box_cell(Request *r, bool first, uint64_t &n);
  void box_promise(Request *r, box::Cell &c, uint64_t n);
  box::Cell *box_claimable(Peer &p, uint32_t task, uint64_t bits, uint8_t kind);
  bool box_claim(Peer &p, box::Cell &c);
  void box_sent(Peer &p, uint32_t task, box::Cell &c);
  bool box_withdraw(Request *r);
  void deliver_box(uint32_t src_task);
  void poll_boxes();
  bool box_ready(Peer &p);  // the message that comes next from p is in its mailbox
  bool box_arrived();
  void enqueue(Peer &p, Request *r);
  void send_control(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len);
  void run_hooks() {
    if (hook_.active != hook_.windows_active) hook_.fn();
    if (hook_.windows_active) hook_.windows();
  }
  void on_ack(uint64_t cookie);
  void send_ack(uint32_t task, uint64_t cookie);
  void fill(Request *r, uint64_t offset, const void *data, size_t len);
  void finish_recv(Request *r);
  void finish_send(Request *r);
  bool push(Peer &p, Request *r);
  void push_pending();
  // Sleeps on the doorbell; `done(arg)` is checked again once the sleep is announced, so work that shows
  // only in memory (the shared-memory collectives) cannot be missed. Only single-threaded: the check
  // then runs without the library lock.
  void idle(bool (*done)(void *) = nullptr, void *arg = nullptr, unsigned sleep_us = 0);
  template <typename Pred>
  static bool check(void *pred) {
    return (*static_cast<std::remove_reference_t<Pred> *>(pred))();
  }
  void relax();

  // The devices (seed 000's choice of path is per peer, Peer::dev): shm for the peers on this node,
  // ofi for the others, or for every peer under PAMIR_DEVICE=ofi. Created only when some peer uses one.
  int open_shm(std::string &why);
  int open_ofi(const std::vector<uint32_t> &tasks, std::string &why);
  // PAMIR_DEVICE=torus: every peer through the torus device (devices/torus/), and nothing of shm.
  int open_torus(std::string &why);
  int open_devices(std::string &why);
  int check_settings_agree(const std::string &mine, std::string &why);
  std::function<void(const std::string &)> device_fatal(const char *device);

  Bootstrap boot_;
  PeerWatch watch_;  // this host's peers, whose death ends the job (idle)
  [[noreturn]] void peer_died(uint32_t task);
  uint32_t self_ = 0, ntasks_ = 1;
  std::unique_ptr<dev::Device> shm_;
  std::unique_ptr<dev::Device> ofi_;
  std::unique_ptr<dev::Device> torus_;
  dev::Device *replay_dev_ = nullptr;  // torus_ when it is the device of every peer
  std::vector<int> grid_extents_, grid_coords_;
  bool grid_has_t_ = false;
  struct DevicePattern {
    uint32_t id, section;
  };
  std::vector<DevicePattern> device_patterns_;  // started on replay_dev_, sends not all out yet
  void poll_device_patterns();
  std::vector<Peer> peers_;
  List<Peer> pending_;
  ProgressHook hook_;
  List<Request> rdv_sends_;          // rendezvous sends waiting for their acknowledgment
  bool fault_rdma_read_ = false;     // PAMIR_FAULT=rdma-read: every rendezvous read fails
  bool shared_copy_ = true;          // PAMIR_SHM_SHARED_COPY: large rendezvous copied by both ends
  bool direct_put_ = false;          // PAMIR_DIRECT_PUT
  bool mailbox_ = true;              // PAMIR_MAILBOX
  std::vector<uint32_t> box_peers_;  // peers with messages promised and not yet taken
  // PAMIR_DT_CHUNK_MIN, PAMIR_OFI_DT_CHUNK_MIN by the peer's device: smaller average pieces go in packets.
  uint64_t dt_chunk_min_[unsigned(Path::count_)] = {};
  Matcher matcher_;
  // The receive whose layout the last packet was unpacked into, and where in it: a message's packets
  // arrive in order, so the next one continues there instead of seeking from the start.
  struct FillCursor {
    const Request *req = nullptr;
    const void *buf = nullptr;
    const void *layout = nullptr;
    uint64_t elems = 0;
    dt::Cursor cursor{nullptr, 0, 0, 0};
  } fill_cursor_;
  // Scratch of rendezvous reads between layouts: the origin's segments, and one batch of chunks as the
  // two iovec lists of a process_vm_readv. Kept between messages: a transfer allocates nothing once warm.
  std::vector<dt::Segment> origin_segs_;
  dt::Loop origin_loops_[dt::kMaxLoops];
  // Shared copies: messages up to 2 MiB go in two halves, larger ones in 1 MiB pieces (fewer, larger
  // calls win: each process_vm_readv/writev pins its pages anew, about 1.7 us per call here).
  static uint64_t share_chunk(uint64_t n) {
    return n <= (uint64_t(2) << 20) ? ((n / 2 + 4095) & ~uint64_t(4095)) : uint64_t(1) << 20;
  }
  // Flag of a shared copy's destination: the share is between layouts, described in its note.
  static constexpr uint64_t kShareLayout = uint64_t(1) << 63;
  // A shared copy between layouts: what the origin needs of the target's side, in the share's note
  // (Device::share_note, memory both ends map): where the data goes, the layout's shape, and its
  // segments then loops themselves when they fit after this header (a vector's, an indexed type's of a
  // few blocks, a contiguous receive's one segment); otherwise their addresses in the target, read with
  // one cross-memory read. Inline, the origin starts its part with no system call.
  struct ShareNote {
    uint64_t buf;
    uint64_t segs, loops;  // addresses in the target; 0 when inline
    uint32_t nsegs, nloops;
    int64_t extent;
    uint64_t count;
  };
  void write_share_note(const Request *r, void *note, size_t note_bytes);
  // Shared copies between layouts are pipelined: the target moves a share's first chunk, leaves the
  // rest to the origin and goes on to its next message (an osu_bw window's next request-to-send), so
  // the two cores copy different messages at once instead of meeting at the end of each. It takes back
  // what the origin has not claimed when a pass of advance() brings nothing new, or when it needs the
  // entry for a new share (then it finishes the oldest). Each entry keeps what its share needs until it
  // completes: the cursor over the origin's layout.
  struct LayoutShare {
    Request *r = nullptr;
    uint32_t src_task = 0;
    uint64_t ack_ref = 0, src_addr = 0, key = 0, seq = 0;
    std::vector<dt::Segment> segs;  // the origin's layout, kept between shares (no allocation once warm)
    dt::Loop loops[dt::kMaxLoops];
    dt::Segment one{0, 0}, own_one{0, 0};
    dt::Cursor sc{&one, 1, 0, 1};
  };
  static constexpr unsigned kLayoutShares = 8;
  LayoutShare layout_shares_[kLayoutShares];
  uint32_t layout_shares_used_ = 0;  // bit i: layout_shares_[i] is in flight
  uint64_t layout_share_seq_ = 0;
  LayoutShare &free_layout_share();
  void move_layout_share(LayoutShare &e, bool all);
  bool end_layout_share(unsigned i);
  void poll_layout_shares(bool idle);
  std::vector<dt::Segment> target_segs_;
  dt::Loop target_loops_[dt::kMaxLoops];
  static constexpr unsigned kChunkBatch = 1024;  // IOV_MAX
  struct iovec chunk_local_[kChunkBatch], chunk_remote_[kChunkBatch];
  SendTable send_tables_[unsigned(Path::count_)];  // one per device, self's is shm's
  PutTable put_table_;
  GetTable get_table_;
  bool shm_immediate_ = false;  // shm's table starts with immediate: replayed sends may use mailboxes
  unsigned spin_ = 2000;
  bool served_ = false;
  // Ranks outnumber the node's CPUs (or PAMIR_YIELD_WHEN_IDLE=yes): a blocked call gives the core away
  // between polls, since the peer it waits for may need this very core to make the progress awaited.
  bool yield_ = false;
  bool oversubscribed_ = false;  // this node's ranks outnumber its usable CPUs
  unsigned sleep_max_us_ = 10000;
  unsigned ofi_interval_ = 256;      // passes between fabric polls while shm is busy (poll_ofi_timed)
  unsigned shm_recent_ = 0;          // passes left before shm counts as quiet
  unsigned ofi_skipped_ = 0;         // passes since the fabric was last polled while shm was busy
  unsigned ofi_interval_min_ = 256;  // PAMIR_OFI_POLL_INTERVAL: where ofi_interval_ starts and stops
  uint64_t ofi_last_end_ns_ = 0;     // when the last poll while shm was busy returned (0: none)
  uint64_t ofi_poll_cost_ns_ = 0;    // the recent polls' average cost (poll_ofi_timed)
  // Longest sleep where ofi traffic cannot wake the sleeper (threaded runs, or a provider without a
  // descriptor to poll() beside the shm eventfd).
  static constexpr unsigned kOfiNapUs = 200;
  bool initialized_ = false;
};

// A matched receive's status from the message's envelope and length (truncation when it is longer).
inline void set_recv_status(Request *r, int32_t src, int32_t tag, uint64_t total) {
  r->status.source = src;
  r->status.tag = tag;
  r->status.sent_bytes = total;
  r->status.bytes = std::min(total, r->bytes);
  r->status.error = total > r->bytes ? Err::truncate : Err::ok;
}

// Created when the library is loaded and never destroyed: atexit handlers may still reach it.
extern Context *const g_context;
inline Context &context() {
  return *g_context;
}

}  // namespace pamir
