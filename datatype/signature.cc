#include "datatype/signature.h"

namespace pamir::dt {

namespace {
// One run folded into the hash (splitmix64's finalizer over the previous hash, the id and the count).
uint64_t fold(uint64_t h, uint32_t id, uint64_t count) {
  uint64_t x =
      h ^ (uint64_t(id) * 0x9e3779b97f4a7c15ULL) ^ (count + 0x632be59bd9b4e019ULL + (h << 6) + (h >> 2));
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

bool signature_hash(const Layout &l, uint64_t count, uint64_t bytes, uint64_t &hash) {
  uint64_t h = 0x5eed;
  uint32_t run_id = 0;
  uint64_t run_count = 0;  // the run being merged, not yet folded
  uint64_t left = bytes;
  if (l.sig.size() == 1) {  // one basic type: every element merges into one run
    const SigRun &r = l.sig[0];
    if (left % r.bytes || left / r.bytes > r.count * count) return false;
    hash = left ? fold(h, r.id, left / r.bytes) : h;
    return true;
  }
  for (uint64_t k = 0; k < count && left > 0; ++k)
    for (const SigRun &r : l.sig) {
      if (left == 0) break;
      uint64_t n = r.count;
      if (uint64_t(r.bytes) * n > left) {
        if (left % r.bytes) return false;  // ends inside a basic element
        n = left / r.bytes;
      }
      left -= n * r.bytes;
      if (run_count && run_id == r.id) {
        run_count += n;
      } else {
        if (run_count) h = fold(h, run_id, run_count);
        run_id = r.id;
        run_count = n;
      }
    }
  if (left) return false;  // more bytes than the data
  if (run_count) h = fold(h, run_id, run_count);
  hash = h;
  return true;
}

}  // namespace pamir::dt
