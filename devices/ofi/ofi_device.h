// The libfabric device: PAMI packets over FI_MSG on one reliable-datagram endpoint (FI_EP_RDM), the
// rendezvous read of seed 001 over FI_RMA, and the completion queue's file descriptor to sleep on.
//
// - Provider: always named in the fi_getinfo hints (PAMIR_OFI_PROVIDER, default "tcp;ofi_rxm"): left
//   unnamed, libfabric 1.17 lists providers first that ignore FI_TCP_IFACE. Where the variable that
//   pins a socket provider is set (pin_variable: FI_TCP_IFACE for tcp, FI_NET_IFACE for net), only
//   entries whose domain is that interface are kept. Send-after-send ordering (FI_ORDER_SAS) is
//   required: PAMI's protocols, like the shm rings, rely on packets to one peer arriving in order.
// - Packets: a 16-byte wire header (the sender's task, since tcp;ofi_rxm gives no FI_SOURCE; dispatch;
//   header length; kind; credits returned), the protocol header and the payload, at most kPacketBytes
//   in all. Packets up to the provider's inject size go out with fi_inject, larger ones are copied into
//   one of kSendBuffers pre-allocated buffers and sent with fi_send.
// - Flow control: receive buffers are pre-posted, credits + 2 per peer this device reaches
//   (PAMIR_OFI_CREDITS, 32 by default, fewer where the provider's receive queue would not hold that many for
//   every peer, and published in the business card); a sender spends one credit per packet and gets them back
//   piggybacked on the peer's packets, or in a credit packet (which spends none) once half are owed. However
//   many senders flood one receiver, no packet ever finds no buffer: at most its credits and two credit
//   packets per peer are in flight.
// - Rendezvous: expose() registers the origin's buffer (a layout's whole span) for remote reads with the
//   acknowledgment slot it belongs to (closed when the slot is freed); read_remote() issues fi_readmsg
//   (a few common chunks each) and progresses the
//   completion queue until the reads are done, keeping any packet that arrives meanwhile for the next
//   poll(), so packets still reach the context in order. The acknowledgment is a packet that the
//   origin's poll() applies to its local slot, so ack_counter() means what it means on shm.
// - Addresses: published through PMIx under kAddressKey; a peer's is looked up and inserted into the
//   address vector at the first packet to or from it, so start-up does no work per peer.
//
// Not thread-safe: the context serialises every call, wait() included.
#pragma once

#include <rdma/fabric.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/ofi/fabric.h"

struct fid_domain;
struct fid_ep;
struct fid_av;
struct fid_cq;
struct fid_mr;

namespace pamir::dev {

struct OfiParams {
  std::string provider;  // fi_getinfo's provider name (PAMIR_OFI_PROVIDER)
  // This endpoint's name where the provider names endpoints after files (shm), unique in the job and
  // under the launcher's clean-up prefix; empty: the provider's own choice.
  std::string endpoint_name;
  uint32_t my_task = 0;
  uint32_t ntasks = 1;
  std::vector<uint32_t> tasks;  // the peers this device reaches, ascending (not my_task)
  // PMIx business cards: publish this process's address; look a peer's up (0 on success).
  std::function<int(const void *, size_t)> publish;
  std::function<int(uint32_t, std::vector<uint8_t> &)> lookup;
  Sink sink{};
  // Acknowledgments by remote atomic add into the origin's registered counters (FI_ATOMIC asked for);
  // forced: an error where the provider has none, else packets then. Each one counted here.
  bool fail_reads = false;  // a test's fault: every start_read() reports failure once done (PAMIR_FAULT)
  // A test's mode: register as a provider that asks for FI_MR_LOCAL wants (packet buffers, each read's
  // destination, their descriptors), which the providers here accept and ignore (PAMIR_FAULT=mr-local).
  bool mr_local = false;
  uint64_t *local_registrations = nullptr;  // counts register_local's registrations
  bool atomic_acks = false;
  bool atomic_acks_forced = false;
  unsigned credits = 32;  // receive buffers per peer, at most (PAMIR_OFI_CREDITS; fewer if they do not fit)
  uint64_t *atomic_acks_sent = nullptr;
  // Called (then abort()) when the device cannot go on: a peer's address cannot be found, the fabric
  // reports an error on a packet. Should end the job with the message.
  std::function<void(const std::string &)> fatal;
};

class OfiDevice final : public Device {
 public:
  static constexpr size_t kPacketBytes = 8192;  // wire header + protocol header + payload
  static constexpr uint32_t kMaxHeader = 240;
  static constexpr unsigned kCredits = 32;      // PAMIR_OFI_CREDITS's default
  static constexpr unsigned kMinCredits = 4;    // and at least: fewer receive buffers are an error
  static constexpr unsigned kSendBuffers = 64;  // fi_send buffers of the whole device
  static constexpr unsigned kAckSlots = 1024;   // rendezvous sends in flight
  static constexpr const char *kAddressKey = "pamir.ofi.addr";
  // Payload bytes next to a header of hdr_len bytes: what max_payload() returns, known before any
  // device exists (protocol-table checks).
  static size_t payload_limit(uint32_t hdr_len) noexcept;

