// FunctionProfile's tables.
#include "engine/compile/profile.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace rw {

namespace {

/// Ops longer than this are written once, at the end, and named `[k]`.
constexpr std::size_t kLongOp = 48;
/// The width the long Ops are wrapped at.
constexpr std::size_t kWrap = 96;
/// The most of a node's text the node table shows.
constexpr std::size_t kNodeText = 40;

/// `text`, cut to `n` characters (a UTF-8 sequence kept whole) with `…`.
std::string cut(const std::string& text, std::size_t n) {
  if (text.size() <= n) return text;
  std::size_t end = n;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end) + "…";
}

struct Group {
  std::string name;
  double seconds = 0;
  std::size_t nodes = 0;
  /// The work of the nodes that report it, and their time.
  double flops = 0;
  double flops_seconds = 0;
  bool has_flops = false;
};

/// GFLOP/s over `seconds`, or `-` when unknown.
std::string rate(bool known, double flops, double seconds) {
  if (!known || seconds <= 0) return "-";
  return fmt::format("{:.2f}", flops / seconds / 1e9);
}

void add_to(Group& g, const NodeProfile& n) {
  g.seconds += n.seconds;
  ++g.nodes;
  if (!n.has_flops) return;
  g.has_flops = true;
  g.flops += n.flops;
  g.flops_seconds += n.seconds;
}

/// Groups sorted by time, then by name (the same order run after run for equal times).
std::vector<Group> sorted(std::map<std::string, Group> groups) {
  std::vector<Group> out;
  for (auto& [name, g] : groups) out.push_back(std::move(g));
  std::stable_sort(out.begin(), out.end(),
                   [](const Group& a, const Group& b) { return a.seconds > b.seconds; });
  return out;
}

double share(double part, double whole) { return whole > 0 ? 100 * part / whole : 0.0; }

}  // namespace

std::string FunctionProfile::summary() const {
  double in_nodes = 0;
  for (const NodeProfile& n : nodes) in_nodes += n.seconds;
  // Long Ops get a key, in the order they are first met.
  std::vector<std::string> long_ops;
  const auto shown = [&](const std::string& op) {
    if (op.size() <= kLongOp) return op;
    auto it = std::find(long_ops.begin(), long_ops.end(), op);
    if (it == long_ops.end()) it = long_ops.insert(long_ops.end(), op);
    return fmt::format("[{}]", it - long_ops.begin() + 1);
  };
  std::map<std::string, Group> by_class, by_op;
  for (const NodeProfile& n : nodes) {
    Group& c = by_class[n.op_class];
    c.name = n.op_class;
    add_to(c, n);
    Group& o = by_op[n.op];
    o.name = n.op;
    add_to(o, n);
  }
  std::string out = fmt::format("{} calls, {:.6f} s in calls, {:.6f} s in nodes\n", calls, seconds,
                                in_nodes);
  out += fmt::format("by Op class:\n{:>7}  {:>10}  {:>5}  {:>8}  {}\n", "share", "seconds",
                     "nodes", "GFLOP/s", "class");
  for (const Group& g : sorted(by_class))
    out += fmt::format("{:>6.1f}%  {:>10.6f}  {:>5}  {:>8}  {}\n", share(g.seconds, in_nodes),
                       g.seconds, g.nodes, rate(g.has_flops, g.flops, g.flops_seconds), g.name);
  out += fmt::format("by Op:\n{:>7}  {:>10}  {:>5}  {:>8}  {}\n", "share", "seconds", "nodes",
                     "GFLOP/s", "op");
  for (const Group& g : sorted(by_op))
    out += fmt::format("{:>6.1f}%  {:>10.6f}  {:>5}  {:>8}  {}\n", share(g.seconds, in_nodes),
                       g.seconds, g.nodes, rate(g.has_flops, g.flops, g.flops_seconds),
                       shown(g.name));
  out += fmt::format("by node, in run order:\n{:>7}  {:>10}  {:>10}  {:>8}  {}\n", "share",
                     "seconds", "out bytes", "GFLOP/s", "node");
  for (const NodeProfile& n : nodes)
    out += fmt::format("{:>6.1f}%  {:>10.6f}  {:>10}  {:>8}  {} = {}\n", share(n.seconds, in_nodes),
                       n.seconds, n.output_bytes, rate(n.has_flops, n.flops, n.seconds),
                       cut(n.node, kNodeText), shown(n.op));
  out += fmt::format(
      "peak intermediate memory: {} bytes in {} buffers (last call: {} bytes in {})\n", peak_bytes,
      peak_buffers, last_peak_bytes, last_peak_buffers);
  out += fmt::format("output buffers reused: {}, newly allocated: {}\n", reused_buffers,
                     new_buffers);
  if (!long_ops.empty()) out += "ops in full:\n";
  for (std::size_t k = 0; k < long_ops.size(); ++k) {
    const std::string& op = long_ops[k];
    std::string head = fmt::format("  [{}] ", k + 1);
    const std::string indent(head.size(), ' ');
    for (std::size_t at = 0; at < op.size(); at += kWrap - indent.size()) {
      out += (at == 0 ? head : indent) + op.substr(at, kWrap - indent.size()) + "\n";
    }
  }
  return out;
}

}  // namespace rw
