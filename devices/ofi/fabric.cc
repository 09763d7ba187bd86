#include "devices/ofi/fabric.h"

#include <dlfcn.h>

namespace pamir::dev::ofi {

namespace {
// The library's soname: the ABI the headers we build with describe (libfabric1 on Debian).
constexpr const char *kLibrary = "libfabric.so.1";

template <typename F>
bool resolve(void *lib, const char *name, F &out, std::string &why) {
  out = reinterpret_cast<F>(dlsym(lib, name));
  if (!out) why = std::string(kLibrary) + " has no symbol " + name;
  return out != nullptr;
}
}  // namespace

const Fabric *load_fabric(std::string &why) {
  static Fabric f{};
  static bool loaded = false;
  static std::string failure;
  if (loaded) return &f;
  if (!failure.empty()) {
    why = failure;
    return nullptr;
  }
  // RTLD_LOCAL: its symbols serve only us, and a program linked with another libfabric keeps its own.
  void *lib = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    failure = std::string("cannot load ") + kLibrary + " (Debian package libfabric1): " + (e ? e : "?");
  } else if (resolve(lib, "fi_getinfo", f.getinfo, failure) &&
             resolve(lib, "fi_freeinfo", f.freeinfo, failure) &&
             resolve(lib, "fi_dupinfo", f.dupinfo, failure) && resolve(lib, "fi_fabric", f.fabric, failure) &&
             resolve(lib, "fi_strerror", f.strerror, failure)) {
    loaded = true;
    return &f;
  }
  why = failure;
  return nullptr;
}

}  // namespace pamir::dev::ofi
