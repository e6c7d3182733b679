// Reverse mode: the gradient graph, node by node in reverse topological order.
#include "engine/grad/grad.hpp"

#include <fmt/format.h>

#include <iostream>
#include <unordered_map>
#include <unordered_set>

#include "engine/grad/errors.hpp"
#include "engine/graph/apply.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/traversal.hpp"
#include "engine/graph/type.hpp"
#include "ops/api.hpp"
#include "ops/sparse/sparse.hpp"

namespace rw {

bool is_disconnected_grad(const Var& v) {
  return !v || dynamic_cast<const DisconnectedType*>(v->type().get()) != nullptr;
}

bool is_null_grad(const Var& v) {
  return v && dynamic_cast<const NullType*>(v->type().get()) != nullptr;
}

namespace {

const TensorType& tensor_of(const Var& v, std::string_view what) {
  const TensorType* t = v->tensor_type();
  if (!t)
    throw TypeError(fmt::format("`grad`: {} {} is not a tensor (type `{}`)", what, describe(*v),
                                v->type()->to_string()));
  return *t;
}

/// Whether two static shapes can describe the same value.
bool shapes_compatible(const StaticShape& a, const StaticShape& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != kUnknownDim && b[i] != kUnknownDim && a[i] != b[i]) return false;
  return true;
}

/// The sum of gradient terms: add for tensors, add_ss for sparse terms (all
/// in the first one's format and dtype), dense when the kinds are mixed.
Var sum_terms(const std::vector<Var>& terms) {
  bool any_sparse = false, all_sparse = true;
  for (const Var& g : terms) {
    const bool s = as_sparse_type(*g->type()) != nullptr;
    any_sparse = any_sparse || s;
    all_sparse = all_sparse && s;
  }
  if (!any_sparse) return rw::add(terms);
  if (all_sparse) {
    Var out = terms[0];
    for (std::size_t k = 1; k < terms.size(); ++k)
      out = add_ss(out, sparse_like(terms[k], *as_sparse_type(*out->type())));
    return out;
  }
  std::vector<Var> dense;
  for (const Var& g : terms) dense.push_back(as_sparse_type(*g->type()) ? dense_from_sparse(g) : g);
  return rw::add(dense);
}

/// The gradient contributions of each variable, summed when read.
class Accumulator {
 public:
  void add(const Variable* v, Var g) { terms_[v].push_back(std::move(g)); }
  bool has(const Variable* v) const { return terms_.count(v) != 0; }

  /// The sum of v's terms: null when it has none, the first NullType term
  /// when there is one.
  Var total(const Variable* v) {
    auto it = terms_.find(v);
    if (it == terms_.end()) return Var();
    std::vector<Var>& t = it->second;
    for (const Var& g : t)
      if (is_null_grad(g)) return g;
    if (t.size() > 1) t = {sum_terms(t)};
    return t[0];
  }

 private:
  std::unordered_map<const Variable*, std::vector<Var>> terms_;
};

/// The variables computed from some variable of `wrt` (wrt included),
/// following each node's connection pattern.
std::unordered_set<const Variable*> connected_set(std::span<Apply* const> order,
                                                  std::span<const Var> wrt) {
  std::unordered_set<const Variable*> on;
  for (const Var& w : wrt) on.insert(w.get());
  for (Apply* node : order) {
    const auto pattern = node->op().connection_pattern(*node);
    for (std::size_t i = 0; i < node->num_inputs(); ++i) {
      if (!on.count(node->input(i).get())) continue;
      for (std::size_t j = 0; j < node->num_outputs(); ++j)
        if (pattern[i][j]) on.insert(&node->output_var(j));
    }
  }
  return on;
}

void report(const GradOptions& options, const std::string& message) {
  if (options.warn)
    options.warn(message);
  else
    std::cerr << "warning: " << message << '\n';
}

/// Calls L_op on `node` and checks what it returns; NotImplementedError makes
/// the connected inputs' gradients undefined.
std::vector<Var> call_l_op(Apply& node, std::span<const Var> output_grads,
                           const std::vector<bool>& wanted) {
  std::vector<Var> input_grads;
  try {
    input_grads = node.op().L_op(node, output_grads);
  } catch (const NotImplementedError& e) {
    input_grads.assign(node.num_inputs(), Var());
    for (std::size_t i = 0; i < node.num_inputs(); ++i)
      if (wanted[i])
        input_grads[i] = Variable::make(
            NullType::make(fmt::format("`{}` input {}: {}", node.op().to_string(), i, e.what())));
    return input_grads;
  }
  if (input_grads.size() != node.num_inputs())
    throw Error(fmt::format("`grad`: `{}`.L_op returned {} gradients for {} inputs",
                            node.op().to_string(), input_grads.size(), node.num_inputs()));
  for (std::size_t i = 0; i < node.num_inputs(); ++i) {
    if (!wanted[i]) continue;
    Var& g = input_grads[i];
    if (!g)
      throw Error(fmt::format("`grad`: `{}`.L_op returned no gradient for input {}",
                              node.op().to_string(), i));
    if (is_disconnected_grad(g) || is_null_grad(g)) continue;
    if (const SparseType* xs = as_sparse_type(*node.input(i)->type())) {
      // A sparse input takes a sparse gradient of its shape, in its format
      // and dtype (converted when the Op gave another).
      const SparseType* gs = as_sparse_type(*g->type());
      if (!gs || !shapes_compatible(gs->shape(), xs->shape()))
        throw Error(fmt::format(
            "`grad`: `{}`.L_op returned a gradient of type `{}` for input {} of type `{}`",
            node.op().to_string(), g->type()->to_string(), i, node.input(i)->type()->to_string()));
      g = sparse_like(g, *xs);
      continue;
    }
    const TensorType* gt = g->tensor_type();
    const TensorType* xt = node.input(i)->tensor_type();
    if (!gt || !xt || !shapes_compatible(gt->shape(), xt->shape()))
      throw Error(fmt::format(
          "`grad`: `{}`.L_op returned a gradient of type `{}` for input {} of type `{}`",
          node.op().to_string(), g->type()->to_string(), i, node.input(i)->type()->to_string()));
    if (is_float(xt->dtype()) && gt->dtype() != xt->dtype()) g = cast(g, xt->dtype());
  }
  return input_grads;
}

}  // namespace

