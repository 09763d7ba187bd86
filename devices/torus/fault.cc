#include "devices/torus/fault.h"

#include <cstdlib>
#include <sstream>

namespace pamir::torus {
namespace {

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

bool parse_unsigned(const std::string &s, uint64_t &out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 19) return false;
  out = std::strtoull(s.c_str(), nullptr, 10);
  return true;
}

}  // namespace

std::string link_name(const Geometry &g, uint32_t node, int dim, int dir) {
  std::string s = "(";
  for (int d = g.ndims(); d-- > 0;) {
    s.insert(1, std::to_string(node % uint32_t(g.size(d))) + (d + 1 < g.ndims() ? "," : ""));
    node /= uint32_t(g.size(d));
  }
  return s + ") " + std::string(1, "ABCDE"[dim]) + (dir > 0 ? "+" : "-");
}

bool parse_faults(const std::string &text, const Geometry &g, std::vector<LinkFault> &out, std::string &why,
                  const char *name) {
  out.clear();
  if (text.empty()) return true;
  for (const std::string &item : split(text, ';')) {
    const std::vector<std::string> f = split(item, ':');
    auto bad = [&](const std::string &reason) {
      why = std::string(name) + "=\"" + text + "\" is not valid: \"" + item + "\": " + reason +
            " (down:COORDS:LINK or drop:COORDS:LINK:P:SEED, as down:1,0:B+ or drop:0,0:A-:0.5:7)";
      return false;
    };
    LinkFault lf;
    if (f.empty() || (f[0] != "down" && f[0] != "drop")) return bad("it starts with neither down nor drop");
    lf.down = f[0] == "down";
    if (f.size() != (lf.down ? 3u : 5u)) return bad("it has the wrong number of fields");
    const std::vector<std::string> c = split(f[1], ',');
    if (int(c.size()) != g.ndims()) return bad("the torus has " + std::to_string(g.ndims()) + " dimensions");
    Coords at;
    for (int d = 0; d < g.ndims(); ++d) {
      uint64_t v = 0;
      if (!parse_unsigned(c[size_t(d)], v) || v >= uint64_t(g.size(d)))
        return bad("coordinate " + std::string(1, "ABCDE"[d]) + " is not 0 to " +
                   std::to_string(g.size(d) - 1));
      at.at[size_t(d)] = int(v);
    }
    lf.node = g.node(at);
    if (f[2].size() != 2 || f[2][0] < 'A' || f[2][0] >= char('A' + g.ndims()) ||
        (f[2][1] != '+' && f[2][1] != '-'))
      return bad("the link is a dimension's letter and + or -");
    lf.dim = f[2][0] - 'A';
    lf.dir = f[2][1] == '+' ? 1 : -1;
    if (!lf.down) {
      char *end = nullptr;
      lf.probability = std::strtod(f[3].c_str(), &end);
      if (f[3].empty() || *end || !(lf.probability > 0 && lf.probability <= 1))
        return bad("the probability is not above 0 and at most 1");
      if (!parse_unsigned(f[4], lf.seed)) return bad("the seed is not a number");
    }
    if (g.size(lf.dim) == 1)
      return bad("dimension " + std::string(1, "ABCDE"[lf.dim]) + " has no links (size 1)");
    out.push_back(lf);
  }
  return true;
}

}  // namespace pamir::torus
