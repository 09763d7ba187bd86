// Non-contiguous messages with no intermediate buffer (seed 003). A request whose `layout` is set
// describes its data as `elems` elements of a committed layout (datatype/), and:
// - its eager packets are packed straight from that layout into the ring cells (Device::try_send_fill),
//   and a receive's packets are unpacked straight out of the cells into its own layout;
// - a rendezvous target reads the origin's segment list from the origin's memory (its address travels in
//   the request-to-send), walks both layouts together and pulls each common chunk straight from the
//   origin's memory into its own with one process_vm_readv per batch of chunks, both iovec lists built
//   from the chunks;
// - a message to self copies common chunks from one layout to the other.
// A layout here is only segments, an extent and a count: nothing in this file knows datatypes.
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "datatype/chunks.h"
#include "datatype/layout.h"
#include "pami/context.h"
#include "pami/protocols/packets.h"

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
  ++stats().unexpected;
  Unexpected *u = unexpected_alloc(h.total);
  u->ctx = ctx;
  u->src = src;
  u->tag = tag;
  u->src_task = self_;
  u->sync_cookie = h.sync_cookie;
  u->sig = s->sig;
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

// The target's read when either side is not contiguous. Returns 0 with r->rdv_counter at zero, or the
// -errno of the first failed read with the counter at what is still missing.
ssize_t Context::pull_typed(Request *r, uint32_t src_task, const RdvSource &src) {
  dev::Device *d = peers_[src_task].dev;
  dt::Segment one_s{0, 0}, one_r{0, 0};
  dt::Cursor sc(&one_s, 1, 0, 1);
  if (src.segs) {
    // The origin's segment list, from its memory: metadata, read once per message into scratch that is
    // kept, so only the first message of a given size of list allocates.
    if (origin_segs_.size() < src.nsegs) origin_segs_.resize(src.nsegs);
    const uint64_t meta = src.nsegs * sizeof(dt::Segment);
    struct iovec local = {origin_segs_.data(), meta};
    struct iovec remote = {reinterpret_cast<void *>(uintptr_t(src.segs)), meta};
    const ssize_t got = fault_rdma_read_ ? -EFAULT : d->read_remote(src_task, &local, 1, &remote, 1);
    if (got != ssize_t(meta)) return got < 0 ? got : -EIO;
    // And its loops (a handful at most).
    if (src.nloops > dt::kMaxLoops - 1) return -EPROTO;
    if (src.nloops) {
      const uint64_t lbytes = src.nloops * sizeof(dt::Loop);
      struct iovec ll = {origin_loops_, lbytes};
      struct iovec rl = {reinterpret_cast<void *>(uintptr_t(src.loops)), lbytes};
      const ssize_t g = d->read_remote(src_task, &ll, 1, &rl, 1);
      if (g != ssize_t(lbytes)) return g < 0 ? g : -EIO;
    }
    sc = dt::Cursor(origin_segs_.data(), src.nsegs, origin_loops_, src.nloops, src.extent, src.count);
  } else {
    one_s = {0, r->status.sent_bytes};
    sc = dt::Cursor(&one_s, 1, int64_t(one_s.length), 1);
  }
  dt::Cursor rc = cursor_of(r, one_r);
  dt::ChunkWalker w(sc, rc);
  const uintptr_t base = uintptr_t(r->buf);  // may be MPI_BOTTOM: absolute offsets
  dt::Chunk ch;
  for (;;) {
    unsigned n = 0;
    uint64_t batch = 0;
    while (n < kChunkBatch && w.next(kMaxChunk, ch)) {
      chunk_local_[n] = {reinterpret_cast<void *>(base + uintptr_t(ch.dst)), ch.length};
      chunk_remote_[n] = {reinterpret_cast<void *>(uintptr_t(src.addr + uint64_t(ch.src))), ch.length};
      batch += ch.length;
      ++n;
    }
    if (n == 0) break;
    const ssize_t got =
        fault_rdma_read_ ? -EFAULT : d->read_remote(src_task, chunk_local_, n, chunk_remote_, n);
    ++stats().dt_chunk_reads;
    stats().dt_chunks += n;
    if (got != ssize_t(batch)) return got < 0 ? got : -EIO;
    r->rdv_counter -= batch;
  }
  return r->rdv_counter == 0 ? 0 : -EIO;
}

}  // namespace pamir
