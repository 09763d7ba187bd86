// Non-contiguous messages with no intermediate buffer (seed 003). A request whose `layout` is set
// describes its data as `elems` elements of a committed layout (datatype/), and:
// - its eager packets are packed straight from that layout into the ring cells (Device::try_send_fill),
//   and a receive's packets are unpacked straight out of the cells into its own layout;
// - a rendezvous target reads the origin's segments and loops from the origin's memory (their addresses
//   travel in the request-to-send), walks both layouts together and pulls each common chunk straight from
//   the origin's memory into its own with one process_vm_readv per batch of chunks, both iovec lists
//   built from the chunks (over ofi the segments and loops come in the request-to-send instead, and the
//   reads go to the span the origin registered once: push_rts_typed); from 256 KiB both ends share that
//   work on shm (pull_typed_shared, help_typed); when
//   the pieces are small the target has the origin push the message through the rings instead
//   (rendezvous.cc decides, by PAMIR_DT_CHUNK_MIN);
// - a message to self copies the common pieces from one layout to the other.
// A layout here is only segments, an extent and a count: nothing in this file knows datatypes.

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "datatype/chunks.h"
#include "datatype/layout.h"
#include "pami/context.h"
#include "pami/protocols/packets.h"
#include "pami/spin.h"

namespace pamir {

namespace {

// Caps one chunk of a rendezvous read, so the target's counter moves as the data arrives.
constexpr uint64_t kMaxChunk = uint64_t(64) << 20;

// A cursor over a request's data: its layout, or its contiguous buffer as the one segment `one`.
dt::Cursor cursor_of(const Request *r, dt::Segment &one) {
  if (r->layout) return dt::cursor(*r->layout, r->elems);
  one = {0, r->bytes};
  return dt::Cursor(&one, 1, int64_t(r->bytes), 1);
}

struct Packer {
  const void *base;
  dt::Cursor *cursor;
};

void pack_into_packet(void *arg, void *dst, size_t len) {
  auto *k = static_cast<Packer *>(arg);
  dt::pack(k->base, *k->cursor, dst, len);
}

}  // namespace

void Context::rdv_describe(const Request *r, RdvSource &src) {
  src.segs = uint64_t(uintptr_t(r->layout->segs.data()));
  src.nsegs = r->layout->segs.size();
  src.loops = uint64_t(uintptr_t(r->layout->loops.data()));
  src.nloops = r->layout->loops.size();
  src.extent = r->layout->extent();
  src.count = r->elems;
  src.piece = r->layout->average_piece();
}

// The request-to-send of a rendezvous with a layout. Where the target reads the origin's metadata
// itself (shm) it gets the layout's addresses, unless the layout is small: then, as elsewhere, its
// segments and loops come in the request-to-send's payload, which saves the target a cross-memory read
// per message. Elsewhere the origin exposes the whole span its elements touch, once, and sends its
// segments and loops in the payload; a layout too long for one packet, or a span the fabric will not
// register, leaves the piece at 0 and the target asks for packets. False when the device has no room
// for the packet now.
bool Context::push_rts_typed(dev::Device *d, Request *r, RtsHeader &h) {
  rdv_describe(r, h.src);
  const dt::Layout &l = *r->layout;
  const size_t seg_bytes = l.segs.size() * sizeof(dt::Segment),
               loop_bytes = l.loops.size() * sizeof(dt::Loop);
  if (d->reads_layouts() && seg_bytes + loop_bytes > kRtsLayoutInline)
    return d->try_send(r->peer_task, kDispatchRts, &h, sizeof h, nullptr, 0);
  const int64_t last = int64_t(r->elems - 1) * l.extent();
  const int64_t lo = l.true_lb + std::min<int64_t>(0, last), hi = l.true_ub + std::max<int64_t>(0, last);
  uint64_t at = 0;
  // Integer addresses: the base may be MPI_BOTTOM (null) with absolute offsets.
  const void *span = reinterpret_cast<const void *>(uintptr_t(r->buf) + uintptr_t(lo));
  if (seg_bytes + loop_bytes > d->max_payload(sizeof h) ||
      !expose_send(d, r, span, uint64_t(hi - lo), at, h.src.key)) {
    h.src.piece = 0;
    return d->try_send(r->peer_task, kDispatchRts, &h, sizeof h, nullptr, 0);
  }
  h.src.addr = at - uint64_t(lo);
  h.src.segs = kLayoutInPacket;
  h.src.loops = 0;
  auto copy_layout = [](void *arg, void *dst, size_t) {
    const dt::Layout &l = *static_cast<const dt::Layout *>(arg);
    const size_t n = l.segs.size() * sizeof(dt::Segment);
    std::memcpy(dst, l.segs.data(), n);
    if (!l.loops.empty())
      std::memcpy(static_cast<char *>(dst) + n, l.loops.data(), l.loops.size() * sizeof(dt::Loop));
  };
  const dev::Device::Fill fill{copy_layout, const_cast<dt::Layout *>(&l)};
  return d->try_send_fill(r->peer_task, kDispatchRts, &h, sizeof h, seg_bytes + loop_bytes, fill);
}

// push() for a request with a layout: the same packets, their payload packed by the device's fill call.
bool Context::push_typed(Peer &p, Request *r) {
  dev::Device *d = p.dev;
  dt::Segment unused;
  dt::Cursor c = cursor_of(r, unused);
  c.seek(r->offset);
  Packer packer{r->buf, &c};
  const dev::Device::Fill fill{pack_into_packet, &packer};
  return push_packets(d, r, [d, r, &fill](uint16_t dispatch, const void *hdr, uint32_t hdr_len, size_t n) {
    if (!d->try_send_fill(r->peer_task, dispatch, hdr, hdr_len, n, fill)) return false;
    ++stats().dt_packed_packets;
    return true;
  });
}

// on_msg() for a send to self with a layout: a matching receive gets the common chunks of the two
// layouts copied across; an unexpected message is packed into its staging buffer, as its packets would
// have been.
void Context::on_msg_self_typed(const MsgHeader &h, Request *s) {
  const uint16_t ctx = bits_ctx(h.bits);
  const int32_t src = bits_src(h.bits), tag = bits_tag(h.bits);
  dt::Segment one_s{0, 0}, one_r{0, 0};
  dt::Cursor sc = cursor_of(s, one_s);
  if (Request *r = matcher_.take_posted(ctx, src, tag)) {
    set_recv_status(r, src, tag, h.total);
    if (s->sig) check_signature(r, s->sig, h.total);
    dt::Cursor rc = cursor_of(r, one_r);
    // Integer addresses: either base may be MPI_BOTTOM (null) with absolute offsets.
    const uintptr_t from = uintptr_t(s->buf), to = uintptr_t(r->buf);
    dt::for_each_common(sc, rc, r->status.bytes, [from, to](int64_t src, int64_t dst, uint64_t len) {
      dt::copy_piece(reinterpret_cast<void *>(to + uintptr_t(dst)),
                     reinterpret_cast<const void *>(from + uintptr_t(src)), len);
    });
    if (h.sync_cookie) send_ack(self_, h.sync_cookie);
    finish_recv(r);
    return;
  }
  Unexpected *u = unexpected(h.bits, self_, h.total, h.total, h.sync_cookie, s->sig);
  u->received = dt::pack(s->buf, sc, u->data, h.total);
  matcher_.add_unexpected(u);
}

// fill() for a receive with a layout: the packets of one message arrive in order, so the cursor of the
// previous packet usually continues where this one starts; anything else seeks anew.
void Context::fill_typed(Request *r, uint64_t offset, const void *data, size_t len) {
  FillCursor &f = fill_cursor_;
  if (f.req != r || f.buf != r->buf || f.layout != r->layout || f.elems != r->elems ||
      f.cursor.position() != offset) {
    dt::Segment unused;  // r has a layout: cursor_of does not use it
    f = FillCursor{r, r->buf, r->layout, r->elems, cursor_of(r, unused)};
    f.cursor.seek(offset);
  }
  dt::unpack(r->buf, f.cursor, data, len);
  ++stats().dt_unpacked_packets;
}

// Reads a peer's segments and loops (its committed layout) into scratch that is kept between messages.
// Metadata: PAMIR_FAULT=rdma-read fails the data's reads, not this one.
ssize_t Context::read_layout(dev::Device *d, uint32_t task, uint64_t segs, uint64_t nsegs, uint64_t loops,
                             uint64_t nloops, std::vector<dt::Segment> &seg_out, dt::Loop *loop_out) {
  if (nloops > dt::kMaxLoops - 1) return -EPROTO;
  if (seg_out.size() < nsegs) seg_out.resize(nsegs);
  const uint64_t meta = nsegs * sizeof(dt::Segment), lbytes = nloops * sizeof(dt::Loop);
  struct iovec local[2] = {{seg_out.data(), meta}, {loop_out, lbytes}};
  struct iovec remote[2] = {{reinterpret_cast<void *>(uintptr_t(segs)), meta},
                            {reinterpret_cast<void *>(uintptr_t(loops)), lbytes}};
  const ssize_t got = d->read_remote(task, local, nloops ? 2 : 1, remote, nloops ? 2 : 1, 0);
  return got == ssize_t(meta + lbytes) ? 0 : got < 0 ? got : -EIO;
}

// The cursor over a rendezvous message's data in the origin's memory: its layout, read from it, or its
// contiguous buffer as the one segment `one`.
ssize_t Context::origin_cursor(Request *r, uint32_t src_task, const RdvSource &src, const void *layout,
                               size_t layout_len, dt::Segment &one, dt::Cursor &out,
                               std::vector<dt::Segment> &segs, dt::Loop *loops) {
  if (!src.segs) {
    one = {0, r->status.sent_bytes};
    out = dt::Cursor(&one, 1, int64_t(one.length), 1);
    return 0;
  }
  if (src.segs == kLayoutInPacket) {
    const uint64_t seg_bytes = src.nsegs * sizeof(dt::Segment);
    if (src.nloops > dt::kMaxLoops - 1 || !layout || layout_len != seg_bytes + src.nloops * sizeof(dt::Loop))
      return -EPROTO;
    if (segs.size() < src.nsegs) segs.resize(src.nsegs);
    std::memcpy(segs.data(), layout, seg_bytes);
    std::memcpy(loops, static_cast<const char *>(layout) + seg_bytes, layout_len - seg_bytes);
  } else if (ssize_t e = read_layout(peers_[src_task].dev, src_task, src.segs, src.nsegs, src.loops,
                                     src.nloops, segs, loops)) {
    return e;
  }
  out = dt::Cursor(segs.data(), src.nsegs, loops, src.nloops, src.extent, src.count);
  return 0;
}

// Moves `len` bytes between this process and `task`, from the two cursors' positions on: read (the
// peer's layout is the source) or write (ours is). Common chunks go in batches of up to kChunkBatch, one
// process_vm_readv/writev per batch with both iovec lists built from the chunks. Returns 0 or -errno.
ssize_t Context::move_chunks(dev::Device *d, uint32_t task, bool read, uintptr_t local_base,
                             dt::Cursor &local, uintptr_t remote_base, uint64_t key, dt::Cursor &remote,
                             uint64_t len) {
  dt::ChunkWalker w(read ? remote : local, read ? local : remote);
  uint64_t moved = 0;
  dt::Chunk ch;
  while (moved < len) {
    unsigned n = 0;
    uint64_t batch = 0;
    while (n < kChunkBatch && moved + batch < len && w.next(std::min(kMaxChunk, len - moved - batch), ch)) {
      const int64_t lo = read ? ch.dst : ch.src, ro = read ? ch.src : ch.dst;
      chunk_local_[n] = {reinterpret_cast<void *>(local_base + uintptr_t(lo)), ch.length};
      chunk_remote_[n] = {reinterpret_cast<void *>(remote_base + uintptr_t(ro)), ch.length};
      batch += ch.length;
      ++n;
    }
    if (n == 0) return -EIO;  // a layout ended before `len` bytes
    const ssize_t got = fault_rdma_read_ && read ? -EFAULT
                        : read ? d->read_remote(task, chunk_local_, n, chunk_remote_, n, key)
                               : d->write_remote(task, chunk_local_, n, chunk_remote_, n, key);
    ++stats().dt_chunk_reads;
    stats().dt_chunks += n;
    if (got != ssize_t(batch)) return got < 0 ? got : -EIO;
    moved += batch;
  }
  return 0;
}

// The target's read when either side is not contiguous. Returns 0 with r->rdv_counter at zero, or the
// -errno of the first failed read with the counter at what is still missing.
ssize_t Context::pull_typed(Request *r, uint32_t src_task, const RdvSource &src, const void *layout,
                            size_t layout_len) {
  dt::Segment one_s{0, 0}, one_r{0, 0};
  dt::Cursor sc(&one_s, 1, 0, 1);
  if (ssize_t e = origin_cursor(r, src_task, src, layout, layout_len, one_s, sc, origin_segs_, origin_loops_))
    return e;
  dt::Cursor rc = cursor_of(r, one_r);
  const ssize_t e = move_chunks(peers_[src_task].dev, src_task, true, uintptr_t(r->buf), rc,
                                uintptr_t(src.addr), src.key, sc, r->rdv_counter);
  if (e == 0) r->rdv_counter = 0;
  return e;
}

// A shared copy between layouts (seed 001's shared copy, seed 003's common chunks): the target describes
// its layout in the share's note (ShareNote) and opens the share flagged as between layouts; both ends
// claim ranges of the message's bytes and move each range's common chunks, the target reading, the
// origin writing. The target moves the first range now and leaves the share in flight (LayoutShare in
// context.h).
void Context::pull_typed_shared(Request *r, uint32_t src_task, const RdvSource &src, const void *layout,
                                size_t layout_len) {
  dev::Device *d = peers_[src_task].dev;
  LayoutShare &e = free_layout_share();
  if (ssize_t err = origin_cursor(r, src_task, src, layout, layout_len, e.one, e.sc, e.segs, e.loops)) {
    r->status.error = Err::rdma;
    r->status.sys_errno = int32_t(-err);
    d->ack_write(src_task, src.ack_ref, kRdvAckBytes, err);
    request_complete(r);
    return;
  }
  write_share_note(r, d->share_note(src_task, src.ack_ref), d->share_note_bytes());
  e.r = r;
  e.src_task = src_task;
  e.ack_ref = src.ack_ref;
  e.src_addr = src.addr;
  e.key = src.key;
  e.seq = ++layout_share_seq_;
  const uint64_t n = r->rdv_counter;
  ++stats().rdv_shared;
  d->share_open(src_task, src.ack_ref, kShareLayout, n, share_chunk(n));
  move_layout_share(e, false);
  layout_shares_used_ |= uint32_t(1) << unsigned(&e - layout_shares_);
  if (r->rdv_counter == 0) end_layout_share(unsigned(&e - layout_shares_));
}

void Context::write_share_note(const Request *r, void *note, size_t note_bytes) {
  ShareNote h{uint64_t(uintptr_t(r->buf)), 0, 0, 1, 0, int64_t(r->bytes), 1};
  const dt::Segment one{0, r->bytes};
  const dt::Segment *segs = &one;
  const dt::Loop *loops = nullptr;
  if (r->layout) {
    segs = r->layout->segs.data();
    loops = r->layout->loops.data();
    h.nsegs = uint32_t(r->layout->segs.size());
    h.nloops = uint32_t(r->layout->loops.size());
    h.extent = r->layout->extent();
    h.count = r->elems;
  }
  const size_t seg_bytes = h.nsegs * sizeof(dt::Segment), loop_bytes = h.nloops * sizeof(dt::Loop);
  char *out = static_cast<char *>(note);
  if (sizeof h + seg_bytes + loop_bytes <= note_bytes) {
    std::memcpy(out + sizeof h, segs, seg_bytes);
    if (loop_bytes) std::memcpy(out + sizeof h + seg_bytes, loops, loop_bytes);
  } else {
    h.segs = uint64_t(uintptr_t(segs));
    h.loops = uint64_t(uintptr_t(loops));
  }
  std::memcpy(out, &h, sizeof h);
}

// An entry for a new share: a free one, else the oldest in flight, finished first (what the origin has
// not claimed is taken back; a chunk it is moving is waited for).
Context::LayoutShare &Context::free_layout_share() {
  const uint32_t free = ~layout_shares_used_ & ((uint32_t(1) << kLayoutShares) - 1);
  if (free) return layout_shares_[__builtin_ctz(free)];
  unsigned oldest = 0;
  for (unsigned i = 1; i < kLayoutShares; ++i)
    if (layout_shares_[i].seq < layout_shares_[oldest].seq) oldest = i;
  LayoutShare &e = layout_shares_[oldest];
  move_layout_share(e, true);
  // Oversubscribed (PAMIR_SHM_SHARED_COPY=yes), the origin may need this core.
  while (!end_layout_share(oldest)) spin_pause(yield_);
  return e;
}

// Claims ranges of e's share and moves them: one, or all that are left.
void Context::move_layout_share(LayoutShare &e, bool all) {
  dev::Device *d = peers_[e.src_task].dev;
  Request *r = e.r;
  const dt::Cursor rc = cursor_of(r, e.own_one);
  uint64_t off = 0, len = 0;
  while (d->share_claim(e.src_task, e.ack_ref, off, len)) {
    dt::Cursor s2 = e.sc, r2 = rc;
    s2.seek(off);
    r2.seek(off);
    const ssize_t err =
        move_chunks(d, e.src_task, true, uintptr_t(r->buf), r2, uintptr_t(e.src_addr), e.key, s2, len);
    r->rdv_counter = d->share_moved(e.src_task, e.ack_ref, len, err);
    if (!all) break;
  }
}

// Completes entry i's receive if nothing of its share remains to be moved; true then.
bool Context::end_layout_share(unsigned i) {
  LayoutShare &e = layout_shares_[i];
  Request *r = e.r;
  if ((r->rdv_counter = peers_[e.src_task].dev->share_remaining(e.src_task, e.ack_ref)) != 0) return false;
  layout_shares_used_ &= ~(uint32_t(1) << i);
  e.r = nullptr;
  complete_shared(r, e.src_task, e.ack_ref);
  return true;
}

// Every pass of advance() with shares in flight: completes those the origin has finished; on a pass
// that brought nothing new (`idle`), takes back what the origin has not claimed.
void Context::poll_layout_shares(bool idle) {
  for (uint32_t used = layout_shares_used_; used; used &= used - 1) {
    const unsigned i = unsigned(__builtin_ctz(used));
    if (idle) move_layout_share(layout_shares_[i], true);
    end_layout_share(i);
  }
}

// The origin's part of a shared copy between layouts: the target's layout from the share's note (or
// read from the target where it did not fit), then claims of ranges whose common chunks it writes.
void Context::help_typed(Request *r) {
  dev::Device *d = peers_[r->peer_task].dev;
  const char *note = static_cast<const char *>(d->share_note(self_, r->ack_ref));
  ShareNote h;
  std::memcpy(&h, note, sizeof h);
  const size_t inline_bytes = sizeof h + (uint64_t(h.nsegs) + h.nloops) * sizeof(dt::Segment);
  static_assert(sizeof(dt::Segment) == sizeof(dt::Loop));
  if (h.nloops > dt::kMaxLoops - 1 || (!h.segs && inline_bytes > d->share_note_bytes()))
    return;  // not a note the target wrote: the target does it all
  if (!h.segs) {
    if (target_segs_.size() < h.nsegs) target_segs_.resize(h.nsegs);
    std::memcpy(target_segs_.data(), note + sizeof h, h.nsegs * sizeof(dt::Segment));
    std::memcpy(target_loops_, note + sizeof h + h.nsegs * sizeof(dt::Segment), h.nloops * sizeof(dt::Loop));
  } else if (read_layout(d, r->peer_task, h.segs, h.nsegs, h.loops, h.nloops, target_segs_, target_loops_)) {
    return;
  }
  const dt::Cursor tc(target_segs_.data(), h.nsegs, target_loops_, h.nloops, h.extent, h.count);
  dt::Segment one{0, 0};
  const dt::Cursor oc = cursor_of(r, one);
  uint64_t off = 0, len = 0;
  while (d->share_claim(self_, r->ack_ref, off, len)) {
    dt::Cursor o2 = oc, t2 = tc;
    o2.seek(off);
    t2.seek(off);
    const ssize_t e =
        move_chunks(d, r->peer_task, false, uintptr_t(r->buf), o2, uintptr_t(h.buf), 0, t2, len);
    stats().rdv_helped_bytes += len;
    // The last bytes: the target left this receive in flight and may be asleep (its progress thread).
    if (d->share_moved(self_, r->ack_ref, len, e) == 0) d->pair_notify(r->peer_task);
  }
}

}  // namespace pamir
