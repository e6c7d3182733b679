// NodeFilter: a necessary condition for a node rewriter to apply, stated as
// data (the node's Op kind and arity, what computes its inputs, which inputs
// are constants) so that drivers turn most nodes away in a few compares,
// before a `transform` call builds anything.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "engine/graph/apply.hpp"
#include "engine/graph/op.hpp"

namespace rw {

namespace detail {
struct FilterLiterals;
}

/// A literal a filter compares a constant with, as the rules language writes
/// it: `1`, `0.5`, `true`.
using FilterLiteral = std::variant<std::int64_t, double, bool>;

/// What a node must look like for a rewriter to have a chance: a conjunction
/// of checks on the node and on the variables below it, each reached by a
/// path of input positions from the node (`{1}` is input 1; `{0, 2}` is input
/// 2 of the node computing input 0).
///
/// A filter only ever says "no" where `transform` would fail, so a driver may
/// skip `transform` when `accepts` is false; `true` promises nothing. The
/// empty filter accepts every node. PatternNodeRewriter compiles one from its
/// input pattern (`x * 1` gives: a `mul` node with two inputs whose input 1 is
/// a constant holding 1); ConstantFolding asks for constant inputs.
///
/// At most `kMaxChecks` checks below the node are kept; further ones are
/// dropped, which only makes the filter accept more.
class NodeFilter {
 public:
  /// The most checks below the node a filter holds.
  static constexpr std::size_t kMaxChecks = 16;

  /// The filter that accepts every node.
  NodeFilter() = default;

  /// The node's Op must be of kind `kind`.
  NodeFilter& op(OpKind kind);
  /// The node must have exactly `n` inputs.
  NodeFilter& arity(std::size_t n);
  /// Every input of the node must be a constant.
  NodeFilter& all_inputs_constant();
  /// Some input of the node, at any position, must be computed by a node of
  /// an Op of kind `kind` (FillSink asks for a `fill` among the inputs).
  NodeFilter& some_input_computed(OpKind kind);
  /// Some input, at any position, must be a constant — what a commutative
  /// pattern's variable bound only to constants asks.
  NodeFilter& some_input_constant();
  /// Some input, at any position, must be a constant the literal matches
  /// (`literal`): `x * 1` with `mul` commutative asks for a 1 on either side.
  NodeFilter& some_input_literal(FilterLiteral value);
  /// The node's Op must equal `op` (class, name and properties), as a
  /// pattern whose head is an Op requires; implies its kind.
  NodeFilter& op_equal_to(std::shared_ptr<const Op> op);
  /// The node's Op must have the property `name`, equal to `value`
  /// (`dimshuffle(x, order=(0, 1))` asks for `order` == (0, 1)).
  NodeFilter& prop(std::string name, PropValue value);
  /// The variable at `path` (not empty) must be computed by a node — of an
  /// Op of kind `kind` unless that is none, with `arity` inputs if given.
  /// The variables on the way must be computed by nodes (implied).
  NodeFilter& computed(std::span<const std::uint32_t> path, OpKind kind = {},
                       std::optional<std::size_t> arity = std::nullopt);
  /// The variable at `path` (not empty) must be a constant.
  NodeFilter& constant(std::span<const std::uint32_t> path);
  /// The variable at `path` (not empty) must be a constant that the literal
  /// matches as a pattern's literal does (`literal_matches_constant`): one
  /// element of that value.
  NodeFilter& literal(std::span<const std::uint32_t> path, FilterLiteral value);

  /// The variables at `path` and `other` (neither empty) must be able to be
  /// one value, as a pattern variable written twice requires: the same
  /// variable, two constants, or two variables computed by Ops of one kind
  /// with as many inputs (the matcher then compares them in full).
  NodeFilter& same_value(std::span<const std::uint32_t> path, std::span<const std::uint32_t> other);

  /// False when the node cannot be rewritten; true when it may be.
  bool accepts(const Apply& node) const;

