// The checked form of rule files: patterns with resolved Ops and parameters,
// variables by index, guards, rulesets and operator declarations — what
// compiling a rule into a rewriter starts from.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/dsl/var_id.hpp"
#include "engine/dsl/guard.hpp"
#include "engine/dsl/literals.hpp"
#include "engine/dsl/source.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"

namespace rw::dsl {

/// What a rule variable stands for.
enum class VarKind : std::uint8_t {
  Tensor,  ///< a graph variable (an input of a matched node)
  Param,   ///< the value of an Op parameter (`sum(x, axis=a)` binds `a`)
};

/// One variable of a rule. Variables are bound on the left side; the right
/// side and the guard only read them.
struct RuleVariable {
  std::string name;
  VarKind kind = VarKind::Tensor;
  /// Where the left side binds it (its first occurrence).
  Span span;
  /// `_`: matches anything, binds nothing that can be read.
  bool anonymous = false;
  /// For a parameter variable: the kind of parameter that binds it.
  ParamKind param_kind = ParamKind::Int;
  bool param_nullable = false;
};

/// One parameter of an Op in a pattern: a literal value or a parameter variable.
struct PatternParam {
  std::string name;
  /// The value, converted to the parameter's kind (defaults filled in).
  std::optional<PropValue> value;
  /// Or the variable that binds (left side) or supplies (right side) it.
  std::optional<VarId> var;
  /// Where it was written; the call's span when it is a default.
  Span span;
  /// False for a default the rule did not write.
  bool written = false;
};

/// One node of a pattern.
struct PatternNode {
  /// What the node is.
  enum class Kind : std::uint8_t {
    Var,      ///< a rule variable
    Literal,  ///< a number: on the left, matches a one-element constant equal to it
    Apply,    ///< an Op applied to input nodes
  };
  Kind kind = Kind::Var;
  Span span;
  /// Var: which variable.
  VarId var{};
  /// Literal: the value (negative literals folded: `-1` is -1).
  NumberValue literal;
  /// Apply: the Op's registry entry (canonical name: `info->name`).
  const OpInfo* op_info = nullptr;
  /// Apply: the Op itself when every parameter is a literal, else null (the
  /// Op is built from the bound parameter values at rewrite time).
  OpPtr op;
  /// Apply: one per parameter the Op takes, in the registry's order.
  std::vector<PatternParam> params;
  /// Apply: the input nodes, by index into Pattern::nodes (all smaller than
  /// this node's own index).
  std::vector<std::uint32_t> inputs;
};

/// One side of a rule: nodes in post-order (every node after its inputs), so
/// a single forward pass can build terms bottom-up; the root is last.
struct Pattern {
  std::vector<PatternNode> nodes;

  /// The last node: the whole pattern.
  const PatternNode& root() const { return nodes.back(); }
  /// Its index.
  std::uint32_t root_index() const { return static_cast<std::uint32_t>(nodes.size() - 1); }
  /// The pattern in the rules language, with the fewest parentheses.
  std::string to_string(std::span<const RuleVariable> vars) const;
};

/// A rule after checking: every Op resolved, every parameter checked, every
/// variable bound on the left, every guard resolved.
struct CheckedRule {
  std::string name;
  SourcePtr file;
  Span span;
  Span name_span;
  /// The ruleset it belongs to, and its tags: the ruleset's, then its own.
  std::string ruleset;
  std::vector<std::string> tags;
  /// Higher is tried first; 0 unless given.
  std::int64_t priority = 0;
  /// `multiple_clients`: a match whose inner nodes (below the root) have
  /// other uses is rewritten anyway (Aesara's allow_multiple_clients).
  bool multiple_clients = false;
  std::vector<RuleVariable> vars;
  Pattern lhs;
  Pattern rhs;
  std::optional<CheckedGuard> guard;

  /// `rule NAME: LHS => RHS where GUARD`, canonically printed.
  std::string to_string() const;
  /// The variable called `name`, or nullopt.
  std::optional<VarId> find_var(std::string_view name) const;
};

/// A named group of rules and the tags it registers them under.
struct RuleSetInfo {
  std::string name;
  std::vector<std::string> tags;
  SourcePtr file;
  Span span;
};

/// Algebraic properties of an Op that matching may use (`declare add:
/// commutative, associative`). Declarations of one Op are merged.
struct OpDeclaration {
  std::string op;
  const OpInfo* info = nullptr;
  bool commutative = false;
  bool associative = false;
  SourcePtr file;
  Span span;
};

/// Everything one load of a rule file (and what it imports) produced.
struct RuleModule {
  /// Every file loaded, the root last.
  std::vector<SourcePtr> files;
  std::vector<RuleSetInfo> rulesets;
  /// In load order: a file's imports before the file.
  std::vector<CheckedRule> rules;
  std::vector<OpDeclaration> declarations;

  /// The rule called `name`, or null (a linear search).
  const CheckedRule* find_rule(std::string_view name) const;
  /// The ruleset called `name`, or null.
  const RuleSetInfo* find_ruleset(std::string_view name) const;
  /// The merged declaration of an op (canonical registry name), or null.
  const OpDeclaration* declaration(std::string_view op) const;
  /// Whether `op` was declared commutative.
  bool is_commutative(std::string_view op) const;
  /// Whether `op` was declared associative.
  bool is_associative(std::string_view op) const;
  /// Rules carrying `tag` (from their ruleset or their own list).
  std::vector<const CheckedRule*> rules_with_tag(std::string_view tag) const;
};

}  // namespace rw::dsl
