#include "devices/shm/segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "devices/shm/ring.h"

namespace pamir::dev::shm {

namespace {

constexpr uint64_t round_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}
// The arena is sized for a ring per ordered pair but never beyond this much address space; a job that
// connects more pairs than fit gets a clear error when it runs out.
constexpr uint64_t kMaxArena = uint64_t{1} << 40;

std::string errno_text(const char *what, const std::string &where, int err) {
  return std::string(what) + " " + where + ": " + std::strerror(err);
}

int fallocate_retry(int fd, uint64_t off, uint64_t len) {
  while (::fallocate(fd, 0, static_cast<off_t>(off), static_cast<off_t>(len)) != 0) {
    if (errno == EINTR) continue;
    if (errno == EOPNOTSUPP) return 0;  // not tmpfs: pages come on first touch instead
    return errno;
  }
  return 0;
}

}  // namespace

SegmentLayout SegmentLayout::compute(uint32_t nlocal, uint64_t ring_bytes) noexcept {
  SegmentLayout l;
  l.nlocal = nlocal;
  l.ring_bytes = ring_bytes;
  l.ring_footprint = shm::ring_footprint(ring_bytes);
  l.conn_offset = round_up(kBlocksOffset + uint64_t{nlocal} * sizeof(RankBlock), 4096);
  l.conn_stride = round_up(sizeof(uint64_t) * nlocal, kLine);
  l.ack_offset = round_up(l.conn_offset + uint64_t{nlocal} * l.conn_stride, kLine);
  l.coll_offset = round_up(l.ack_offset + uint64_t{nlocal} * kAckSlots * sizeof(AckSlot), 4096);
  l.arena_offset = round_up(l.coll_offset + uint64_t{nlocal} * kCollAreaBytes, 4096);
  const uint64_t pairs = uint64_t{nlocal} * nlocal;
  l.arena_bytes = pairs > kMaxArena / l.ring_footprint ? kMaxArena / l.ring_footprint * l.ring_footprint
                                                       : pairs * l.ring_footprint;
  l.total = l.arena_offset + l.arena_bytes;
  return l;
}

std::unique_ptr<Segment> Segment::open(const std::string &path, uint32_t local_rank, uint32_t nlocal,
                                       uint64_t ring_bytes, const Attach &me,
                                       const std::function<int()> &barrier, std::string &why) {
  std::unique_ptr<Segment> seg(new Segment);
  seg->layout_ = SegmentLayout::compute(nlocal, ring_bytes);
  const SegmentLayout &l = seg->layout_;
  const std::string size_hint =
      " (" + std::to_string(l.total) + " bytes for " + std::to_string(nlocal) +
      " local ranks and rings of PAMIR_SHM_RING_SIZE=" + std::to_string(ring_bytes) + " bytes)";

  if (nlocal == 1) {
    // Nobody to share with: a private memfd keeps the code path the same and leaves no name behind.
    seg->where_ = "memfd";
    seg->fd_ = ::memfd_create("pamir-shm", MFD_CLOEXEC);
    if (seg->fd_ < 0) {
      why = errno_text("cannot create", seg->where_, errno);
      return nullptr;
    }
    if (::ftruncate(seg->fd_, static_cast<off_t>(l.total)) != 0) {
      why = errno_text("cannot size", seg->where_, errno) + size_hint;
      return nullptr;
    }
  } else {
    seg->where_ = path;
    if (path.empty()) {
      why = "no path for the node's shared-memory segment";
      return nullptr;
    }
    // Every local rank creates or opens the same file; they all size it the same way, so no order is
    // needed between them. O_NOFOLLOW and the owner/mode check refuse a file someone else planted.
    seg->fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (seg->fd_ < 0) {
      why = errno_text("cannot open", path, errno);
      return nullptr;
    }
    struct stat st;
    if (::fstat(seg->fd_, &st) != 0) {
      why = errno_text("cannot stat", path, errno);
      return nullptr;
    }
    if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) {
      why = "refusing to use " + path + ": not a regular file of uid " + std::to_string(::geteuid()) +
            " with mode 0600 (uid " + std::to_string(st.st_uid) + ", mode 0" +
            std::to_string((st.st_mode >> 6) & 7) + std::to_string((st.st_mode >> 3) & 7) +
            std::to_string(st.st_mode & 7) + ")";
      return nullptr;
    }
    if (::ftruncate(seg->fd_, static_cast<off_t>(l.total)) != 0) {
      why = errno_text("cannot size", path, errno) + size_hint;
      return nullptr;
    }
  }

  // The header, every rank's block, the connection queues and the acknowledgment slots get real pages
  // now, so a full /dev/shm is reported here rather than as a SIGBUS later.
  if (int err = fallocate_retry(seg->fd_, 0, l.arena_offset)) {
    why = errno_text("cannot allocate memory for", seg->where_, err) + size_hint;
    return nullptr;
  }
  // Who we are, for peers' process_vm_readv; written through the file so it is visible after the barrier.
  // (pid, then the token's address and value; conn_count, between them, belongs to the senders.)
  const uint64_t block = l.block_offset(local_rank);
  const uint64_t token[2] = {me.cma_token_addr, me.cma_token};
  if (::pwrite(seg->fd_, &me.pid, sizeof me.pid, static_cast<off_t>(block + offsetof(RankBlock, pid))) !=
          sizeof me.pid ||
      ::pwrite(seg->fd_, token, sizeof token,
               static_cast<off_t>(block + offsetof(RankBlock, cma_token_addr))) != sizeof token) {
    why = errno_text("cannot write to", seg->where_, errno);
    return nullptr;
  }

  if (nlocal > 1) {
    // After the barrier every local rank holds the file open, so the name can go: from here on no crash
    // can leave it behind. Everybody unlinks; all but the first get ENOENT.
    const int rc = barrier ? barrier() : -1;
    if (::unlink(path.c_str()) != 0 && errno != ENOENT && rc == 0) {
      why = errno_text("cannot unlink", path, errno);
      return nullptr;
    }
    if (rc != 0) {
      why = "the node barrier after creating " + path + " failed (" + std::to_string(rc) + ")";
      return nullptr;
    }
    struct stat st;
    if (::fstat(seg->fd_, &st) != 0) {
      why = errno_text("cannot stat", path, errno);
      return nullptr;
    }
    if (static_cast<uint64_t>(st.st_size) != l.total) {
      why = "the shared-memory segment " + path + " has " + std::to_string(st.st_size) +
            " bytes but this rank expects " + std::to_string(l.total) + size_hint +
            ": PAMIR_SHM_RING_SIZE and the node's rank list must be the same on every rank";
      return nullptr;
    }
  }

  void *p = ::mmap(nullptr, l.total, PROT_READ | PROT_WRITE, MAP_SHARED, seg->fd_, 0);
  if (p == MAP_FAILED) {
    why = errno_text("cannot map", seg->where_, errno) + size_hint;
    return nullptr;
  }
  seg->base_ = static_cast<char *>(p);
  return seg;
}

