// MPI handles and the objects behind them. This folder is the only code that knows MPI handles.
//
// The standard ABI makes a handle a pointer to an incomplete struct. Predefined handles are small
// integers (below 1024: MPI_COMM_WORLD is 257, MPI_INT 521) that index a table of static objects;
// user handles are pointers to objects that begin with a magic number of their kind, with the object's
// generation in the 16 bits above the 48 of a user-space address. Freed objects wait in a FIFO graveyard
// before their memory is reused, and reuse bumps the generation, so a freed handle is reported, not
// used: while the object waits its magic says so, and afterwards its generation no longer matches.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <map>
#include <new>
#include <string>
#include <vector>

namespace pamir::mpi {

constexpr uintptr_t kPredefinedLimit = 1024;
// x86-64 and AArch64 user-space addresses fit in 48 bits; a user handle keeps its object's generation above.
constexpr unsigned kGenerationShift = 48;
constexpr uintptr_t kAddressMask = (uintptr_t(1) << kGenerationShift) - 1;

enum class Kind : uint32_t {
  comm = 0x434f4d4d,        // "COMM"
  group = 0x47525550,       // "GRUP"
  datatype = 0x54595045,    // "TYPE"
  op = 0x4f505f5f,          // "OP__"
  errhandler = 0x45525248,  // "ERRH"
  info = 0x494e464f,        // "INFO"
  message = 0x4d534753,     // "MSGS"
  keyval = 0x4b455956,      // "KEYV"
  session = 0x53455353,     // "SESS"
  win = 0x57494e44,         // "WIND"
};
constexpr uint32_t kDead = 0xdeadbeef;

struct Object {
  uint32_t magic;           // the Kind while alive, kDead once freed
  int32_t int_handle;       // value given out by MPI_<Handle>_toint, 0 until asked for
  int32_t refs = 1;         // users of the object (a communicator holds its groups, ...)
  uint16_t generation = 1;  // bumped each time the memory is reused; never 0
  bool predefined = false;
};

// The object a user handle names (address bits only; nothing is checked).
inline Object *object_at(uintptr_t handle) {
  return reinterpret_cast<Object *>(handle & kAddressMask);
}
// Whether a non-predefined handle names a live object of `kind` of the generation the handle carries.
inline bool handle_live(uintptr_t handle, uint32_t kind) {
  const Object *o = object_at(handle);
  return o->magic == kind && o->generation == uint16_t(handle >> kGenerationShift);
}
inline uintptr_t handle_value(const Object *o) {
  return reinterpret_cast<uintptr_t>(o) | uintptr_t(o->generation) << kGenerationShift;
}

// Objects of one kind come from here; freed ones wait in a FIFO before reuse.
template <typename T>
struct ObjectPool {
  std::deque<T *> graveyard;
  static constexpr size_t kKeepDead = 64;
  template <typename... A>
  T *make(A &&...args) {
    T *p;
    if (graveyard.size() > kKeepDead) {
      p = graveyard.front();
      graveyard.pop_front();
      uint16_t generation = uint16_t(p->generation + 1);
      if (generation == 0) generation = 1;
      p->~T();
      new (p) T(std::forward<A>(args)...);
      p->generation = generation;
    } else {
      p = new T(std::forward<A>(args)...);
    }
    p->magic = uint32_t(T::kKind);
    return p;
  }
  void destroy(T *p) {
    p->magic = kDead;
    graveyard.push_back(p);
  }
};

template <typename T>
ObjectPool<T> &pool() {
  static auto *p = new ObjectPool<T>;
  return *p;
}

// Predefined objects of a kind, indexed by the handle's integer value.
template <typename T>
T *&predefined_slot(uintptr_t value) {
  static T *table[kPredefinedLimit] = {};
  return table[value];
}

// Handle -> object; nullptr when the handle is not a live object of that kind (including the
// kind's NULL handle).
template <typename T, typename H>
inline T *lookup(H h) {
  const uintptr_t v = reinterpret_cast<uintptr_t>(h);
  if (v < kPredefinedLimit) return predefined_slot<T>(v);
  if (__builtin_expect(!handle_live(v, uint32_t(T::kKind)), 0)) return nullptr;
  return static_cast<T *>(object_at(v));
}

// Whether a non-predefined handle names a freed object of the kind (for a precise message): one still
// in the graveyard, or one whose memory now holds a newer object of the kind.
template <typename T, typename H>
inline bool is_freed(H h) {
  const uintptr_t v = reinterpret_cast<uintptr_t>(h);
  if (v < kPredefinedLimit) return false;
  const Object *o = object_at(v);
  return o->magic == kDead ||
         (o->magic == uint32_t(T::kKind) && o->generation != uint16_t(v >> kGenerationShift));
}

// The handle of a user object (predefined objects have their standard values; callers map those).
template <typename H, typename T>
inline H handle_of(T *o) {
  return reinterpret_cast<H>(handle_value(o));
}

template <typename T>
void release(T *o) {
  if (o && !o->predefined && --o->refs == 0) pool<T>().destroy(o);
}

// MPI_<Handle>_toint / _fromint for user objects: a table per kind, index from 1024 up.
int object_to_int(Kind kind, void *object, int32_t *cache);
void *object_from_int(Kind kind, int value);
void object_forget_int(Kind kind, int value);

}  // namespace pamir::mpi
