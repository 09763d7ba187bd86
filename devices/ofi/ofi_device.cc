#include "devices/ofi/ofi_device.h"

#include <poll.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pamir::dev {

namespace {

// What travels in front of every packet.
struct Wire {
  uint32_t src;       // the sender's task (no FI_SOURCE on tcp;ofi_rxm)
  uint16_t dispatch;  // the context's dispatch id (kPacket)
  uint8_t hdr_len;    // protocol header bytes after this one
  uint8_t kind;
  uint32_t credits;  // the receiver's credits returned by this packet
  uint32_t unused;
};
static_assert(sizeof(Wire) == 16);
static_assert(OfiDevice::kMaxHeader <= UINT8_MAX);

enum Kind : uint8_t {
  kPacket = 0,  // for the context's sink
  kCredit = 1,  // credits only; spends none
  kAck = 2,     // an acknowledgment (AckWire) for one of the receiver's slots
};

// What a completion's op_context points at.
enum OpType : uint8_t { kRecvBuf = 1, kSendBuf, kRead };

// Where the provider's FI_ADDR_NOTAVAIL lives in a Peer before the address is known.
constexpr uint64_t kNoAddr = uint64_t(FI_ADDR_NOTAVAIL);

// What a process publishes under kAddressKey: where peers add into its acknowledgment counters (0
// without atomics), then the endpoint's name.
struct CardHeader {
  uint64_t ack_base;
  uint64_t ack_key;
  uint32_t credits;  // receive buffers it posted for each peer, less the two for credit packets
  uint32_t reserved;
};

}  // namespace

// Every operation's context starts with the provider's scratch (FI_CONTEXT2 mode), then its type.
struct OfiDevice::Op {
  struct fi_context2 ctx;
  uint8_t type = kRead;
  bool async = false;        // start_read's: reported through the sink once done, then freed
  unsigned outstanding = 0;  // reads not yet completed (and 1 while they are being issued)
  int error = 0;             // first failure (positive fi errno)
  uint64_t cookie = 0;
  struct fid_mr *local_mr = nullptr;  // FI_MR_LOCAL: the destination span's registration, closed when done
  Op *next = nullptr;                 // free list
};

struct OfiDevice::Buf {
  struct fi_context2 ctx;
  uint8_t type = kRecvBuf;
  uint32_t task = 0;  // a send buffer's destination, for its error report
  Buf *next = nullptr;
  alignas(64) uint8_t data[kPacketBytes];
};

size_t OfiDevice::payload_limit(uint32_t hdr_len) noexcept {
  return hdr_len > kMaxHeader ? 0 : kPacketBytes - sizeof(Wire) - hdr_len;
}

std::string OfiDevice::fi_error(const char *what, int rc) const {
  return std::string(what) + ": " + lib_->strerror(rc < 0 ? -rc : rc);
}

void OfiDevice::fail(const std::string &msg) const noexcept {
  if (fatal_) fatal_(msg);
  std::fprintf(stderr, "Pamir: ofi device: %s\n", msg.c_str());
  std::abort();
}

namespace {

// The names of the providers that offer what the device needs, for the error that says the chosen one
// does not.
std::string providers_offering(const ofi::Fabric *lib, const fi_info *hints) {
  fi_info *h = lib->dupinfo(hints);
  free(h->fabric_attr->prov_name);
  h->fabric_attr->prov_name = nullptr;
  fi_info *list = nullptr;
  std::string names;
  if (lib->getinfo(FI_VERSION(1, 14), nullptr, nullptr, 0, h, &list) == 0) {
    std::vector<std::string> seen;
    for (fi_info *i = list; i; i = i->next) {
      std::string n = i->fabric_attr->prov_name ? i->fabric_attr->prov_name : "?";
      if (std::find(seen.begin(), seen.end(), n) != seen.end()) continue;
      seen.push_back(n);
      names += (names.empty() ? "" : ", ") + n;
    }
    lib->freeinfo(list);
  }
  lib->freeinfo(h);
  return names.empty() ? "none" : names;
}

// The fi_getinfo hints of what the device needs, from the named provider.
fi_info *needs(const ofi::Fabric *lib, const std::string &provider) {
  fi_info *hints = lib->dupinfo(nullptr);
  hints->caps = FI_MSG | FI_RMA | FI_SEND | FI_RECV | FI_READ | FI_REMOTE_READ;
  hints->mode = FI_CONTEXT | FI_CONTEXT2;
  hints->ep_attr->type = FI_EP_RDM;
  hints->tx_attr->msg_order = FI_ORDER_SAS;
  hints->rx_attr->msg_order = FI_ORDER_SAS;
  hints->domain_attr->threading = FI_THREAD_DOMAIN;
  hints->domain_attr->mr_mode =
      FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
  hints->fabric_attr->prov_name = strdup(provider.c_str());
  return hints;
}

}  // namespace

std::string OfiDevice::describe(const std::string &provider, unsigned credits) {
  std::string why;
  const ofi::Fabric *lib = ofi::load_fabric(why);
  if (!lib) return why;
  fi_info *hints = needs(lib, provider);
  fi_info *list = nullptr;
  std::string out;
  const int rc = lib->getinfo(FI_VERSION(1, 14), nullptr, nullptr, 0, hints, &list);
  if (rc != 0 || !list) {
    out = provider + " is not offered here with what the device needs; providers that do: " +
          providers_offering(lib, hints);
  } else {
    std::vector<std::string> domains;
    for (fi_info *i = list; i; i = i->next) {
      const std::string d = i->domain_attr && i->domain_attr->name ? i->domain_attr->name : "?";
      if (std::find(domains.begin(), domains.end(), d) == domains.end()) domains.push_back(d);
    }
    out = provider + " offered, inject " + std::to_string(list->tx_attr->inject_size) + " B, domains:";
    for (const std::string &d : domains) out += " " + d;
    // How many peers its receive queue serves: the limit a job of many ranks meets at MPI_Init (create).
    const size_t rx = list->rx_attr->size ? list->rx_attr->size : 1024;
    credits = std::max(credits, kMinCredits);  // PAMIR_OFI_CREDITS, as create() takes it
    out += "; receive queue " + std::to_string(rx) + ": " + std::to_string(credits) +
           " credits a peer for up to " + std::to_string(rx / (credits + 2)) + " peers, " +
           std::to_string(kMinCredits) + " for up to " + std::to_string(rx / (kMinCredits + 2));
    lib->freeinfo(list);
  }
  lib->freeinfo(hints);
  return out;
}