  // Opens the fabric, domain, endpoint, address vector and completion queue, posts the receive
  // buffers and publishes the address (the caller fences before the first packet). nullptr with the
  // reason when the provider is missing or lacks what the device needs.
  static std::unique_ptr<OfiDevice> create(const OfiParams &params, std::string &why);
  // What libfabric here offers of `provider` for the device (its inject size and domains), or why not:
  // a line for pamir_info. Loads libfabric.
  static std::string describe(const std::string &provider, unsigned credits = kCredits);
  ~OfiDevice() override;

  const char *name() const noexcept override { return "ofi"; }
  // The provider that create() chose and its domain, e.g. "tcp;ofi_rxm" and "lo".
  const std::string &provider() const noexcept { return provider_; }
  const std::string &domain_name() const noexcept { return domain_name_; }
  size_t inject_size() const noexcept { return inject_; }

  uint32_t max_header() const noexcept override { return kMaxHeader; }
  size_t max_payload(uint32_t hdr_len) const noexcept override { return payload_limit(hdr_len); }
  bool reaches(uint32_t task) const noexcept override { return task < peers_.size() && peers_[task].reached; }
  bool try_send(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len, const void *payload,
                size_t payload_len) noexcept override;
  bool try_send_fill(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len, size_t payload_len,
                     const Fill &fill) noexcept override;
  unsigned poll() noexcept override;
  // Reads every common piece of the two lists, read_group_ pieces per fi_readmsg; returns the bytes
  // read or -errno (-EIO with the provider's message in last_error() when the fabric failed a read).
  ssize_t read_remote(uint32_t task, const struct iovec *local, unsigned nlocal, const struct iovec *remote,
                      unsigned nremote, uint64_t key) noexcept override;
  // The same reads, completing in the background (kAsyncReads at a time): the target of a rendezvous
  // goes on serving its other peers meanwhile.
  bool start_read(uint32_t task, const struct iovec *local, unsigned nlocal, const struct iovec *remote,
                  unsigned nremote, uint64_t key, uint64_t cookie) noexcept override;
  // Writes are not offered yet (one-sided transfers over ofi go by packets): -ENOTSUP.
  ssize_t write_remote(uint32_t task, const struct iovec *local, unsigned nlocal, const struct iovec *remote,
                       unsigned nremote, uint64_t key) noexcept override;
  bool expose(uint64_t ack_ref, const void *addr, uint64_t len, uint64_t &remote_addr,
              uint64_t &key) noexcept override;
  // Only exposed data is readable: the origin sends its layout in the request-to-send.
  bool reads_layouts() const noexcept override { return false; }
  bool expose_held(uint32_t &hold, const void *addr, uint64_t len, uint64_t &remote_addr,
                   uint64_t &key) noexcept override;
  void release_held(uint32_t hold) noexcept override;
  uint64_t ack_alloc(uint64_t expect) noexcept override;
  // Atomic: a provider may add into it from outside this thread (PAMIR_OFI_ACK=atomic).
  uint64_t ack_counter(uint64_t ref) const noexcept override {
    return __atomic_load_n(&acks_[ref - 1].counter, __ATOMIC_ACQUIRE);
  }
  int64_t ack_status(uint64_t ref) const noexcept override { return acks_[ref - 1].status; }
  void ack_free(uint64_t ref) noexcept override;
  void ack_write(uint32_t task, uint64_t ref, uint64_t bytes, int64_t status) noexcept override;
  // Sleeps on the completion queue's file descriptor once fi_trywait() says nothing is pending; a
  // provider with no descriptor sleeps at most kNoFdSleepUs at a time.
  void wait(unsigned timeout_us, bool (*also)(void *) = nullptr, void *arg = nullptr) noexcept override;
  // For a caller that sleeps on this descriptor beside others (the context, with the shm device): -1
  // when the provider has none. may_sleep() is the last check before sleeping on it: nothing kept for
  // the next poll(), and fi_trywait() says the descriptor will signal what comes.
  int wait_fd() const noexcept { return wait_fd_; }
  // Packets each peer may send this process before it hears they were taken (published in its card).
  unsigned credits() const noexcept { return credits_; }
  // Whether acknowledgments by remote atomic measured faster than packets on `provider` (PAMIR_OFI_ACK=auto).
  static bool atomic_acks_faster(const std::string &provider) noexcept;
  bool atomic_acks() const noexcept { return ack_mr_ != nullptr; }
  // start_read()s not yet done: under manual progress only this process's polls move their bytes, so
  // a caller without the descriptor to sleep on must not nap while there are any.
  // Relaxed: a sleeping thread asks without the context's lock.
  unsigned reads_in_flight() const noexcept { return __atomic_load_n(&reads_in_flight_, __ATOMIC_RELAXED); }
  // The environment variable that pins `provider` (a socket provider) to one interface, or nullptr.
  static const char *pin_variable(const std::string &provider) noexcept;
  bool may_sleep() noexcept;
  // The descriptor woke its sleeper: counted against the provider until a completion is read.
  void woken_by_fd() noexcept {
    if (++futile_ >= kFutileLimit) wait_fd_ = -1;
  }
  void shutdown() noexcept override;