std::vector<Var> grad(const Var& cost, std::span<const Var> wrt, const GradOptions& options) {
  if (!cost && options.known_grads.empty())
    throw TypeError("`grad`: the cost is null and no known gradients are given");
  if (cost) {
    const TensorType& ct = tensor_of(cost, "the cost");
    if (ct.ndim() != 0)
      throw TypeError(fmt::format("`grad`: the cost must be a 0-d tensor, not `{}`",
                                  ct.to_string()));
  }
  for (std::size_t i = 0; i < wrt.size(); ++i) {
    if (!wrt[i]) throw TypeError(fmt::format("`grad`: wrt {} is null", i));
    if (!as_sparse_type(*wrt[i]->type())) tensor_of(wrt[i], fmt::format("wrt {}", i));
  }

  std::vector<Var> roots;
  Accumulator acc;
  if (cost) {
    roots.push_back(cost);
    const DType d = cost->tensor_type()->dtype();
    acc.add(cost.get(), ones_like(cost, is_float(d) ? d : DType::Float64));
  }
  for (const auto& [v, g] : options.known_grads) {
    if (!v || !g) throw TypeError("`grad`: a known gradient or its variable is null");
    const TensorType& vt = tensor_of(v, "the known-gradient variable");
    if (is_disconnected_grad(g)) continue;
    roots.push_back(v);
    if (is_null_grad(g)) {
      acc.add(v.get(), g);
      continue;
    }
    const TensorType& gt = tensor_of(g, "the known gradient of");
    if (!shapes_compatible(gt.shape(), vt.shape()))
      throw TypeError(fmt::format(
          "`grad`: the known gradient of {} has type `{}`, which does not fit its type `{}`",
          describe(*v), gt.to_string(), vt.to_string()));
    acc.add(v.get(), is_float(vt.dtype()) && gt.dtype() != vt.dtype() ? cast(g, vt.dtype()) : g);
  }

  const std::vector<Apply*> order = io_toposort(options.consider_constant, roots);
  const auto connected = connected_set(order, wrt);
  std::unordered_set<const Variable*> reached;  // discrete variables a gradient reached

  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Apply& node = **it;
    std::vector<Var> output_grads(node.num_outputs());
    bool any_output = false;
    Var null_out;
    for (std::size_t j = 0; j < node.num_outputs(); ++j) {
      Var g = acc.total(&node.output_var(j));
      if (!g) continue;
      any_output = true;
      if (is_null_grad(g)) null_out = g;
      const TensorType* ot = node.output_var(j).tensor_type();
      if (ot && is_float(ot->dtype()) && g->tensor_type() && g->tensor_type()->dtype() != ot->dtype())
        g = cast(g, ot->dtype());
      output_grads[j] = std::move(g);
    }
    if (!any_output) continue;
    const auto pattern = node.op().connection_pattern(node);
    std::vector<bool> wanted(node.num_inputs(), false);
    bool any_input = false;
    for (std::size_t i = 0; i < node.num_inputs(); ++i) {
      if (!connected.count(node.input(i).get())) continue;
      for (std::size_t j = 0; j < node.num_outputs(); ++j)
        if (pattern[i][j] && output_grads[j]) wanted[i] = true;
      any_input = any_input || wanted[i];
    }
    if (!any_input) continue;
    std::vector<Var> input_grads;
    if (null_out) {
      input_grads.assign(node.num_inputs(), null_out);
    } else {
      for (std::size_t j = 0; j < node.num_outputs(); ++j)
        if (!output_grads[j]) output_grads[j] = Variable::make(DisconnectedType::make());
      input_grads = call_l_op(node, output_grads, wanted);
    }
    for (std::size_t i = 0; i < node.num_inputs(); ++i) {
      if (!wanted[i] || is_disconnected_grad(input_grads[i])) continue;
      const Variable* x = node.input(i).get();
      const TensorType* xt = x->tensor_type();
      if (xt && !is_float(xt->dtype()) && !is_null_grad(input_grads[i])) {
        reached.insert(x);  // integers carry no gradient, but they are connected
        continue;
      }
      acc.add(x, input_grads[i]);
    }
  }

  std::vector<Var> out;
  for (std::size_t i = 0; i < wrt.size(); ++i) {
    const Var& w = wrt[i];
    // A sparse variable's gradient is sparse (structured where the Ops are);
    // a disconnected one is zero on its pattern.
    const bool sparse = as_sparse_type(*w->type()) != nullptr;
    const DType wd = sparse ? as_sparse_type(*w->type())->dtype() : w->tensor_type()->dtype();
    Var g = acc.total(w.get());
    if (is_null_grad(g)) {
      if (options.null_gradients == NullGradients::Raise)
        throw NullGradientError(fmt::format(
            "`grad`: the gradient with respect to {} (wrt {}) is undefined: {}", describe(*w), i,
            static_cast<const NullType&>(*g->type()).why()));
      out.push_back(g);
      continue;
    }
    if (g || reached.count(w.get())) {
      out.push_back(is_float(wd) ? g : zeros_like(w, DType::Float64));
      continue;
    }
    const std::string message = fmt::format(
        "`grad`: the cost does not depend on {} (wrt {}), or only through inputs that are not "
        "connected to it; pass disconnected_inputs = ignore or warn if this is expected",
        describe(*w), i);
    if (options.disconnected_inputs == DisconnectedInputs::Raise)
      throw DisconnectedInputError(message);
    if (options.disconnected_inputs == DisconnectedInputs::Warn) report(options, message);
    switch (options.return_disconnected) {
      case ReturnDisconnected::Zero:
        out.push_back(sparse ? mul_sd(w, 0.0) : zeros_like(w, is_float(wd) ? wd : DType::Float64));
        break;
      case ReturnDisconnected::Disconnected:
        out.push_back(Variable::make(DisconnectedType::make()));
        break;
      case ReturnDisconnected::None: out.push_back(Var()); break;
    }
  }
  return out;
}