// The socket providers and the variable that pins each to one interface (libfabric's own names):
// the core provider is the first of a layered name ("tcp;ofi_rxm").
const char *OfiDevice::pin_variable(const std::string &provider) noexcept {
  static constexpr struct {
    const char *core, *variable;
  } kPins[] = {{"tcp", "FI_TCP_IFACE"},
               {"net", "FI_NET_IFACE"},
               {"sockets", "FI_SOCKETS_IFACE"},
               {"udp", "FI_UDP_IFACE"}};
  const std::string core = provider.substr(0, provider.find(';'));
  for (const auto &pin : kPins)
    if (core == pin.core) return pin.variable;
  return nullptr;
}

std::unique_ptr<OfiDevice> OfiDevice::create(const OfiParams &p, std::string &why) {
  std::unique_ptr<OfiDevice> d(new OfiDevice);
  if (!(d->lib_ = ofi::load_fabric(why))) return nullptr;
  const ofi::Fabric *lib = d->lib_;
  if (!p.sink.deliver || !p.lookup || !p.publish) {
    why = "ofi: created without a sink or business-card functions";
    return nullptr;
  }
  fi_info *hints = needs(lib, p.provider);
  fi_info *list = nullptr;
  // A provider that names its endpoints after files (shm: /dev/shm/<name>) gets the job's name for
  // this process, which the launcher removes after a rank that died; its own choice (the pid) would
  // also collide with a file a killed process of an earlier job left behind.
  const bool named = p.provider.compare(0, 3, "shm") == 0 && !p.endpoint_name.empty();
  auto getinfo = [&] {
    return lib->getinfo(FI_VERSION(1, 14), named ? p.endpoint_name.c_str() : nullptr, nullptr,
                        named ? FI_SOURCE : 0, hints, &list);
  };
  // Atomic acknowledgments ask for FI_ATOMIC too; a provider without it takes packets, unless forced.
  bool atomics = p.atomic_acks;
  int rc = -FI_ENODATA;
  if (atomics) {
    hints->caps |= FI_ATOMIC;
    rc = getinfo();
    hints->caps &= ~uint64_t(FI_ATOMIC);
    if ((rc != 0 || !list) && p.atomic_acks_forced) {
      why = "PAMIR_OFI_ACK=atomic: PAMIR_OFI_PROVIDER=\"" + p.provider +
            "\" offers no remote atomics here (" + lib->strerror(-rc) + ")";
      lib->freeinfo(hints);
      return nullptr;
    }
    atomics = rc == 0 && list;
  }
  if (!atomics) rc = getinfo();
  if (rc != 0 || !list) {
    why = "PAMIR_OFI_PROVIDER=\"" + p.provider +
          "\": libfabric offers no such provider with reliable-datagram endpoints, messages, RMA reads and "
          "send-after-send ordering here (" +
          lib->strerror(-rc) + "); providers that do: " + providers_offering(lib, hints);
    lib->freeinfo(hints);
    return nullptr;
  }
  lib->freeinfo(hints);
  // FI_TCP_IFACE (FI_NET_IFACE for net) pins a socket provider to one interface, but its list still
  // names the others: keep only that interface's entries, so traffic never leaves it.
  const char *pin = pin_variable(p.provider);
  const char *iface = pin ? std::getenv(pin) : nullptr;
  fi_info *chosen = nullptr;
  for (fi_info *i = list; i && !chosen; i = i->next) {
    const char *dom = i->domain_attr && i->domain_attr->name ? i->domain_attr->name : "";
    if (iface && *iface && std::strcmp(dom, iface) != 0) continue;
    chosen = i;
  }
  if (!chosen) {
    why = "PAMIR_OFI_PROVIDER=\"" + p.provider + "\" offers no domain on " + pin + "=\"" + iface + "\"";
    lib->freeinfo(list);
    return nullptr;
  }
  d->info_ = lib->dupinfo(chosen);
  lib->freeinfo(list);
  fi_info *info = d->info_;
  d->provider_ = info->fabric_attr->prov_name ? info->fabric_attr->prov_name : p.provider;
  d->domain_name_ = info->domain_attr->name ? info->domain_attr->name : "";
  d->mr_mode_ = info->domain_attr->mr_mode | (p.mr_local ? uint64_t(FI_MR_LOCAL) : 0);
  d->local_registrations_ = p.local_registrations;
  d->inject_ = info->tx_attr->inject_size;
  d->max_msg_ = info->ep_attr->max_msg_size ? info->ep_attr->max_msg_size : SIZE_MAX;
  // libfabric 1.17's shm provider offers 4 of each but never completes a read of several small pieces
  // (measured: dt_transfer's 16-byte pieces, 2 per fi_readmsg, hang after about a hundred reads); one
  // piece per read there, where a read is a process_vm_readv per piece anyway.
  const size_t group = std::min(info->tx_attr->iov_limit, info->tx_attr->rma_iov_limit);
  d->read_group_ = d->provider_ == "shm" ? 1 : unsigned(std::clamp<size_t>(group, 1, kMaxReadGroup));
  d->self_ = p.my_task;
  d->sink_ = p.sink;
  d->lookup_ = p.lookup;
  d->fatal_ = p.fatal;
  const std::string where = "ofi provider " + d->provider_ + " (domain " + d->domain_name_ + ")";

  if ((rc = lib->fabric(info->fabric_attr, &d->fabric_, nullptr)) ||
      (rc = fi_domain(d->fabric_, info, &d->domain_, nullptr))) {
    why = d->fi_error((where + ": opening the fabric").c_str(), rc);
    return nullptr;
  }
  // Receive buffers: credits + 2 per peer, within what the provider's receive queue holds (2048 on
  // tcp;ofi_rxm, 1024 on shm here): PAMIR_OFI_CREDITS (32) each up to 60 peers on tcp, fewer beyond, down to
  // kMinCredits. Peers learn this process's credits from its business card.
  const size_t npeers = std::max<size_t>(1, p.tasks.size());
  const size_t rx_cap = info->rx_attr->size ? info->rx_attr->size : 1024;
  const size_t fit = rx_cap / npeers;
  if (fit < kMinCredits + 2) {
    why = where + ": its receive queue holds " + std::to_string(rx_cap) + " buffers, fewer than the " +
          std::to_string((kMinCredits + 2) * npeers) + " that flow control to " + std::to_string(npeers) +
          " peers needs (" + std::to_string(kMinCredits) + " credits and 2 credit packets each)";
    return nullptr;
  }
  d->credits_ = unsigned(std::min<size_t>(std::max(p.credits, kMinCredits), fit - 2));
  d->nrecv_ = unsigned((d->credits_ + 2) * npeers);
  const unsigned nbufs = d->nrecv_ + kSendBuffers;

  struct fi_cq_attr ca = {};
  ca.format = FI_CQ_FORMAT_MSG;
  ca.size = nbufs + 64;
  ca.wait_obj = FI_WAIT_FD;
  if (fi_cq_open(d->domain_, &ca, &d->cq_, nullptr) != 0) {
    ca.wait_obj = FI_WAIT_NONE;  // the provider has no descriptor to sleep on: wait() naps instead
    if ((rc = fi_cq_open(d->domain_, &ca, &d->cq_, nullptr))) {
      why = d->fi_error((where + ": opening a completion queue").c_str(), rc);
      return nullptr;
    }
  }
  struct fi_av_attr aa = {};
  aa.type = FI_AV_TABLE;
  aa.count = p.ntasks;
  if ((rc = fi_av_open(d->domain_, &aa, &d->av_, nullptr)) ||
      (rc = fi_endpoint(d->domain_, info, &d->ep_, nullptr)) || (rc = fi_ep_bind(d->ep_, &d->av_->fid, 0)) ||
      (rc = fi_ep_bind(d->ep_, &d->cq_->fid, FI_TRANSMIT | FI_RECV)) || (rc = fi_enable(d->ep_))) {
    why = d->fi_error((where + ": opening an endpoint").c_str(), rc);
    return nullptr;
  }
  if (ca.wait_obj == FI_WAIT_FD && fi_control(&d->cq_->fid, FI_GETWAIT, &d->wait_fd_) != 0) d->wait_fd_ = -1;

  d->bufs_.reset(new Buf[nbufs]);
  if (d->mr_mode_ & FI_MR_LOCAL) {
    if ((rc = fi_mr_reg(d->domain_, d->bufs_.get(), nbufs * sizeof(Buf), FI_SEND | FI_RECV, 0, d->next_key_++,
                        0, &d->pool_mr_, nullptr))) {
      why = d->fi_error((where + ": registering the packet buffers").c_str(), rc);
      return nullptr;
    }
    if (d->mr_mode_ & FI_MR_ENDPOINT) {
      if ((rc = fi_mr_bind(d->pool_mr_, &d->ep_->fid, 0)) || (rc = fi_mr_enable(d->pool_mr_))) {
        why = d->fi_error((where + ": binding the packet buffers' registration").c_str(), rc);
        return nullptr;
      }
    }
    d->pool_desc_ = fi_mr_desc(d->pool_mr_);
  }
  d->peers_.resize(p.ntasks);
  for (uint32_t t : p.tasks)
    if (t < p.ntasks && t != p.my_task) d->peers_[t].reached = true;
  d->deferred_.reserve(d->nrecv_);
  d->deferred_len_.reserve(d->nrecv_);
  d->owed_.reserve(p.ntasks);
  d->acks_.resize(kAckSlots);
  for (uint32_t i = 0; i < kAckSlots; ++i) d->acks_[i].next_free = i + 1 < kAckSlots ? i + 2 : 0;
  d->free_ack_ = 1;
  CardHeader card{0, 0, d->credits_, 0};
  if (atomics) {
    // Peers add into the counters in place: the slots' memory is registered for remote writes. A
    // provider that lists FI_ATOMIC but has no 64-bit sum, or will not register them (net here), takes
    // packets; where the user asked for atomics that is an error naming the variable.
    struct fi_atomic_attr aattr = {};
    if ((rc = fi_query_atomic(d->domain_, FI_UINT64, FI_SUM, &aattr, 0)) ||
        (rc = fi_mr_reg(d->domain_, d->acks_.data(), kAckSlots * sizeof(AckSlot),
                        FI_REMOTE_READ | FI_REMOTE_WRITE, 0,
                        (d->mr_mode_ & FI_MR_PROV_KEY) ? 0 : d->next_key_++, 0, &d->ack_mr_, nullptr)) ||
        ((d->mr_mode_ & FI_MR_ENDPOINT) &&
         ((rc = fi_mr_bind(d->ack_mr_, &d->ep_->fid, 0)) || (rc = fi_mr_enable(d->ack_mr_))))) {
      if (p.atomic_acks_forced) {
        why = d->fi_error(("PAMIR_OFI_ACK=atomic: " + where +
                           " cannot take atomic acknowledgments (a 64-bit sum into registered memory)")
                              .c_str(),
                          rc);
        return nullptr;
      }
      if (d->ack_mr_) fi_close(&d->ack_mr_->fid);
      d->ack_mr_ = nullptr;
    } else {
      card.ack_base = (d->mr_mode_ & FI_MR_VIRT_ADDR) ? uint64_t(uintptr_t(d->acks_.data())) : 0;
      card.ack_key = fi_mr_key(d->ack_mr_);
      d->atomic_acks_sent_ = p.atomic_acks_sent;
    }
  }
  d->acks_unsent_.reserve(kAckSlots);
  d->acks_unsent_task_.reserve(kAckSlots);
  d->scratch_.reset(new uint8_t[std::max<size_t>(d->inject_, kPacketBytes)]);
  d->read_op_.reset(new Op);
  d->fail_reads_ = p.fail_reads;
  if (p.sink.read_done) {
    d->async_ops_.reset(new Op[kAsyncReads]);
    for (unsigned i = 0; i < kAsyncReads; ++i) {
      d->async_ops_[i].async = true;
      d->async_ops_[i].next = d->free_ops_;
      d->free_ops_ = &d->async_ops_[i];
    }
    d->reads_done_.reserve(kAsyncReads);
  }
  for (unsigned i = 0; i < nbufs; ++i) {
    Buf &b = d->bufs_[i];
    if (i < d->nrecv_) {
      b.type = kRecvBuf;
      if ((rc = int(fi_recv(d->ep_, b.data, kPacketBytes, d->pool_desc_, FI_ADDR_UNSPEC, &b)))) {
        why = d->fi_error((where + ": posting receive buffers").c_str(), rc);
        return nullptr;
      }
    } else {
      b.type = kSendBuf;
      b.next = d->free_send_;
      d->free_send_ = &b;
    }
  }
  uint8_t blob[sizeof card + 256];
  size_t len = sizeof blob - sizeof card;
  if ((rc = fi_getname(&d->ep_->fid, blob + sizeof card, &len))) {
    why = d->fi_error((where + ": reading the endpoint's address").c_str(), rc);
    return nullptr;
  }
  std::memcpy(blob, &card, sizeof card);
  if (p.publish(blob, sizeof card + len) != 0) {
    why = where + ": publishing the endpoint's address through PMIx failed";
    return nullptr;
  }
  return d;
}

