// PredicateRegistry: the named conditions a rule's `where` guard may call,
// the built-in ones (`float(x)`, `constant(c)`, `one_client(x)`, …) and those
// a program registers in C++.
#pragma once

#include <cstdint>
#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/graph/function_graph.hpp"
#include "engine/graph/variable.hpp"

namespace rw::dsl {

/// What one argument of a predicate is: a variable bound by the rule's left
/// side, or an integer literal (`broadcastable(x, 0)`).
enum class PredicateArg : std::uint8_t { Tensor, Int };

/// The arguments of one predicate call: the tensor arguments in order, the
/// integer arguments in order, and the graph being rewritten (null when the
/// guard is evaluated outside a FunctionGraph).
struct PredicateInput {
  std::span<const Var> tensors;
  std::span<const std::int64_t> ints;
  const FunctionGraph* fgraph = nullptr;
};

/// A predicate's implementation.
using PredicateFn = std::function<bool(const PredicateInput&)>;

/// What a predicate reads, which decides how a rule that calls it is re-tried
/// after the graph changes (a compiled rule's `NodeRewriter::depth`).
enum class PredicateReads : std::uint8_t {
  /// The types and constness of its arguments and the values of constants:
  /// the rule is re-tried only when its own nodes change.
  Types,
  /// Also the uses of its arguments (`one_client`). Uses of graph inputs are
  /// not followed by the rewrite driver, so such rules get kAnyDepth.
  Uses,
  /// Anything reachable through the graph: the rule gets kAnyDepth (the
  /// driver sweeps the graph again until nothing changes). The default for
  /// predicates registered in C++, which may read anything.
  Anything,
};

/// What a predicate assumes about the run-time values of its tensor
/// arguments, beyond what the graph shows (`nonzero(x)`: x holds no zero).
/// The registry makes such a predicate false for a constant argument that
/// breaks the assumption, whatever its function says; its real content is a
/// promise by the rule's author, which `rwcheck verify` honours by drawing the
/// arguments' values inside it.
struct ValueAssumption {
  /// Every element is at least `min` and at most `max`.
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  /// No element is zero.
  bool nonzero = false;

  /// Whether `v` satisfies the assumption.
  bool admits(double v) const { return v >= min && v <= max && !(nonzero && v == 0); }
  /// The assumption of both (the intersection of the value sets).
  ValueAssumption operator&(const ValueAssumption& o) const {
    return {std::max(min, o.min), std::min(max, o.max), nonzero || o.nonzero};
  }
  bool operator==(const ValueAssumption&) const = default;
};

/// One predicate: its name, its arguments, one line of documentation, the
/// function, what it reads, and the assumption it states about the values of
/// its tensor arguments, if any.
struct PredicateInfo {
  std::string name;
  std::vector<PredicateArg> args;
  std::string doc;
  PredicateFn fn;
  PredicateReads reads = PredicateReads::Anything;
  std::optional<ValueAssumption> assumes = std::nullopt;
};

/// Names that guards use for values (`dtype(x) == float32`), which cannot be
/// predicates.
inline constexpr std::string_view kQueryNames[] = {"dtype", "rank", "ndim", "shape", "value"};

/// Predicates by name. A default-constructed registry holds the built-in
/// predicates of the language (see docs/rules-language.md); a program adds
/// its own with `add`. Rules loaded against a registry keep shared handles to
/// the predicates they call, so the registry need not outlive them.
class PredicateRegistry {
 public:
  /// A registry with the built-in predicates.
  PredicateRegistry();

  /// Adds a predicate. Throws ValueError when the name is empty,
  /// not an identifier, taken, or a query name, `fn` is empty, or `assumes`
  /// is given for a predicate without tensor arguments or admits no value.
  void add(PredicateInfo info);
  /// Adds a predicate whose arguments are `arity` tensors.
  void add(std::string name, std::size_t arity, std::string doc,
           std::function<bool(std::span<const Var>, const FunctionGraph*)> fn,
           PredicateReads reads = PredicateReads::Anything);

  /// The predicate, or null.
  std::shared_ptr<const PredicateInfo> find(std::string_view name) const;
  /// Every predicate, sorted by name.
  std::vector<std::shared_ptr<const PredicateInfo>> all() const;
  /// Every predicate name, sorted.
  std::vector<std::string> names() const;

 private:
  std::map<std::string, std::shared_ptr<const PredicateInfo>, std::less<>> predicates_;
};

}  // namespace rw::dsl
