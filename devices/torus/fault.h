// PAMIR_TORUS_FAULT (issue 20, section 3): links taken down or made to drop packets, for tests and for
// users who study resilience. The text is a list separated by ';' of
//   down:COORDS:LINK          the link carries nothing; packets that meet it take the escape channel
//   drop:COORDS:LINK:P:SEED   the link drops each packet with probability P (0 < P <= 1), the packets
//                             chosen by SEED and the order in which they cross it
// where COORDS are the node's coordinates ("1,0,2") and LINK a dimension letter and + or - ("B+"): the
// link leaving that node along that dimension in that direction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "devices/torus/geometry.h"

namespace pamir::torus {

struct LinkFault {
  uint32_t node = 0;
  int dim = 0;
  int dir = 1;
  bool down = false;  // else it drops
  double probability = 0;
  uint64_t seed = 0;
};

// Parses `text` for geometry `g`; false with the reason (naming `name`) when it is not valid.
bool parse_faults(const std::string &text, const Geometry &g, std::vector<LinkFault> &out, std::string &why,
                  const char *name = "PAMIR_TORUS_FAULT");

// "(1,0,2) B+": how reports and errors name a link.
std::string link_name(const Geometry &g, uint32_t node, int dim, int dir);

}  // namespace pamir::torus
