// The numeric gradient checker: central differences against grad and Rop.
#include "engine/grad/verify_grad.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "engine/grad/errors.hpp"
#include "engine/grad/evaluate.hpp"
#include "engine/grad/grad.hpp"
#include "engine/grad/rop.hpp"
#include "engine/graph/type.hpp"
#include "ops/api.hpp"
#include "runtime/rng.hpp"

namespace rw {
namespace {

std::span<const std::int64_t> dims(const Tensor& t) { return {t.shape().data(), t.shape().size()}; }

/// The elements as float64, row-major.
std::vector<double> to_doubles(const Tensor& t) {
  const Tensor c = t.astype(DType::Float64).contiguous();
  const double* p = c.data<double>();
  return std::vector<double>(p, p + c.size());
}

Tensor from_doubles(const std::vector<double>& v, const Tensor& like) {
  return Tensor::from_vector(v, dims(like)).astype(like.dtype());
}

/// Graph inputs for the point: its dtypes and ranks, extent 1 broadcastable.
std::vector<Var> make_inputs(std::span<const Tensor> pt) {
  std::vector<Var> inputs;
  for (std::size_t i = 0; i < pt.size(); ++i) {
    StaticShape shape;
    for (std::int64_t e : pt[i].shape()) shape.push_back(e == 1 ? 1 : kUnknownDim);
    inputs.push_back(tensor(fmt::format("x{}", i), pt[i].dtype(), shape));
  }
  return inputs;
}

struct Tolerances {
  double eps, abs_tol, rel_tol;
};

Tolerances tolerances(std::span<const Tensor> pt, const Var& out, const VerifyGradOptions& o) {
  bool f32 = out->tensor_type()->dtype() == DType::Float32;
  for (const Tensor& t : pt) f32 = f32 || t.dtype() == DType::Float32;
  return {o.eps.value_or(f32 ? 1e-3 : 1e-6), o.abs_tol.value_or(f32 ? 1e-2 : 1e-4),
          o.rel_tol.value_or(f32 ? 1e-2 : 1e-4)};
}

Var checked_output(const GraphBuilder& fun, std::span<const Var> inputs, const char* who) {
  Var out = fun(inputs);
  if (!out || !out->tensor_type() || !is_float(out->tensor_type()->dtype()))
    throw TypeError(fmt::format("`{}`: the function's output must be a float tensor, not `{}`", who,
                                out ? out->type()->to_string() : "null"));
  return out;
}

std::string index_str(std::size_t flat, const Tensor& like) {
  std::vector<std::int64_t> idx(static_cast<std::size_t>(like.ndim()));
  for (std::size_t a = idx.size(); a-- > 0;) {
    const std::int64_t n = like.shape()[a];
    idx[a] = static_cast<std::int64_t>(flat) % n;
    flat /= static_cast<std::size_t>(n);
  }
  return fmt::format("({})", fmt::join(idx, ", "));
}

/// Throws GradientCheckError at the worst element that fails both tolerances.
void compare(const char* who, const std::string& what, const Tensor& analytic_t,
             const Tensor& numeric_t, const Tolerances& tol) {
  const std::vector<double> a = to_doubles(analytic_t), n = to_doubles(numeric_t);
  if (a.size() != n.size())
    throw GradientCheckError(fmt::format("`{}`: {}: the analytic value has {} elements, the "
                                         "numeric one {}",
                                         who, what, a.size(), n.size()));
  std::size_t worst = a.size();
  double worst_abs = 0, worst_rel = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    const double abs_err = std::abs(a[k] - n[k]);
    const double denom = std::abs(a[k]) + std::abs(n[k]);
    const double rel_err = denom > 0 ? abs_err / denom : 0.0;
    const bool bad = (abs_err > tol.abs_tol && rel_err > tol.rel_tol) ||
                     std::isnan(a[k]) != std::isnan(n[k]);
    if (bad && (worst == a.size() || abs_err > worst_abs)) {
      worst = k;
      worst_abs = abs_err;
      worst_rel = rel_err;
    }
  }
  if (worst == a.size()) return;
  throw GradientCheckError(fmt::format(
      "`{}`: {} is wrong at {}: analytic {}, numeric {} (abs error {:.3g} > {:g}, rel error "
      "{:.3g} > {:g})\n  analytic: {}\n  numeric:  {}",
      who, what, index_str(worst, numeric_t), a[worst], n[worst], worst_abs, tol.abs_tol, worst_rel,
      tol.rel_tol, analytic_t.to_string(), numeric_t.to_string()));
}

}  // namespace