  /// A first glance at a node, read once and shared by every filter a driver
  /// asks about it: its arity and what computes its first inputs (an Op
  /// kind's index, below 2^31, or kConstantInput, kRootInput, or kNoInput
  /// past the arity, which have the top bit set).
  struct NodeGlance {
    std::uint32_t arity = 0;
    std::array<std::uint32_t, 3> input{};
  };
  static constexpr std::uint32_t kNotComputed = 0x80000000u;
  static constexpr std::uint32_t kConstantInput = kNotComputed | 1;
  static constexpr std::uint32_t kRootInput = kNotComputed | 2;
  static constexpr std::uint32_t kNoInput = kNotComputed | 3;
  static NodeGlance glance_at(const Apply& node) {
    NodeGlance g;
    g.arity = static_cast<std::uint32_t>(node.num_inputs());
    for (std::size_t i = 0; i < g.input.size(); ++i) {
      if (i >= node.num_inputs()) {
        g.input[i] = kNoInput;
      } else if (const Apply* o = node.input(i)->owner()) {
        g.input[i] = o->kind_index();
      } else {
        g.input[i] = node.input(i)->is_constant() ? kConstantInput : kRootInput;
      }
    }
    return g;
  }
  /// What the filter needs of a glance, as a value and a mask per field (the
  /// arity, then each of the first inputs): the field XOR the value must be
  /// zero under the mask. So a mask of zero asks nothing, a full mask an
  /// exact arity, Op kind or constant; the top bit alone asks for a node of
  /// any kind; all bits but the one telling a constant from no input ask for
  /// either (every input constant). False only where `accepts` is false: a
  /// driver asks this, without a branch, before `accepts`.
  struct Glance {
    std::array<std::uint32_t, 4> value{};
    std::array<std::uint32_t, 4> mask{};
    bool admits(const NodeGlance& n) const {
      return (((n.arity ^ value[0]) & mask[0]) | ((n.input[0] ^ value[1]) & mask[1]) |
              ((n.input[1] ^ value[2]) & mask[2]) | ((n.input[2] ^ value[3]) & mask[3])) == 0;
    }
  };
  const Glance& glance() const { return glance_; }
  /// True for a filter without checks.
  bool accepts_all() const {
    return !kind_ && arity_ == kAnyArity && !all_constant_ && some_inputs_.empty() &&
           !has_op_checks_ && checks_.empty();
  }
  /// The checks, for messages and tests: `mul/2, [1]=1`, `[0]:add/2`,
  /// `[1]==[0,1]`, `*=const`, `[?]:fill`, `[?]=const`, `[?]=1` (some
  /// input), `{order=(0)}`,
  /// `=dimshuffle{order=(0)}` for an Op compared whole ("any" for the empty
  /// filter).
  std::string to_string() const;

 private:
  static constexpr std::uint32_t kAnyArity = std::numeric_limits<std::uint32_t>::max();
  static constexpr std::uint16_t kNode = std::numeric_limits<std::uint16_t>::max();
  enum class Require : std::uint8_t { Computed, Constant, Literal, Same };
  struct Check {
    std::uint16_t parent = kNode;  // the check whose node this one reads an input of
    std::uint16_t input = 0;
    Require what = Require::Computed;
    OpKind kind;                    // Computed: none for any Op
    std::uint32_t arity = kAnyArity;  // Computed
    std::uint32_t literal = 0;        // Literal: its index in literals_
    std::uint16_t other_parent = kNode, other_input = 0;  // Same: the other variable
  };
  // The index of the Computed check at `path`, adding it (and its prefix)
  // when missing; kNode for the empty path, -1 when the table is full.
  int node_at(std::span<const std::uint32_t> path);
  bool add(std::span<const std::uint32_t> path, Check c);  // false: dropped (table full)
  std::uint32_t add_literal(FilterLiteral value);          // its index in literals_
  void update_glance();

  OpKind kind_;
  std::uint32_t arity_ = kAnyArity;
  bool all_constant_ = false;
  // Each must hold of some input, at any position (Computed with a kind,
  // Constant or Literal; parent and input unused).
  std::vector<Check> some_inputs_;
  bool has_op_checks_ = false;  // literals_ holds properties or an Op to compare
  // Structural checks first, literal and same-value checks (the dearer ones,
  // which no check reads below) after them; a check's parents come before it.
  std::vector<Check> checks_;
  std::size_t first_literal_ = 0;
  Glance glance_;  // what the checks on the node's own inputs need, kept current
  // The literals as terms and the Op properties, kept out of this header (it is included wherever
  // rewriters are); shared by copies, copied when a literal is added.
  std::shared_ptr<const detail::FilterLiterals> literals_;
};

}  // namespace rw
