// FunctionProfile's table.
#include "engine/compile/profile.hpp"

#include <fmt/format.h>

namespace rw {

std::string FunctionProfile::summary() const {
  double in_nodes = 0;
  for (const NodeProfile& n : nodes) in_nodes += n.seconds;
  std::string out = fmt::format("{} calls, {:.6f} s in calls, {:.6f} s in nodes\n", calls, seconds,
                                in_nodes);
  out += fmt::format("{:>7}  {:>10}  {}\n", "share", "seconds", "node");
  for (const NodeProfile& n : nodes)
    out += fmt::format("{:>6.1f}%  {:>10.6f}  {} = {}\n",
                       in_nodes > 0 ? 100 * n.seconds / in_nodes : 0.0, n.seconds, n.node, n.op);
  out += fmt::format(
      "peak intermediate memory: {} bytes in {} buffers (last call: {} bytes in {})\n", peak_bytes,
      peak_buffers, last_peak_bytes, last_peak_buffers);
  out += fmt::format("output buffers reused: {}, newly allocated: {}\n", reused_buffers,
                     new_buffers);
  return out;
}

}  // namespace rw