Tensor numeric_grad(const Var& cost, std::span<const Var> inputs, std::span<const Tensor> pt,
                    std::size_t which, double eps) {
  std::vector<Tensor> point(pt.begin(), pt.end());
  std::vector<double> x = to_doubles(pt[which]);
  std::vector<double> g(x.size());
  const Var outs[] = {cost};
  for (std::size_t k = 0; k < x.size(); ++k) {
    const double x0 = x[k];
    x[k] = x0 + eps;
    point[which] = from_doubles(x, pt[which]);
    const double up = evaluate(inputs, outs, point)[0].astype(DType::Float64).item<double>();
    x[k] = x0 - eps;
    point[which] = from_doubles(x, pt[which]);
    const double down = evaluate(inputs, outs, point)[0].astype(DType::Float64).item<double>();
    x[k] = x0;
    // The step actually taken, after rounding to the input's dtype.
    const double step = to_doubles(from_doubles({x0 + eps}, Tensor::scalar(0.0, pt[which].dtype())))[0] -
                        to_doubles(from_doubles({x0 - eps}, Tensor::scalar(0.0, pt[which].dtype())))[0];
    g[k] = (up - down) / step;
  }
  return Tensor::from_vector(g, dims(pt[which]));
}

void verify_grad(const GraphBuilder& fun, std::span<const Tensor> pt,
                 const VerifyGradOptions& options) {
  const std::vector<Var> inputs = make_inputs(pt);
  const Var out = checked_output(fun, inputs, "verify_grad");
  const Tolerances tol = tolerances(pt, out, options);
  const std::vector<Tensor> out_value = evaluate(inputs, std::span(&out, 1), pt);
  Rng rng(options.seed);
  std::vector<Var> wrt;
  std::vector<std::size_t> which;
  for (std::size_t i = 0; i < pt.size(); ++i)
    if (is_float(pt[i].dtype())) {
      wrt.push_back(inputs[i]);
      which.push_back(i);
    }
  GradOptions go;
  go.disconnected_inputs = DisconnectedInputs::Ignore;
  for (std::size_t test = 0; test < options.n_tests; ++test) {
    // A random projection of the output makes the check see every element.
    const Tensor proj = rng.uniform(dims(out_value[0]), 0.5, 1.5, out->tensor_type()->dtype());
    const Var cost = sum(out * constant(proj));
    const std::vector<Var> grads = grad(cost, wrt, go);
    const std::vector<Tensor> analytic = evaluate(inputs, grads, pt);
    for (std::size_t k = 0; k < wrt.size(); ++k) {
      const Tensor numeric = numeric_grad(cost, inputs, pt, which[k], tol.eps);
      compare("verify_grad",
              fmt::format("the gradient with respect to input {} (`{}`)", which[k],
                          inputs[which[k]]->type()->to_string()),
              analytic[k], numeric, tol);
    }
  }
}

void verify_rop(const GraphBuilder& fun, std::span<const Tensor> pt,
                const VerifyGradOptions& options) {
  const std::vector<Var> inputs = make_inputs(pt);
  const Var out = checked_output(fun, inputs, "verify_rop");
  const Tolerances tol = tolerances(pt, out, options);
  Rng rng(options.seed);
  for (std::size_t test = 0; test < options.n_tests; ++test) {
    std::vector<Var> wrt, points;
    std::vector<Tensor> dirs(pt.size());
    for (std::size_t i = 0; i < pt.size(); ++i) {
      if (!is_float(pt[i].dtype())) continue;
      dirs[i] = rng.uniform(dims(pt[i]), -1.0, 1.0, pt[i].dtype());
      wrt.push_back(inputs[i]);
      points.push_back(constant(dirs[i]));
    }
    const Var r = Rop(std::span(&out, 1), wrt, points, DisconnectedInputs::Ignore)[0];
    const Tensor analytic = evaluate(inputs, std::span(&r, 1), pt)[0];
    std::vector<Tensor> up(pt.begin(), pt.end()), down(pt.begin(), pt.end());
    for (std::size_t i = 0; i < pt.size(); ++i) {
      if (!dirs[i].valid()) continue;
      std::vector<double> x = to_doubles(pt[i]), v = to_doubles(dirs[i]);
      std::vector<double> xu(x), xd(x);
      for (std::size_t k = 0; k < x.size(); ++k) {
        xu[k] += tol.eps * v[k];
        xd[k] -= tol.eps * v[k];
      }
      up[i] = from_doubles(xu, pt[i]);
      down[i] = from_doubles(xd, pt[i]);
    }
    const std::vector<double> fu = to_doubles(evaluate(inputs, std::span(&out, 1), up)[0]);
    const std::vector<double> fd = to_doubles(evaluate(inputs, std::span(&out, 1), down)[0]);
    std::vector<double> num(fu.size());
    for (std::size_t k = 0; k < fu.size(); ++k) num[k] = (fu[k] - fd[k]) / (2 * tol.eps);
    const Tensor numeric = Tensor::from_vector(num, dims(analytic));
    compare("verify_rop", "the directional derivative", analytic, numeric, tol);
  }
}

}  // namespace rw
