// Forward mode: eval points pushed through each node's R_op.
#include "engine/grad/rop.hpp"

#include <fmt/format.h>

#include <iostream>
#include <unordered_map>

#include "engine/grad/errors.hpp"
#include "engine/graph/apply.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/traversal.hpp"
#include "engine/graph/type.hpp"
#include "ops/api.hpp"
#include "ops/sparse/sparse.hpp"

namespace rw {

std::vector<Var> Rop(std::span<const Var> f, std::span<const Var> wrt,
                     std::span<const Var> eval_points, DisconnectedInputs disconnected) {
  if (wrt.size() != eval_points.size())
    throw Error(fmt::format("`Rop`: {} variables but {} eval points", wrt.size(), eval_points.size()));
  std::unordered_map<const Variable*, Var> point;
  std::unordered_map<const Variable*, bool> connected;
  for (std::size_t i = 0; i < wrt.size(); ++i) {
    if (!wrt[i] || !eval_points[i])
      throw TypeError(fmt::format("`Rop`: wrt {} or its eval point is null", i));
    if (as_sparse_type(*wrt[i]->type()) || as_sparse_type(*eval_points[i]->type()))
      throw TypeError(fmt::format("`Rop`: wrt {} or its eval point is a sparse matrix; take the "
                                  "derivative along its data or a dense matrix it is made from "
                                  "(docs/sparse.md)",
                                  i));
    const TensorType* wt = wrt[i]->tensor_type();
    const TensorType* et = eval_points[i]->tensor_type();
    bool fits = wt && et && wt->ndim() == et->ndim();
    for (std::size_t a = 0; fits && a < wt->ndim(); ++a)
      fits = wt->shape()[a] == kUnknownDim || et->shape()[a] == kUnknownDim ||
             wt->shape()[a] == et->shape()[a];
    if (!fits)
      throw TypeError(fmt::format("`Rop`: eval point {} has type `{}`, but {} has type `{}`", i,
                                  eval_points[i]->type()->to_string(), describe(*wrt[i]),
                                  wrt[i]->type()->to_string()));
    Var v = eval_points[i];
    if (is_float(wt->dtype()) && et->dtype() != wt->dtype()) v = cast(v, wt->dtype());
    point[wrt[i].get()] = v;
    connected[wrt[i].get()] = true;
  }
  for (std::size_t k = 0; k < f.size(); ++k)
    if (!f[k]) throw TypeError(fmt::format("`Rop`: output {} is null", k));

  for (Apply* node : io_toposort(wrt, f)) {
    const auto pattern = node->op().connection_pattern(*node);
    std::vector<Var> ev(node->num_inputs());
    bool any = false;
    for (std::size_t i = 0; i < node->num_inputs(); ++i) {
      const Variable* x = node->input(i).get();
      if (!connected.count(x)) continue;
      for (std::size_t j = 0; j < node->num_outputs(); ++j) {
        if (!pattern[i][j]) continue;
        connected[&node->output_var(j)] = true;
        any = true;
      }
      if (auto it = point.find(x); it != point.end()) ev[i] = it->second;
    }
    if (!any) continue;
    bool any_point = false;
    for (const Var& v : ev) any_point = any_point || static_cast<bool>(v);
    if (!any_point) continue;  // connected, but every eval point is zero
    std::vector<Var> out;
    try {
      out = node->op().R_op(*node, ev);
    } catch (const NotImplementedError& e) {
      throw NotImplementedError(fmt::format("`Rop`: {}", e.what()));
    }
    if (out.size() != node->num_outputs())
      throw Error(fmt::format("`Rop`: `{}`.R_op returned {} results for {} outputs",
                              node->op().to_string(), out.size(), node->num_outputs()));
    for (std::size_t j = 0; j < out.size(); ++j) {
      if (!out[j]) continue;
      if (const SparseType* os = as_sparse_type(*node->output_var(j).type())) {
        // A sparse output's derivative is sparse, in its format and dtype.
        if (!as_sparse_type(*out[j]->type()))
          throw Error(fmt::format("`Rop`: `{}`.R_op returned a result of type `{}` for output {} "
                                  "of type `{}`",
                                  node->op().to_string(), out[j]->type()->to_string(), j,
                                  node->output_var(j).type()->to_string()));
        out[j] = sparse_like(out[j], *os);
        point[&node->output_var(j)] = out[j];
        continue;
      }
      const TensorType* ot = node->output_var(j).tensor_type();
      const TensorType* rt = out[j]->tensor_type();
      if (!ot || !rt || ot->ndim() != rt->ndim())
        throw Error(fmt::format("`Rop`: `{}`.R_op returned a result of type `{}` for output {} of "
                                "type `{}`",
                                node->op().to_string(), out[j]->type()->to_string(), j,
                                node->output_var(j).type()->to_string()));
      if (rt->dtype() != ot->dtype()) out[j] = cast(out[j], ot->dtype());
      point[&node->output_var(j)] = out[j];
    }
  }

  std::vector<Var> result;
  for (std::size_t k = 0; k < f.size(); ++k) {
    const Variable* v = f[k].get();
    if (auto it = point.find(v); it != point.end()) {
      result.push_back(it->second);
      continue;
    }
    const TensorType* ft = f[k]->tensor_type();
    if (!connected.count(v)) {
      const std::string message = fmt::format(
          "`Rop`: output {} ({}) does not depend on any of the variables; pass disconnected = "
          "ignore or warn if this is expected",
          k, describe(*f[k]));
      if (disconnected == DisconnectedInputs::Raise) throw DisconnectedInputError(message);
      if (disconnected == DisconnectedInputs::Warn) std::cerr << "warning: " << message << '\n';
    }
    result.push_back(zeros_like(f[k], ft && is_float(ft->dtype()) ? ft->dtype() : DType::Float64));
  }
  return result;
}

Var Rop(const Var& f, const Var& wrt, const Var& eval_point, DisconnectedInputs disconnected) {
  const Var fs[] = {f}, ws[] = {wrt}, es[] = {eval_point};
  return Rop(fs, ws, es, disconnected)[0];
}

}  // namespace rw
