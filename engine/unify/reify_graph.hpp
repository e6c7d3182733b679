// Reifying a term into graph nodes: every application is built through its
// Op's make_node, so a rewrite's result is type-checked; a term that cannot
// be built is a failure with a reason, not an exception.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/graph/op_registry.hpp"
#include "engine/graph/variable.hpp"
#include "engine/unify/subst.hpp"
#include "engine/unify/term.hpp"

namespace rw {

/// Ops built through a registry, kept by name and parameter values, so that a
/// rule whose right side takes parameters from its left side builds each
/// distinct Op once, however often it applies. Safe to share between threads.
class OpCache {
 public:
  OpCache() = default;
  OpCache(const OpCache&) = delete;
  OpCache& operator=(const OpCache&) = delete;

  /// `registry.make(name, params)`, made once per distinct name and
  /// parameters (as given: defaults are the registry's business). Throws as
  /// `make` does; a refusal is not remembered.
  OpPtr get(const OpRegistry& registry, std::string_view name, const Props& params);
  /// Number of Ops held.
  std::size_t size() const;

 private:
  struct Entry {
    std::string name;
    Props params;
    OpPtr op;
  };
  mutable std::mutex mutex_;
  std::unordered_multimap<std::size_t, Entry> entries_;
};

/// How `reify_to_graph` resolves heads and types literals.
struct GraphBuildOptions {
  /// Builds Ops for op patterns (`sum{axis=[0]}`, with the registry's
  /// defaults for properties not given) and symbols (`mul`). Without it only
  /// Op atoms can head an application.
  const OpRegistry* registry = nullptr;
  /// Where Ops built through `registry` are kept between calls (optional).
  OpCache* op_cache = nullptr;
  /// The dtype of a literal that has no sibling to take one from — one that
  /// stands alone, or whose application's inputs are all literals — instead
  /// of int64, float64 or bool (a rewriter gives the replaced node's dtype).
  std::optional<DType> literal_dtype;
};

/// A graph variable, or why there is none.
struct GraphResult {
  /// The variable built (null on failure).
  Var var;
  /// Why nothing was built ("" on success).
  std::string why;
  /// Whether a variable was built.
  explicit operator bool() const { return static_cast<bool>(var); }
};

/// Builds the graph the term `t` stands for under `s`:
///  - a graph variable is itself; an application `head(args…)` (or a list
///    `(head arg…)`) becomes `op.make_node(inputs)` and its default output,
///    where the head is an Op atom, an op pattern or a symbol (through the
///    registry) or a variable bound to one of these;
///  - a literal becomes a 0-d constant with the dtype of the first input of
///    the same application that is not a literal (`literal_dtype`, else
///    int64, float64 or bool, when there is none); it must convert exactly
///    (`1` into float64 is 1.0; `0.5` into int64 is refused), except that a
///    number rounds to float32;
///  - subterms that occur several times (the same node, or one variable)
///    are built once, so sharing in the term is sharing in the graph.
/// Fails — naming the subterm — on an unbound variable, a term that is not
/// a graph value (a string, a tuple…), an unknown Op, or an Op whose
/// make_node refuses its inputs. Nothing outside the new nodes is changed.
GraphResult reify_to_graph(const Term& t, const Substitution& s = {},
                           const GraphBuildOptions& options = {});

}  // namespace rw