OfiDevice::~OfiDevice() {
  for (AckSlot &s : acks_)
    if (s.region.mr) fi_close(&s.region.mr->fid);
  for (Region &g : held_)
    if (g.mr) fi_close(&g.mr->fid);
  if (ep_) fi_close(&ep_->fid);
  if (pool_mr_) fi_close(&pool_mr_->fid);
  if (ack_mr_) fi_close(&ack_mr_->fid);
  if (av_) fi_close(&av_->fid);
  if (cq_) fi_close(&cq_->fid);
  if (domain_) fi_close(&domain_->fid);
  if (fabric_) fi_close(&fabric_->fid);
  if (info_) lib_->freeinfo(info_);
}

bool OfiDevice::resolve(uint32_t task) noexcept {
  Peer &p = peers_[task];
  std::vector<uint8_t> blob;
  if (lookup_(task, blob) != 0 || blob.size() <= sizeof(CardHeader)) return false;
  CardHeader card;
  std::memcpy(&card, blob.data(), sizeof card);
  fi_addr_t a = FI_ADDR_NOTAVAIL;
  if (fi_av_insert(av_, blob.data() + sizeof card, 1, &a, 0, nullptr) != 1) return false;
  p.addr = a;
  p.ack_base = card.ack_base;
  p.ack_key = card.ack_key;
  p.credits += card.credits;  // nothing came back before this process first sent
  return true;
}