  // The provider's message for the last failed read (fi_cq_readerr), for error reports.
  const std::string &last_error() const noexcept { return last_error_; }

 private:
  struct Op;
  struct Buf;
  struct Peer {
    uint64_t addr = ~uint64_t(0);  // fi_addr_t, FI_ADDR_NOTAVAIL until resolved
    uint64_t ack_base = 0;         // its acknowledgment slots as it registered them (0: no atomics)
    uint64_t ack_key = 0;
    unsigned credits = 0;  // packets this process may still send the peer (its card's, at first)
    unsigned owed = 0;     // packets taken from the peer whose buffers it has not been told of
    bool reached = false;
    bool owed_listed = false;
  };
  // A registration for remote reads: an acknowledgment slot's (released with the slot) or a held one.
  struct Region {
    struct fid_mr *mr = nullptr;
    uint64_t addr = 0, len = 0, remote_addr = 0, key = 0;
  };
  struct AckSlot {
    uint64_t counter = 0;
    int64_t status = 0;
    Region region;
    uint32_t next_free = 0;
  };
  struct AckWire {
    uint64_t ref, bytes;
    int64_t status;
  };
  static constexpr unsigned kNoFdSleepUs = 100;
  static constexpr unsigned kReadSpins = 256;   // polls for a read's completion before yielding the core
  static constexpr unsigned kMaxReadGroup = 8;  // pieces in one fi_readmsg at most
  static constexpr unsigned kAsyncReads = 64;   // start_read()s in progress at most

