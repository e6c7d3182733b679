// PatternNodeRewriter: a rewrite stated as an input pattern and an output
// pattern over unification terms (Aesara's PatternNodeRewriter) — matched with
// unify's Pattern, built with reify_to_graph, so every result is type-checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/graph/op_registry.hpp"
#include "engine/rewrite/node_rewriter.hpp"
#include "engine/unify/match.hpp"
#include "engine/unify/reify_graph.hpp"
#include "engine/unify/term.hpp"

namespace rw {

/// How a PatternNodeRewriter builds its result and what it declares.
struct PatternRewriteOptions {
  /// Resolves op patterns and symbols of the output pattern (`sum{axis=?a}`
  /// is built through it at rewrite time; each distinct Op once). Must
  /// outlive the rewriter. Not needed when the output pattern's heads are Ops.
  const OpRegistry* registry = nullptr;
  /// Aesara's `allow_multiple_clients`. When false (the default), a match
  /// whose intermediate nodes — those the input pattern matched below its
  /// root — are also used elsewhere is refused: replacing the root would
  /// leave them alive for their other users, so the rewrite would compute
  /// them twice instead of saving work.
  bool allow_multiple_clients = false;
  /// Rewriters of one node are tried by decreasing benefit (NodeRewriter).
  int benefit = 1;
  /// How far below the node `transform` reads. By default: the depth of the
  /// input pattern's deepest application (0 for `x * 1`, 1 for `(x*y)/y`),
  /// or kAnyDepth when it applies an associative Op (flattening reads chains
  /// of any length). Guards and constraints are assumed to read only the
  /// variables they are given — their types, constness and constant values;
  /// one that reads more (uses, ancestors) must say so here (kAnyDepth).
  std::optional<int> depth;
  /// What `describe()` says; by default `in -> out` printed from the terms.
  std::string description;
  /// Variables of the input pattern that every match binds to constants —
  /// what a guard `constant(y) and …` demands. The rewriter's filter then
  /// turns away nodes whose input there is not a constant before matching.
  /// A promise of the caller: a variable listed here that a guard does not
  /// require to be constant makes the rewriter miss matches.
  std::vector<Term> constant_vars;
};

/// Replaces every match of an input pattern by an output pattern:
///
///     PatternNodeRewriter("div_cancel", Pattern(div(mul(?x, ?y), ?y)), ?x)
///
/// The input pattern is a unify `Pattern` — with its theory (commutative,
/// associative Ops), its guards (over the bindings, seeing the graph through
/// `Bindings::fgraph()`) and its per-subpattern constraints. Its root must be
/// an application of a named Op, which the rewriter tracks. The node's only
/// (or default) output is matched; on a match, the output pattern is built
/// with `reify_to_graph` under the bindings — literals take the dtype of
/// their sibling operands, or the replaced output's dtype when they have
/// none; a literal standing alone becomes a constant of the replaced
/// output's type (its static shape must be known).
///
/// Everything that stops the rewrite is a failed attempt with a reason, never
/// an exception: a subpattern, constraint or guard that does not match, a
/// shared intermediate node (see `allow_multiple_clients`), a right side that
/// cannot be built (an Op whose make_node refuses the inputs or its
/// parameters, an Op bound by the match that is not one), or a result whose
/// type cannot replace the output's (the
/// replacement's type must be the output's or more specific, as Aesara asks).
/// The reasons are built only when someone listens (`RewriteContext::fail`),
/// so a failed attempt costs what the match costs: tens of nanoseconds.
class PatternNodeRewriter final : public NodeRewriter {
 public:
  /// Throws RewriteError for an empty name, a null output pattern, an
  /// input pattern whose root is not an application of a named Op, or an
  /// output pattern naming an Op (`sum{axis=?a}`, `mul`) that
  /// `options.registry` does not know, or with no registry: the right
  /// side's Ops are resolved when the rewriter is made.
  PatternNodeRewriter(std::string name, Pattern in, Term out, PatternRewriteOptions options = {});

  /// The input pattern (with its theory, guards and constraints).
  const Pattern& in_pattern() const { return in_; }
  /// The output pattern.
  const Term& out_pattern() const { return out_; }
  /// Whether intermediate nodes with other uses are accepted.
  bool allow_multiple_clients() const { return allow_multiple_clients_; }
  /// The Ops built through the registry so far (one per distinct parameters).
  const OpCache& op_cache() const { return cache_; }

  /// The replacement of the node's output, or why there is none.
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
  /// The description given, or `in -> out`.
  std::string describe() const override;
  /// What the rewriter compiled to, as text: the input pattern's program
  /// (Pattern::listing), the right side it builds, and what the driver reads
  /// off the program — the filter, the depth, the shared-node check
  /// (`rwcheck --show-program`).
  std::string program_listing() const;

  /// Why the rewrite does not apply to `node` of `fgraph` — the first
  /// subpattern, constraint or guard that failed, a shared intermediate
  /// node, or why the right side cannot be built — or nullopt when it
  /// applies. Always builds its reason (for `rwcheck --why-not`); changes
  /// nothing.
  std::optional<std::string> why_not(const FunctionGraph& fgraph, const Apply& node) const;

 private:
  RewriteResult run(const FunctionGraph& fgraph, const Apply& node, bool explain) const;
  std::optional<std::string> shared_intermediate(const FunctionGraph& fgraph, const Apply& node,
                                                 const Substitution& s, bool explain) const;

  Pattern in_;
  Term out_;
  const OpRegistry* registry_;
  bool allow_multiple_clients_;
  std::string description_;
  // Read off the input pattern's program (Pattern::facts): whether it has
  // applications below the root, and whether some Op of it is commutative or
  // associative (the intermediate nodes' paths then depend on the match).
  bool has_intermediates_ = false;
  bool arranged_ = false;
  mutable OpCache cache_;
};

}  // namespace rw