OfiDevice::Peer &OfiDevice::peer(uint32_t task) noexcept {
  if (task >= peers_.size() || !peers_[task].reached) [[unlikely]]
    fail("no route to rank " + std::to_string(task) + " through " + provider_);
  Peer &p = peers_[task];
  if (p.addr == kNoAddr && !resolve(task)) [[unlikely]]
    fail("cannot find rank " + std::to_string(task) + "'s fabric address (PMIx key " + kAddressKey + ")");
  return p;
}

// Puts a packet together behind the wire header and hands it to the provider. `write(dst)` writes
// the body (protocol header and payload, `body` bytes) and is called only where the packet then
// certainly goes. Returns false, having sent nothing, when there is no credit, no buffer or no room in
// the provider now; with `once` (a body that cannot be written twice) the last is waited out instead.
template <typename Writer>
bool OfiDevice::post(uint32_t task, uint8_t kind, uint16_t dispatch, uint32_t hdr_len, size_t body,
                     Writer &&write, bool spend_credit, bool once) noexcept {
  Peer &p = peer(task);
  if (spend_credit && p.credits == 0) return false;
  const Wire w{self_, dispatch, uint8_t(hdr_len), kind, p.owed, 0};
  const size_t total = sizeof w + body;
  ssize_t rc;
  if (total <= inject_ && !once) {
    uint8_t *dst = scratch_.get();
    std::memcpy(dst, &w, sizeof w);
    write(dst + sizeof w);
    rc = fi_inject(ep_, dst, total, p.addr);
  } else {
    Buf *b = free_send_;
    if (!b) return false;
    free_send_ = b->next;
    b->task = task;
    std::memcpy(b->data, &w, sizeof w);
    write(b->data + sizeof w);
    rc = fi_send(ep_, b->data, total, pool_desc_, p.addr, b);
    // A body written by a fill cannot be written again: its packet goes once the queue has room.
    while (rc == -FI_EAGAIN && once) {
      drain(true);
      rc = fi_send(ep_, b->data, total, pool_desc_, p.addr, b);
    }
    if (rc) {
      b->next = free_send_;
      free_send_ = b;
    }
  }
  if (rc == -FI_EAGAIN) return false;
  if (rc) [[unlikely]]
    fail(fi_error(("sending to rank " + std::to_string(task)).c_str(), int(rc)));
  if (spend_credit) --p.credits;
  p.owed = 0;
  return true;
}