void Segment::prefault(uint64_t offset, uint64_t bytes) noexcept {
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif
  char *p = base_ + offset;
  if (::madvise(p, bytes, MADV_POPULATE_WRITE) == 0) return;
  // Older kernels: a read of each page maps it (a shared tmpfs mapping needs no write fault after it).
  for (uint64_t o = 0; o < bytes; o += 4096) (void)*reinterpret_cast<volatile char *>(p + o);
}

Segment::~Segment() {
  unmap();
}

void Segment::unmap() noexcept {
  if (base_) ::munmap(base_, layout_.total);
  base_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

uint64_t Segment::allocate(uint64_t bytes, std::string &why) noexcept {
  auto *hdr = at<SegmentHeader>(0);
  const uint64_t old = std::atomic_ref<uint64_t>(hdr->arena_used).fetch_add(bytes, std::memory_order_relaxed);
  if (old + bytes > layout_.arena_bytes) {
    why = "the node's shared-memory segment is full (" + std::to_string(layout_.arena_bytes) +
          " bytes of rings for " + std::to_string(layout_.nlocal) +
          " local ranks); lower PAMIR_SHM_RING_SIZE (now " + std::to_string(layout_.ring_bytes) + ")";
    return 0;
  }
  const uint64_t off = layout_.arena_offset + old;
  if (int err = fallocate_retry(fd_, off, bytes)) {
    why = "cannot allocate a " + std::to_string(bytes) + "-byte ring in the shared-memory segment (" +
          where_ + "): " + std::strerror(err) + "; make /dev/shm larger or lower PAMIR_SHM_RING_SIZE (now " +
          std::to_string(layout_.ring_bytes) + ")";
    return 0;
  }
  return off;
}

bool Segment::back(uint64_t offset, uint64_t bytes, std::string &why) noexcept {
  if (int err = fallocate_retry(fd_, offset, bytes)) {
    why = "cannot allocate memory in the shared-memory segment (" + where_ + "): " + std::strerror(err) +
          "; make /dev/shm larger";
    return false;
  }
  return true;
}

uint64_t Segment::arena_used() const noexcept {
  auto *hdr = at<SegmentHeader>(0);
  return std::atomic_ref<uint64_t>(hdr->arena_used).load(std::memory_order_relaxed);
}

}  // namespace pamir::dev::shm