  OfiDevice() = default;
  bool resolve(uint32_t task) noexcept;
  bool register_region(Region &g, const void *addr, uint64_t len) noexcept;
  int register_local(const struct iovec *local, unsigned nlocal, fid_mr *&mr) noexcept;
  int issue_reads(Peer &p, Op &op, const struct iovec *local, unsigned nlocal, const struct iovec *remote,
                  unsigned nremote, uint64_t key, uint64_t &total) noexcept;
  void read_finished(Op &op) noexcept;
  Peer &peer(uint32_t task) noexcept;
  template <typename Writer>
  bool post(uint32_t task, uint8_t kind, uint16_t dispatch, uint32_t hdr_len, size_t body, Writer &&write,
            bool spend_credit, bool once = false) noexcept;
  void handle(Buf *b, size_t len) noexcept;
  void complete(void *op_context, size_t len) noexcept;
  void cq_error() noexcept;
  unsigned drain(bool defer_packets) noexcept;
  void repost(Buf *b) noexcept;
  void return_credits(uint32_t task) noexcept;
  void flush_owed() noexcept;
  std::string fi_error(const char *what, int rc) const;
  [[noreturn]] void fail(const std::string &msg) const noexcept;

  const ofi::Fabric *lib_ = nullptr;
  struct fi_info *info_ = nullptr;
  struct fid_fabric *fabric_ = nullptr;
  struct fid_domain *domain_ = nullptr;
  struct fid_ep *ep_ = nullptr;
  struct fid_av *av_ = nullptr;
  struct fid_cq *cq_ = nullptr;
  struct fid_mr *pool_mr_ = nullptr;  // the buffers' registration where the provider wants FI_MR_LOCAL
  struct fid_mr *ack_mr_ = nullptr;   // the acknowledgment slots', for peers' atomics (PAMIR_OFI_ACK)
  uint64_t *atomic_acks_sent_ = nullptr;
  uint64_t *local_registrations_ = nullptr;
  bool fail_reads_ = false;
  void *pool_desc_ = nullptr;
  int wait_fd_ = -1;
  // Wake-ups by the descriptor in a row with no completion read between them: a provider whose
  // descriptor never settles (net here: always readable) would make every sleep a busy loop; after
  // kFutileLimit the device stops using the descriptor and naps instead.
  unsigned futile_ = 0;
  static constexpr unsigned kFutileLimit = 1024;
  uint64_t mr_mode_ = 0;
  size_t inject_ = 0;
  unsigned credits_ = kCredits;  // this process's receive buffers per peer, less two (create)
  size_t max_msg_ = 0;
  unsigned read_group_ = 1;  // pieces per fi_readmsg: the provider's iov and rma_iov limits
  uint64_t next_key_ = 1;
  std::string provider_, domain_name_;
  std::string last_error_;

  std::unique_ptr<Buf[]> bufs_;  // receive buffers, then send buffers
  unsigned nrecv_ = 0;
  Buf *free_send_ = nullptr;
  // Packets read from the completion queue while a read_remote() waited for its reads: delivered by
  // the next poll(), before anything newer. At most every receive buffer.
  std::vector<Buf *> deferred_;
  std::vector<size_t> deferred_len_;
  size_t deferred_head_ = 0;
  // A read_remote() in progress: reads outstanding and the first failure.
  std::unique_ptr<Op> read_op_;
  // start_read()'s ops, and the results of those done, reported by the next poll().
  std::unique_ptr<Op[]> async_ops_;
  Op *free_ops_ = nullptr;
  unsigned reads_in_flight_ = 0;
  struct ReadDone {
    uint64_t cookie;
    int64_t status;
  };
  std::vector<ReadDone> reads_done_;

  std::vector<Peer> peers_;
  std::vector<uint32_t> owed_;  // peers owed credits that a credit packet could not carry yet
  std::vector<AckSlot> acks_;
  uint32_t free_ack_ = 0;     // index + 1 of the first free slot, 0 when none
  std::vector<Region> held_;  // expose_held()'s registrations; a hold is index + 1
  std::vector<uint32_t> free_held_;
  std::vector<AckWire> acks_unsent_;  // acknowledgments waiting for a credit, with their peers below
  std::vector<uint32_t> acks_unsent_task_;
  std::unique_ptr<uint8_t[]> scratch_;  // an injected packet is put together here
  Sink sink_{};
  std::function<int(uint32_t, std::vector<uint8_t> &)> lookup_;
  std::function<void(const std::string &)> fatal_;
  uint32_t self_ = 0;
  bool in_poll_ = false;
  bool closing_ = false;
};

}  // namespace pamir::dev