bool OfiDevice::try_send(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len,
                         const void *payload, size_t payload_len) noexcept {
  return post(
      task, kPacket, dispatch, hdr_len, hdr_len + payload_len,
      [&](uint8_t *dst) {
        if (hdr_len) std::memcpy(dst, hdr, hdr_len);
        if (payload_len) std::memcpy(dst + hdr_len, payload, payload_len);
      },
      true);
}

bool OfiDevice::try_send_fill(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len,
                              size_t payload_len, const Fill &fill) noexcept {
  // fill() moves the caller's cursor, so it runs only for a packet that goes: a credit and a buffer
  // first, and a provider queue that is full is waited out after it.
  Peer &p = peer(task);
  if (p.credits == 0 || !free_send_) return false;
  return post(
      task, kPacket, dispatch, hdr_len, hdr_len + payload_len,
      [&](uint8_t *dst) {
        if (hdr_len) std::memcpy(dst, hdr, hdr_len);
        fill.fn(fill.arg, dst + hdr_len, payload_len);
      },
      true, true);
}

void OfiDevice::repost(Buf *b) noexcept {
  ssize_t rc;
  while ((rc = fi_recv(ep_, b->data, kPacketBytes, pool_desc_, FI_ADDR_UNSPEC, b)) == -FI_EAGAIN) drain(true);
  if (rc && !closing_) fail(fi_error("reposting a receive buffer", int(rc)));
}

void OfiDevice::handle(Buf *b, size_t len) noexcept {
  Wire w;
  if (len < sizeof w) fail("a packet of " + std::to_string(len) + " bytes is shorter than its header");
  std::memcpy(&w, b->data, sizeof w);
  if (w.src >= peers_.size() || !peers_[w.src].reached || sizeof w + w.hdr_len > len || w.kind > kAck)
    fail("a malformed packet (from task " + std::to_string(w.src) + ", kind " + std::to_string(w.kind) +
         ", " + std::to_string(len) + " bytes)");
  Peer &p = peers_[w.src];
  p.credits += w.credits;
  const uint8_t *hdr = b->data + sizeof w;
  switch (w.kind) {
    case kPacket:
      sink_.deliver(sink_.arg, w.src, w.dispatch, hdr, w.hdr_len, hdr + w.hdr_len,
                    len - sizeof w - w.hdr_len);
      break;
    case kAck: {
      AckWire a;
      std::memcpy(&a, hdr, sizeof a);
      if (a.ref == 0 || a.ref > acks_.size()) fail("an acknowledgment for slot " + std::to_string(a.ref));
      AckSlot &s = acks_[a.ref - 1];
      if (a.status && !s.status) s.status = a.status;
      s.counter -= std::min(s.counter, a.bytes);
      break;
    }
    default:
      break;
  }
  repost(b);
  if (w.kind == kCredit) return;
  // Packets taken since the last return are at most the credits this process published: more means
  // the peer sent beyond them (a provider that does not queue unexpected messages would drop them).
  if (++p.owed > credits_)
    fail("rank " + std::to_string(w.src) + " sent more packets than the " + std::to_string(credits_) +
         " credits this process gave it (flow control)");
  if (p.owed >= credits_ / 2) return_credits(w.src);
}

void OfiDevice::return_credits(uint32_t task) noexcept {
  Peer &p = peers_[task];
  if (!p.owed) return;
  if (post(
          task, kCredit, 0, 0, 0, [](uint8_t *) {}, false))
    return;
  if (!p.owed_listed) {
    p.owed_listed = true;
    owed_.push_back(task);
  }
}

void OfiDevice::flush_owed() noexcept {
  size_t keep = 0;
  for (uint32_t t : owed_) {
    Peer &p = peers_[t];
    if (p.owed && !post(
                      t, kCredit, 0, 0, 0, [](uint8_t *) {}, false)) {
      owed_[keep++] = t;
      continue;
    }
    p.owed_listed = false;
  }
  owed_.resize(keep);
}

void OfiDevice::complete(void *op_context, size_t len) noexcept {
  const uint8_t type = static_cast<Op *>(op_context)->type;  // Op and Buf both start with ctx, then type
  switch (type) {
    case kRecvBuf:
      handle(static_cast<Buf *>(op_context), len);
      break;
    case kSendBuf: {
      Buf *b = static_cast<Buf *>(op_context);
      b->next = free_send_;
      free_send_ = b;
      break;
    }
    case kRead: {
      Op *op = static_cast<Op *>(op_context);
      if (op->async)
        read_finished(*op);
      else
        --op->outstanding;
      break;
    }
    default:
      fail("a completion of an unknown operation");
  }
}

void OfiDevice::cq_error() noexcept {
  struct fi_cq_err_entry e = {};
  if (fi_cq_readerr(cq_, &e, 0) != 1) return;
  char buf[256] = {};
  const char *prov = fi_cq_strerror(cq_, e.prov_errno, e.err_data, buf, sizeof buf);
  const std::string msg =
      std::string(lib_->strerror(e.err)) + (prov && *prov ? std::string(" (") + prov + ")" : "");
  // libfabric 1.17's shm provider reports a failed read without its context (flags FI_COMPLETION
  // alone). Reads are issued only inside read_remote(), one call at a time, so an error without a
  // context while reads are outstanding is one of those.
  if (!e.op_context && read_op_->outstanding) e.op_context = read_op_.get();
  if (!e.op_context) {
    last_error_ = msg;
    return;
  }
  const uint8_t type = static_cast<Op *>(e.op_context)->type;
  if (type == kRead) {
    Op *op = static_cast<Op *>(e.op_context);
    if (!op->error) op->error = e.err ? e.err : EIO;
    last_error_ = msg;
    if (op->async)
      read_finished(*op);
    else
      --op->outstanding;
    return;
  }
  if (closing_) {
    if (type == kSendBuf) complete(e.op_context, 0);
    return;  // cancelled receive buffers, peers already gone
  }
  if (type == kSendBuf)
    fail("a packet to rank " + std::to_string(static_cast<Buf *>(e.op_context)->task) + " failed: " + msg);
  fail("a receive failed: " + msg);
}