std::vector<Var> grad(const Var& cost, std::initializer_list<Var> wrt, const GradOptions& options) {
  return grad(cost, std::span<const Var>(wrt.begin(), wrt.size()), options);
}

Var grad(const Var& cost, const Var& wrt, const GradOptions& options) {
  const Var w[] = {wrt};
  return grad(cost, w, options)[0];
}

std::vector<Var> Lop(std::span<const Var> f, std::span<const Var> wrt,
                     std::span<const Var> eval_points, GradOptions options) {
  if (f.size() != eval_points.size())
    throw Error(fmt::format("`Lop`: {} outputs but {} eval points", f.size(), eval_points.size()));
  for (std::size_t k = 0; k < f.size(); ++k) {
    if (!f[k] || !eval_points[k]) throw TypeError(fmt::format("`Lop`: output or eval point {} is null", k));
    const TensorType* ft = f[k]->tensor_type();
    const TensorType* et = eval_points[k]->tensor_type();
    if (!ft || !et || ft->ndim() != et->ndim())
      throw TypeError(fmt::format("`Lop`: eval point {} has type `{}`, but output {} has type `{}`",
                                  k, eval_points[k]->type()->to_string(), k,
                                  f[k]->type()->to_string()));
    options.known_grads.emplace_back(f[k], eval_points[k]);
  }
  return grad(Var(), wrt, options);
}

Var Lop(const Var& f, const Var& wrt, const Var& eval_point, GradOptions options) {
  const Var fs[] = {f}, ws[] = {wrt}, es[] = {eval_point};
  return Lop(fs, ws, es, std::move(options))[0];
}

}  // namespace rw
