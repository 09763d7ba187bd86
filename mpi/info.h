// Info objects: ordered (key, value) string pairs (MPI 4.1 chapter 10). MPI_INFO_ENV is a predefined
// object filled on first use; every other info is a user object from the pool.
#pragma once

#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

#include "mpi/object.h"

namespace pamir::mpi {

struct Info : Object {
  static constexpr Kind kKind = Kind::info;
  std::vector<std::pair<std::string, std::string>> items;  // in the order keys were first set

  const std::string *find(const std::string &key) const {
    for (const auto &kv : items)
      if (kv.first == key) return &kv.second;
    return nullptr;
  }
  // Replaces the value of an existing key in place, or appends the key.
  void set(const std::string &key, const std::string &value) {
    for (auto &kv : items)
      if (kv.first == key) {
        kv.second = value;
        return;
      }
    items.emplace_back(key, value);
  }
  bool erase(const std::string &key) {
    for (auto it = items.begin(); it != items.end(); ++it)
      if (it->first == key) {
        items.erase(it);
        return true;
      }
    return false;
  }
};

// A new user info object (refs 1), optionally a copy of `items`.
Info *info_make(std::vector<std::pair<std::string, std::string>> items = {});
// Drops a reference; user objects go back to the pool at zero (predefined ones are never freed).
void info_release(Info *info);
// Handle -> object (MPI_INFO_ENV included, filled on first use); nullptr for MPI_INFO_NULL and bad
// handles.
Info *info_of(MPI_Info h);
inline MPI_Info info_handle(Info *info) {
  return info == nullptr ? MPI_INFO_NULL : info->predefined ? MPI_INFO_ENV : handle_of<MPI_Info>(info);
}

// For the calls MPI allows before MPI_Init and after MPI_Finalize (info, error classes, ABI queries):
// raises "<fn>: <class>: <reason>" on MPI_COMM_SELF's handler while MPI is usable, else just returns
// the class (there is no error handler to call yet).
[[gnu::cold]] [[gnu::format(printf, 3, 4)]] int raise_anytime(const char *fn, int cls, const char *fmt, ...);

}  // namespace pamir::mpi