// One batch of completions. Packets are handled at once, or, while a read_remote() waits, kept for
// the next poll() so that they reach the context in their order.
unsigned OfiDevice::drain(bool defer_packets) noexcept {
  struct fi_cq_msg_entry e[16];
  const ssize_t n = fi_cq_read(cq_, e, 16);
  if (n == -FI_EAVAIL) {
    cq_error();
    return 0;
  }
  if (n <= 0) return 0;
  futile_ = 0;
  unsigned packets = 0;
  for (ssize_t i = 0; i < n; ++i) {
    if (defer_packets && static_cast<Op *>(e[i].op_context)->type == kRecvBuf) {
      deferred_.push_back(static_cast<Buf *>(e[i].op_context));
      deferred_len_.push_back(e[i].len);
      continue;
    }
    if (static_cast<Op *>(e[i].op_context)->type == kRecvBuf) ++packets;
    complete(e[i].op_context, e[i].len);
  }
  return packets;
}

unsigned OfiDevice::poll() noexcept {
  if (in_poll_) return 0;  // a packet's handler polling again: its caller's loop goes on afterwards
  in_poll_ = true;
  unsigned n = 0;
  if (deferred_head_ < deferred_.size()) {
    // A handler may read again, deferring more behind these: indices stay valid, the storage may not.
    while (deferred_head_ < deferred_.size()) {
      const size_t i = deferred_head_++;
      handle(deferred_[i], deferred_len_[i]);
      ++n;
    }
    deferred_.clear();
    deferred_len_.clear();
    deferred_head_ = 0;
  } else {
    n = drain(false);
  }
  if (!reads_done_.empty()) {
    // A report may issue more (an acknowledgment), which may finish other reads: indices stay valid.
    for (size_t i = 0; i < reads_done_.size(); ++i) {
      const ReadDone rd = reads_done_[i];
      sink_.read_done(sink_.arg, rd.cookie, rd.status);
      ++n;
    }
    reads_done_.clear();
  }
  if (!owed_.empty()) flush_owed();
  if (!acks_unsent_.empty()) {
    size_t keep = 0;
    for (size_t i = 0; i < acks_unsent_.size(); ++i) {
      const AckWire a = acks_unsent_[i];
      if (!post(
              acks_unsent_task_[i], kAck, 0, 0, sizeof a,
              [&](uint8_t *dst) { std::memcpy(dst, &a, sizeof a); }, true)) {
        acks_unsent_[keep] = a;
        acks_unsent_task_[keep++] = acks_unsent_task_[i];
      }
    }
    acks_unsent_.resize(keep);
    acks_unsent_task_.resize(keep);
  }
  in_poll_ = false;
  return n;
}

// Where the provider asks for FI_MR_LOCAL, the destination of a read must be registered: the span its
// pieces cover, once per operation (a layout of a thousand pieces is one registration, not a thousand),
// bound to the endpoint where the provider wants FI_MR_ENDPOINT. The provider's own registration cache
// makes repeating it cheap: libfabric's verbs and efa, the providers that ask for FI_MR_LOCAL, keep one
// behind a memory monitor (FI_MR_CACHE_MONITOR), so a second cache here would need hooks of its own in
// libc to stay correct when memory is freed. Returns 0 or the provider's error.
int OfiDevice::register_local(const struct iovec *local, unsigned nlocal, fid_mr *&mr) noexcept {
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (unsigned i = 0; i < nlocal; ++i) {
    if (!local[i].iov_len) continue;
    const uintptr_t a = uintptr_t(local[i].iov_base);
    lo = std::min(lo, a);
    hi = std::max(hi, a + local[i].iov_len);
  }
  mr = nullptr;
  if (lo >= hi) return 0;
  int rc = fi_mr_reg(domain_, reinterpret_cast<void *>(lo), hi - lo, FI_READ, 0,
                     (mr_mode_ & FI_MR_PROV_KEY) ? 0 : next_key_++, 0, &mr, nullptr);
  if (!rc && (mr_mode_ & FI_MR_ENDPOINT) &&
      ((rc = fi_mr_bind(mr, &ep_->fid, 0)) || (rc = fi_mr_enable(mr)))) {
    fi_close(&mr->fid);
    mr = nullptr;
  }
  if (rc) {
    mr = nullptr;
    last_error_ = lib_->strerror(-rc);
    return rc;
  }
  if (local_registrations_) ++*local_registrations_;
  return 0;
}

