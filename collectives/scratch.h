// Temporary buffers for the collective algorithms: on the stack up to kInline bytes, so the small
// messages that dominate collective traffic allocate nothing; larger ones come from the heap.
#pragma once

#include <cstddef>
#include <cstdlib>

namespace pamir::coll {

// Its get() is nullptr when a heap allocation failed; the algorithms report Err::intern.
class Scratch {
 public:
  static constexpr size_t kInline = 4096;
  explicit Scratch(size_t bytes)
      : p_(bytes <= kInline ? inline_ : static_cast<unsigned char *>(std::malloc(bytes))) {}
  ~Scratch() {
    if (p_ != inline_) std::free(p_);
  }
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  unsigned char *get() const { return p_; }

 private:
  alignas(64) unsigned char inline_[kInline];
  unsigned char *p_;
};

}  // namespace pamir::coll
