// libfabric's exported entry points, resolved from the library loaded with dlopen() when the ofi device
// is chosen: merely linking libfabric costs every process start about 0.2 s here (its psm providers sleep
// in their constructors), which a job that never leaves the node should not pay. Everything else in
// libfabric's API is an inline call through the object's ops table, so these five are all there is.
#pragma once

#include <rdma/fabric.h>

#include <cstdint>
#include <string>

namespace pamir::dev::ofi {

struct Fabric {
  int (*getinfo)(uint32_t version, const char *node, const char *service, uint64_t flags,
                 const struct fi_info *hints, struct fi_info **info);
  void (*freeinfo)(struct fi_info *info);
  struct fi_info *(*dupinfo)(const struct fi_info *info);  // dupinfo(nullptr) is fi_allocinfo()
  int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
  const char *(*strerror)(int errnum);
};

// Loads libfabric once per process; nullptr with the reason (dlerror's) when it cannot be loaded.
const Fabric *load_fabric(std::string &why);

}  // namespace pamir::dev::ofi