// Issues fi_readmsg calls for every common piece of the two lists into op, read_group_ pieces each (the
// provider's iov_limit and rma_iov_limit: 4 on tcp here), each read with its own completion: with both
// providers' comp_order FI_ORDER_NONE, one on the last of several reads would say nothing of the
// others. Returns 0 or the provider's error; `total` is what was issued. Where the provider wants
// FI_MR_LOCAL, op.local_mr registers the destination (register_local), closed once the op is done.
int OfiDevice::issue_reads(Peer &p, Op &op, const struct iovec *local, unsigned nlocal,
                           const struct iovec *remote, unsigned nremote, uint64_t key,
                           uint64_t &total) noexcept {
  struct iovec iov[kMaxReadGroup];
  void *desc[kMaxReadGroup] = {};
  struct fi_rma_iov rma[kMaxReadGroup];
  unsigned k = 0;
  size_t group_bytes = 0;
  total = 0;
  op.local_mr = nullptr;
  if ((mr_mode_ & FI_MR_LOCAL)) {
    if (const int rc = register_local(local, nlocal, op.local_mr)) return rc;
  }
  void *const local_desc = op.local_mr ? fi_mr_desc(op.local_mr) : nullptr;
  auto issue = [&]() -> int {
    struct fi_msg_rma msg = {};
    msg.msg_iov = iov;
    msg.desc = desc;
    msg.iov_count = k;
    msg.addr = p.addr;
    msg.rma_iov = rma;
    msg.rma_iov_count = k;
    msg.context = &op;
    int rc;
    while ((rc = int(fi_readmsg(ep_, &msg, FI_COMPLETION))) == -FI_EAGAIN) drain(true);
    if (!rc) ++op.outstanding;
    k = 0;
    group_bytes = 0;
    return rc;
  };
  unsigned li = 0, ri = 0;
  size_t loff = 0, roff = 0;
  int rc = 0;
  while (li < nlocal && ri < nremote && !rc && !op.error) {
    const size_t n = std::min({local[li].iov_len - loff, remote[ri].iov_len - roff, max_msg_});
    if (n) {
      if (k && group_bytes + n > max_msg_ && (rc = issue())) break;
      iov[k] = {static_cast<char *>(local[li].iov_base) + loff, n};
      desc[k] = local_desc;
      rma[k] = {uint64_t(uintptr_t(remote[ri].iov_base)) + roff, n, key};
      ++k;
      group_bytes += n;
      total += n;
      if (k == read_group_ && (rc = issue())) break;
    }
    loff += n;
    roff += n;
    if (loff == local[li].iov_len) ++li, loff = 0;
    if (roff == remote[ri].iov_len) ++ri, roff = 0;
  }
  if (k && !rc && !op.error) rc = issue();
  if (rc) last_error_ = lib_->strerror(-rc);
  return rc;
}

ssize_t OfiDevice::read_remote(uint32_t task, const struct iovec *local, unsigned nlocal,
                               const struct iovec *remote, unsigned nremote, uint64_t key) noexcept {
  Peer &p = peer(task);
  Op &op = *read_op_;
  op.outstanding = 0;
  op.error = 0;
  uint64_t total = 0;
  const int rc = issue_reads(p, op, local, nlocal, remote, nremote, key, total);
  // Under manual progress the origin's own polls serve the read: where ranks share cores, a reader that
  // spun on would keep the origin from running for a whole time slice (measured: a 64 KiB rendezvous
  // between hosts, 4 ranks on 2 cores, 1-3 ms spinning against 0.1-0.3 ms yielding).
  for (unsigned spins = 0; op.outstanding; ++spins) {
    drain(true);
    if (op.outstanding && spins >= kReadSpins) sched_yield();
  }
  if (op.local_mr) fi_close(&op.local_mr->fid);
  op.local_mr = nullptr;
  if (rc) return rc == -FI_EINVAL ? -EINVAL : -EIO;
  if (op.error) return -EIO;
  return ssize_t(total);
}

bool OfiDevice::start_read(uint32_t task, const struct iovec *local, unsigned nlocal,
                           const struct iovec *remote, unsigned nremote, uint64_t key,
                           uint64_t cookie) noexcept {
  // Not on the shm provider, which reports a failed read without its context (cq_error).
  if (!free_ops_ || provider_ == "shm") return false;
  Peer &p = peer(task);
  Op &op = *free_ops_;
  free_ops_ = op.next;
  __atomic_fetch_add(&reads_in_flight_, 1, __ATOMIC_RELAXED);
  op.outstanding = 1;  // until every read is issued: a read that completes meanwhile does not end it
  op.error = 0;
  op.cookie = cookie;
  uint64_t total = 0;
  if (issue_reads(p, op, local, nlocal, remote, nremote, key, total) && !op.error) op.error = EIO;
  read_finished(op);
  return true;
}

// One read of an asynchronous op is done (or its issuing is): at the last, its result waits for the
// next poll(), which reports it through the sink.
void OfiDevice::read_finished(Op &op) noexcept {
  if (--op.outstanding) return;
  if (op.local_mr) fi_close(&op.local_mr->fid);
  op.local_mr = nullptr;
  reads_done_.push_back({op.cookie, op.error || fail_reads_ ? -int64_t(EIO) : 0});
  op.next = free_ops_;
  free_ops_ = &op;
  __atomic_fetch_sub(&reads_in_flight_, 1, __ATOMIC_RELAXED);
}

ssize_t OfiDevice::write_remote(uint32_t, const struct iovec *, unsigned, const struct iovec *, unsigned,
                                uint64_t) noexcept {
  return -ENOTSUP;
}

// Registers [addr, addr + len) for remote reads into g, unless g holds that registration already.
bool OfiDevice::register_region(Region &g, const void *addr, uint64_t len) noexcept {
  const uint64_t a = uint64_t(uintptr_t(addr));
  if (g.mr && g.addr == a && g.len == len) return true;
  if (g.mr) fi_close(&g.mr->fid);
  g.mr = nullptr;
  const uint64_t want = (mr_mode_ & FI_MR_PROV_KEY) ? 0 : next_key_++;
  if (fi_mr_reg(domain_, addr, len, FI_REMOTE_READ, 0, want, 0, &g.mr, nullptr) != 0) {
    g.mr = nullptr;
    return false;
  }
  if ((mr_mode_ & FI_MR_ENDPOINT) && (fi_mr_bind(g.mr, &ep_->fid, 0) != 0 || fi_mr_enable(g.mr) != 0)) {
    fi_close(&g.mr->fid);
    g.mr = nullptr;
    return false;
  }
  g.addr = a;
  g.len = len;
  g.key = fi_mr_key(g.mr);
  g.remote_addr = (mr_mode_ & FI_MR_VIRT_ADDR) ? a : 0;
  return true;
}

