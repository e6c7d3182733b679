// same_graph: whether two graphs compute the same thing node for node — for
// round trips (a graph written as a file and read back).
#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rw/rw.hpp"

namespace rw::test {

namespace detail {

inline bool same_value(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         (a.size() == 0 || allclose(a, b, 0, 0, /*equal_nan=*/true));
}

}  // namespace detail

/// The first difference between the graph (ai → ao) and the graph (bi → bo),
/// or "" when they are the same: inputs of the same types and positions,
/// constants of the same types and values, nodes of equal Ops (OpFromGraphs:
/// the same `inline` and inner graph; a writer may rename them) over
/// corresponding inputs, with outputs of the same types; a name where both
/// have one (not a `%` name) is the same.
inline std::string graph_difference(std::span<const Var> ai, std::span<const Var> ao,
                                    std::span<const Var> bi, std::span<const Var> bo) {
  if (ai.size() != bi.size())
    return fmt::format("{} inputs against {}", ai.size(), bi.size());
  if (ao.size() != bo.size())
    return fmt::format("{} outputs against {}", ao.size(), bo.size());
  std::unordered_map<const Variable*, const Variable*> seen;
  std::unordered_map<const Variable*, std::size_t> input_at_a, input_at_b;
  for (std::size_t i = 0; i < ai.size(); ++i) {
    input_at_a[ai[i].get()] = i;
    input_at_b[bi[i].get()] = i;
  }
  std::vector<std::pair<const Variable*, const Variable*>> stack;
  for (std::size_t i = 0; i < ao.size(); ++i) stack.emplace_back(ao[i].get(), bo[i].get());
  while (!stack.empty()) {
    const auto [a, b] = stack.back();
    stack.pop_back();
    if (auto it = seen.find(a); it != seen.end()) {
      if (it->second != b) return fmt::format("`{}` corresponds to two variables", a->name());
      continue;
    }
    seen.emplace(a, b);
    const std::string where =
        a->owner() ? fmt::format("an output of `{}`", a->owner()->op().to_string())
                   : fmt::format("`{}`", a->name());
    if (!a->type()->equals(*b->type()))
      return fmt::format("{}: type {} against {}", where, a->type()->to_string(),
                         b->type()->to_string());
    // A `%` name is a graph file's name for an unnamed variable.
    const auto named = [](const Variable& v) { return !v.name().empty() && v.name()[0] != '%'; };
    if (named(*a) && named(*b) && a->name() != b->name())
      return fmt::format("{}: named `{}` against `{}`", where, a->name(), b->name());
    const bool a_in = input_at_a.contains(a), b_in = input_at_b.contains(b);
    if (a_in || b_in) {
      if (!a_in || !b_in || input_at_a[a] != input_at_b[b])
        return fmt::format("{}: not the same input", where);
      continue;
    }
    if (a->is_constant() || b->is_constant()) {
      if (!a->is_constant() || !b->is_constant() ||
          !detail::same_value(a->as_constant()->value(), b->as_constant()->value()))
        return fmt::format("{}: constants differ", where);
      continue;
    }
    const Apply* na = a->owner();
    const Apply* nb = b->owner();
    if (!na || !nb) return fmt::format("{}: a root against a node", where);
    const auto* fa = dynamic_cast<const OpFromGraph*>(&na->op());
    const auto* fb = dynamic_cast<const OpFromGraph*>(&nb->op());
    if (fa || fb) {
      if (!fa || !fb || fa->is_inline() != fb->is_inline())
        return fmt::format("{}: OpFromGraph against another op", where);
      std::vector<Var> pa(fa->inner_inputs().begin(), fa->inner_inputs().end());
      pa.insert(pa.end(), fa->shared_inputs().begin(), fa->shared_inputs().end());
      std::vector<Var> pb(fb->inner_inputs().begin(), fb->inner_inputs().end());
      pb.insert(pb.end(), fb->shared_inputs().begin(), fb->shared_inputs().end());
      const std::string inner = graph_difference(pa, fa->inner_outputs(), pb, fb->inner_outputs());
      if (!inner.empty()) return fmt::format("inside `{}`: {}", fa->name(), inner);
    } else if (!na->op().equals(nb->op())) {
      return fmt::format("{}: op against `{}`", where, nb->op().to_string());
    }
    if (na->num_inputs() != nb->num_inputs() || na->num_outputs() != nb->num_outputs())
      return fmt::format("{}: another arity", where);
    for (std::size_t k = 0; k < na->num_outputs(); ++k)
      if (&na->output_var(k) == a && &nb->output_var(k) != b)
        return fmt::format("{}: another output of its node", where);
    for (std::size_t k = 0; k < na->num_inputs(); ++k)
      stack.emplace_back(na->input(k).get(), nb->input(k).get());
  }
  return {};
}

inline std::string graph_difference(const FunctionGraph& a, const FunctionGraph& b) {
  return graph_difference(a.inputs(), a.outputs(), b.inputs(), b.outputs());
}

}  // namespace rw::test