bool OfiDevice::expose(uint64_t ack_ref, const void *addr, uint64_t len, uint64_t &remote_addr,
                       uint64_t &key) noexcept {
  Region &g = acks_[ack_ref - 1].region;
  if (!register_region(g, addr, len)) return false;
  remote_addr = g.remote_addr;
  key = g.key;
  return true;
}

bool OfiDevice::expose_held(uint32_t &hold, const void *addr, uint64_t len, uint64_t &remote_addr,
                            uint64_t &key) noexcept {
  if (!hold) {
    if (free_held_.empty()) {
      held_.emplace_back();
      hold = uint32_t(held_.size());
    } else {
      hold = free_held_.back();
      free_held_.pop_back();
    }
  }
  Region &g = held_[hold - 1];
  if (!register_region(g, addr, len)) {
    release_held(hold);
    hold = 0;
    return false;
  }
  remote_addr = g.remote_addr;
  key = g.key;
  return true;
}

void OfiDevice::release_held(uint32_t hold) noexcept {
  Region &g = held_[hold - 1];
  if (g.mr) fi_close(&g.mr->fid);
  g = Region{};
  free_held_.push_back(hold);
}

uint64_t OfiDevice::ack_alloc(uint64_t expect) noexcept {
  if (!free_ack_) return 0;
  const uint32_t i = free_ack_ - 1;
  AckSlot &s = acks_[i];
  free_ack_ = s.next_free;
  s.counter = expect;
  s.status = 0;
  return i + 1;
}

void OfiDevice::ack_free(uint64_t ref) noexcept {
  AckSlot &s = acks_[ref - 1];
  if (s.region.mr) fi_close(&s.region.mr->fid);
  s.region.mr = nullptr;
  s.next_free = free_ack_;
  free_ack_ = uint32_t(ref);
}

void OfiDevice::ack_write(uint32_t task, uint64_t ref, uint64_t bytes, int64_t status) noexcept {
  if (ack_mr_ && status == 0 && acks_unsent_.empty()) {
    // Straight into the origin's counter (unsigned: adding 2^64 - bytes takes bytes off). A failure
    // travels in a packet, which carries the status too.
    Peer &p = peer(task);
    if (p.ack_key || p.ack_base) {
      const uint64_t minus = uint64_t(0) - bytes;
      const uint64_t at = p.ack_base + (ref - 1) * sizeof(AckSlot) + offsetof(AckSlot, counter);
      ssize_t rc;
      while ((rc = fi_inject_atomic(ep_, &minus, 1, p.addr, at, p.ack_key, FI_UINT64, FI_SUM)) == -FI_EAGAIN)
        drain(true);
      if (rc == 0) {
        if (atomic_acks_sent_) ++*atomic_acks_sent_;
        return;
      }
    }
  }
  const AckWire a{ref, bytes, status};
  if (acks_unsent_.empty() &&
      post(
          task, kAck, 0, 0, sizeof a, [&](uint8_t *dst) { std::memcpy(dst, &a, sizeof a); }, true))
    return;
  acks_unsent_.push_back(a);
  acks_unsent_task_.push_back(task);
}

// Measured here (performance.md, "Acknowledgments by remote atomic"): on the shm provider an atomic
// acknowledgment made an 8 KiB rendezvous 0.93x as long and 16-64 KiB no shorter, but asking for
// FI_ATOMIC made its 8-byte latency 1.09x; over tcp;ofi_rxm (atomics emulated in messages) 1.00-1.04x.
// Packets on every provider measured, then.
bool OfiDevice::atomic_acks_faster(const std::string &) noexcept {
  return false;
}

bool OfiDevice::may_sleep() noexcept {
  if (deferred_head_ < deferred_.size() || !reads_done_.empty()) return false;
  struct fid *f = &cq_->fid;
  // A refusal is not counted against the descriptor (woken_by_fd): rxm refuses while a connection
  // is being set up, and its descriptor is sound.
  return fi_trywait(fabric_, &f, 1) == FI_SUCCESS;  // else something is there to read
}

void OfiDevice::wait(unsigned timeout_us, bool (*also)(void *), void *arg) noexcept {
  if (also && also(arg)) return;
  if (wait_fd_ < 0) {
    if (deferred_head_ < deferred_.size()) return;
    if (reads_in_flight()) {
      // Under manual progress only this process's polls move a read's bytes: no nap while one runs.
      sched_yield();
      return;
    }
    ::usleep(std::min(timeout_us, kNoFdSleepUs));
    return;
  }
  if (!may_sleep()) return;
  struct pollfd pfd = {wait_fd_, POLLIN, 0};
  const struct timespec ts = {time_t(timeout_us / 1000000), long(timeout_us % 1000000) * 1000};
  if (::ppoll(&pfd, 1, &ts, nullptr) > 0) woken_by_fd();
}

void OfiDevice::shutdown() noexcept {
  // Whatever is still queued (credits, acknowledgments, packets in flight) goes out first, for at most
  // a second: a peer may already have closed its endpoint.
  struct timespec start, now;
  ::clock_gettime(CLOCK_MONOTONIC, &start);
  auto in_flight = [this] {
    unsigned free_bufs = 0;
    for (Buf *b = free_send_; b; b = b->next) ++free_bufs;
    return free_bufs < kSendBuffers || !acks_unsent_.empty();
  };
  closing_ = true;
  while (in_flight()) {
    poll();
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec >= 1) break;
  }
}

}  // namespace pamir::dev
