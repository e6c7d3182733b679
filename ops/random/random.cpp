// RandomVariable: node building, the draws (over runtime/kernels/random),
// shapes and registration of the thirteen distributions.
#include "ops/random/random.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/graph/errors.hpp"
#include "engine/graph/random_type.hpp"
#include "ops/detail/grad_util.hpp"
#include "ops/detail/util.hpp"
#include "ops/errors.hpp"
#include "runtime/kernels/elemwise.hpp"
#include "runtime/kernels/random.hpp"

namespace rw {

using ops_detail::disconnected_grad_var;
using ops_detail::input_label;
using ops_detail::null_grad_var;

namespace {

/// What the Op knows of each distribution: its parameters (with the number
/// of core axes each has, and whether it is an integer), whether the draw is
/// discrete, and a line of documentation.
struct ParamDef {
  std::string_view name;
  std::size_t core_ndim = 0;
  bool integer = false;
};
struct DistDef {
  std::string_view name;
  std::array<std::string_view, 2> param_names;
  std::array<ParamDef, 2> params;
  std::size_t n_params;
  bool discrete;
  std::string_view doc;
};

constexpr std::size_t kNumDistributions = 13;
constexpr DistDef kDists[kNumDistributions] = {
    {"normal",
     {"loc", "scale"},
     {{{"loc"}, {"scale"}}},
     2,
     false,
     "normal(rng, size, loc, scale): normal draws of mean loc and standard deviation scale >= 0"},
    {"uniform",
     {"low", "high"},
     {{{"low"}, {"high"}}},
     2,
     false,
     "uniform(rng, size, low, high): uniform draws in [low, high)"},
    {"bernoulli",
     {"p", ""},
     {{{"p"}, {}}},
     1,
     true,
     "bernoulli(rng, size, p): 1 with probability p in [0, 1], else 0"},
    {"binomial",
     {"n", "p"},
     {{{"n", 0, true}, {"p"}}},
     2,
     true,
     "binomial(rng, size, n, p): successes in n >= 0 trials of probability p"},
    {"poisson",
     {"lam", ""},
     {{{"lam"}, {}}},
     1,
     true,
     "poisson(rng, size, lam): Poisson draws of mean lam >= 0"},
    {"gamma",
     {"shape", "scale"},
     {{{"shape"}, {"scale"}}},
     2,
     false,
     "gamma(rng, size, shape, scale): gamma draws of mean shape * scale (NumPy's parameters)"},
    {"beta", {"a", "b"}, {{{"a"}, {"b"}}}, 2, false, "beta(rng, size, a, b): beta draws, a, b > 0"},
    {"exponential",
     {"scale", ""},
     {{{"scale"}, {}}},
     1,
     false,
     "exponential(rng, size, scale): exponential draws of mean scale >= 0"},
    {"categorical",
     {"p", ""},
     {{{"p", 1}, {}}},
     1,
     true,
     "categorical(rng, size, p): an index into p's last axis, drawn with probabilities p"},
    {"multivariate_normal",
     {"mean", "cov"},
     {{{"mean", 1}, {"cov", 2}}},
     2,
     false,
     "multivariate_normal(rng, size, mean, cov): normal vectors of mean `mean` and covariance "
     "`cov` (positive semi-definite)"},
    {"integers",
     {"low", "high"},
     {{{"low", 0, true}, {"high", 0, true}}},
     2,
     true,
     "integers(rng, size, low, high): uniform integers in [low, high)"},
    {"choice",
     {"a", "p"},
     {{{"a"}, {"p", 1}}},
     2,
     true,
     "choice(rng, size, a[, p]): elements of a along axis 0 (or of arange(a) for an integer a), "
     "with probabilities p"},
    {"permutation",
     {"x", ""},
     {{{"x"}, {}}},
     1,
     true,
     "permutation(rng, size, x): x shuffled along axis 0 (arange(x) for an integer x); size "
     "must be empty"},
};

const DistDef& def_of(Distribution d) {
  return kDists[static_cast<std::size_t>(d)];
}

bool special(Distribution d) {
  return d == Distribution::Choice || d == Distribution::Permutation;
}

std::int64_t product(std::span<const std::int64_t> s) {
  std::int64_t n = 1;
  for (std::int64_t d : s) n *= d;
  return n;
}

/// A parameter's values as one contiguous dtype, and its shape.
struct ParamValue {
  Tensor t;
  const double* f = nullptr;
  const std::int64_t* i = nullptr;
};

ParamValue param_value(const Tensor& v, bool integer) {
  ParamValue p;
  p.t = cast(v, integer ? DType::Int64 : DType::Float64).contiguous();
  if (integer)
    p.i = p.t.data<std::int64_t>();
  else
    p.f = p.t.data<double>();
  return p;
}

/// Row-major strides of a parameter's batch axes aligned to the batch shape
/// (0 where the parameter broadcasts or has no such axis), in elements.
std::vector<std::int64_t> aligned_strides(std::span<const std::int64_t> param_batch,
                                          std::int64_t core_size, std::size_t batch_ndim) {
  std::vector<std::int64_t> out(batch_ndim, 0);
  std::int64_t stride = core_size;
  for (std::size_t j = param_batch.size(); j-- > 0;) {
    const std::size_t a = j + batch_ndim - param_batch.size();
    out[a] = param_batch[j] == 1 ? 0 : stride;
    stride *= param_batch[j];
  }
  return out;
}

}  // namespace

std::string_view distribution_name(Distribution d) {
  return def_of(d).name;
}

RandomVariable::RandomVariable(Distribution dist, DType dtype, bool replace)
    : dist_(dist), dtype_(dtype), replace_(replace) {}

std::span<const std::string_view> RandomVariable::param_names() const {
  const DistDef& d = def_of(dist_);
  return {d.param_names.data(), d.n_params};
}

std::size_t RandomVariable::param_core_ndim(std::size_t k) const {
  return def_of(dist_).params[k].core_ndim;
}

Props RandomVariable::props() const {
  if (dist_ == Distribution::Choice) return {{"replace", replace_}};
  if (dist_ == Distribution::Permutation) return {};
  return {{"dtype", dtype_}};
}

// ---------------------------------------------------------------------------
// make_node

ApplyRef RandomVariable::make_node(std::span<const Var> inputs) const {
  const DistDef& def = def_of(dist_);
  const std::size_t min_params = dist_ == Distribution::Choice ? 1 : def.n_params;
  ops_detail::check_arity(*this, inputs, 2 + min_params, static_cast<long>(2 + def.n_params));
  if (!is_random_generator_type(*inputs[0]->type()))
    throw TypeError(fmt::format("`{}`: {} (the generator) is {}, expected a generator state `rng`",
                                name(), input_label(0, inputs[0]), inputs[0]->type()->to_string()));
  const TensorType& sizes = ops_detail::tensor_input(*this, inputs, 1);
  if (sizes.ndim() != 1 || !is_integer(sizes.dtype()) || sizes.shape()[0] == kUnknownDim)
    throw TypeError(fmt::format(
        "`{}`: {} (`size`) is {}, expected an integer vector of known length (empty for none)",
        name(), input_label(1, inputs[1]), sizes.to_string()));
  const auto k = static_cast<std::size_t>(sizes.shape()[0]);
  if (dist_ == Distribution::Permutation && k != 0)
    throw TypeError(fmt::format("`permutation`: `size` must be empty (the draw has x's shape)"));

  std::vector<const TensorType*> params;
  for (std::size_t p = 2; p < inputs.size(); ++p) {
    const TensorType& t = ops_detail::tensor_input(*this, inputs, p);
    const ParamDef& pd = def.params[p - 2];
    if (t.ndim() < pd.core_ndim)
      throw TypeError(fmt::format("`{}`: {} (`{}`) is {}, expected at least {} axes", name(),
                                  input_label(p, inputs[p]), pd.name, t.to_string(), pd.core_ndim));
    if (pd.integer && !is_integer(t.dtype()))
      throw TypeError(fmt::format("`{}`: {} (`{}`) is {}, expected integers", name(),
                                  input_label(p, inputs[p]), pd.name, t.to_string()));
    if (t.dtype() == DType::Bool && !special(dist_))
      throw TypeError(fmt::format("`{}`: {} (`{}`) is {}, expected numbers", name(),
                                  input_label(p, inputs[p]), pd.name, t.to_string()));
    params.push_back(&t);
  }

  const auto constant_size = ops_detail::constant_ints(inputs[1]);
  if (constant_size)
    for (std::int64_t e : *constant_size)
      if (e < 0)
        throw TypeError(fmt::format("`{}`: `size` ({}) has a negative extent", name(),
                                    fmt::join(*constant_size, ", ")));

  StaticShape shape;
  DType out_dtype = dtype_;
  if (special(dist_)) {
    const TensorType& a = *params[0];
    if (a.ndim() == 0 && !is_integer(a.dtype()))
      throw TypeError(fmt::format("`{}`: {} (`{}`) is {}, expected an integer or an array", name(),
                                  input_label(2, inputs[2]), def.params[0].name, a.to_string()));
    if (params.size() == 2 && params[1]->ndim() != 1)
      throw TypeError(fmt::format("`choice`: {} (`p`) is {}, expected a vector",
                                  input_label(3, inputs[3]), params[1]->to_string()));
    out_dtype = a.ndim() == 0 ? DType::Int64 : a.dtype();
    if (dist_ == Distribution::Choice) {
      for (std::size_t j = 0; j < k; ++j)
        shape.push_back(constant_size ? (*constant_size)[j] : kUnknownDim);
      for (std::size_t j = 1; j < a.ndim(); ++j) shape.push_back(a.shape()[j]);
    } else {
      const auto n = a.ndim() == 0 ? ops_detail::constant_int(inputs[2]) : std::nullopt;
      shape = a.ndim() == 0 ? StaticShape{n && *n >= 0 ? *n : kUnknownDim} : a.shape();
    }
  } else {
    if (def.discrete ? !is_integer(dtype_) : !is_float(dtype_))
      throw TypeError(fmt::format("`{}`: dtype {} is not {} dtype", name(), dtype_name(dtype_),
                                  def.discrete ? "an integer" : "a float"));
    if (constant_size && k > 0) {
      shape.assign(constant_size->begin(), constant_size->end());
      // Each parameter's batch axes must broadcast to the size.
      for (std::size_t p = 0; p < params.size(); ++p) {
        const std::size_t bn = params[p]->ndim() - def.params[p].core_ndim;
        bool ok = bn <= k;
        for (std::size_t j = 0; ok && j < bn; ++j) {
          const std::int64_t e = params[p]->shape()[j];
          ok = e == 1 || e == kUnknownDim || e == shape[j + k - bn];
        }
        if (!ok)
          throw TypeError(fmt::format("`{}`: `size` {} is incompatible with {} (`{}`), which is {}",
                                      name(), ops_detail::shape_str(shape),
                                      input_label(2 + p, inputs[2 + p]), def.params[p].name,
                                      params[p]->to_string()));
      }
    } else if (k > 0) {
      shape.assign(k, kUnknownDim);
    } else {
      // The broadcast of the parameters' batch shapes.
      std::size_t nd = 0;
      for (std::size_t p = 0; p < params.size(); ++p)
        nd = std::max(nd, params[p]->ndim() - def.params[p].core_ndim);
      shape.assign(nd, 1);
      for (std::size_t p = 0; p < params.size(); ++p) {
        const std::size_t bn = params[p]->ndim() - def.params[p].core_ndim;
        for (std::size_t j = 0; j < bn; ++j) {
          const std::int64_t e = params[p]->shape()[j];
          std::int64_t& s = shape[j + nd - bn];
          if (e == 1 || e == s) continue;
          if (s == 1 || s == kUnknownDim) {
            if (s == 1 || e != kUnknownDim) s = e;
          } else if (e != kUnknownDim)
            throw TypeError(
                fmt::format("`{}`: the batch shapes of the parameters do not broadcast "
                            "(`{}` is {})",
                            name(), def.params[p].name, params[p]->to_string()));
        }
      }
    }
    if (dist_ == Distribution::MultivariateNormal) {
      const std::int64_t n = params[0]->shape().back();
      const StaticShape& cs = params[1]->shape();
      for (std::int64_t c : {cs[cs.size() - 2], cs[cs.size() - 1]})
        if (n != kUnknownDim && c != kUnknownDim && c != n)
          throw TypeError(fmt::format("`{}`: {} (`cov`) is {}, but `mean` has length {}", name(),
                                      input_label(3, inputs[3]), params[1]->to_string(), n));
      shape.push_back(n != kUnknownDim ? n : params[1]->shape().back());
    }
  }
  const TypePtr outs[] = {RandomGeneratorType::make(),
                          TensorType::make(out_dtype, std::move(shape))};
  return Apply::create(ptr(), inputs, outs);
}

// ---------------------------------------------------------------------------
// perform

namespace {

/// Raises the ValueError of a bad argument: "`normal`: `scale` must be …".
[[noreturn]] void bad_arg(std::string_view op, std::string_view arg, std::string_view what) {
  throw ValueError(fmt::format("`{}`: `{}` {}", op, arg, what));
}

bool is_prob(double p) {
  return p >= 0.0 && p <= 1.0;
}

/// How far from 1 probabilities of this dtype may sum: a few roundings of
/// each of up to thousands of terms.
double sum_tolerance(DType d) {
  return d == DType::Float32 ? 1e-5 : 1e-8;
}

/// Checks that `p` (one distribution's probabilities) is a distribution: in
/// [0, 1], summing to 1 within `tol`.
void check_probabilities(std::string_view op, std::span<const double> p, double tol) {
  double total = 0.0;
  for (double v : p) {
    if (!is_prob(v)) bad_arg(op, "p", fmt::format("must hold probabilities in [0, 1], got {}", v));
    total += v;
  }
  if (std::abs(total - 1.0) > tol)
    bad_arg(op, "p", fmt::format("must sum to 1 along its last axis, sums to {}", total));
}

/// One scalar draw of a distribution with scalar parameters, after checking them.
double draw_scalar(Distribution d, Rng& g, std::string_view op, const double* f,
                   const std::int64_t* i) {
  switch (d) {
    case Distribution::Normal:
      if (!(f[1] >= 0.0) || !std::isfinite(f[1]))
        bad_arg(op, "scale", fmt::format("must be non-negative and finite, got {}", f[1]));
      return f[0] + f[1] * sample::standard_normal(g);
    case Distribution::Uniform: {
      if (!std::isfinite(f[0]) || !std::isfinite(f[1]))
        bad_arg(op, std::isfinite(f[0]) ? "high" : "low", "must be finite");
      if (!(f[0] <= f[1]))
        bad_arg(op, "high", fmt::format("must be at least `low` ({}), got {}", f[0], f[1]));
      const double v = f[0] + (f[1] - f[0]) * g.next_double();
      return v < f[1] || f[0] == f[1] ? v : std::nextafter(f[1], f[0]);
    }
    case Distribution::Bernoulli:
      if (!is_prob(f[0])) bad_arg(op, "p", fmt::format("must be in [0, 1], got {}", f[0]));
      return g.next_double() < f[0] ? 1.0 : 0.0;
    case Distribution::Binomial:
      if (i[0] < 0) bad_arg(op, "n", fmt::format("must be non-negative, got {}", i[0]));
      if (!is_prob(f[1])) bad_arg(op, "p", fmt::format("must be in [0, 1], got {}", f[1]));
      return static_cast<double>(sample::binomial(g, i[0], f[1]));
    case Distribution::Poisson:
      if (!(f[0] >= 0.0) || !(f[0] < 0x1p62))
        bad_arg(op, "lam", fmt::format("must be non-negative and below 2^62, got {}", f[0]));
      return static_cast<double>(sample::poisson(g, f[0]));
    case Distribution::Gamma:
      if (!(f[0] >= 0.0) || !std::isfinite(f[0]))
        bad_arg(op, "shape", fmt::format("must be non-negative and finite, got {}", f[0]));
      if (!(f[1] >= 0.0) || !std::isfinite(f[1]))
        bad_arg(op, "scale", fmt::format("must be non-negative and finite, got {}", f[1]));
      return f[1] * sample::standard_gamma(g, f[0]);
    case Distribution::Beta:
      if (!(f[0] > 0.0) || !std::isfinite(f[0]))
        bad_arg(op, "a", fmt::format("must be positive and finite, got {}", f[0]));
      if (!(f[1] > 0.0) || !std::isfinite(f[1]))
        bad_arg(op, "b", fmt::format("must be positive and finite, got {}", f[1]));
      return sample::beta(g, f[0], f[1]);
    case Distribution::Exponential:
      if (!(f[0] >= 0.0) || !std::isfinite(f[0]))
        bad_arg(op, "scale", fmt::format("must be non-negative and finite, got {}", f[0]));
      return f[0] * sample::standard_exponential(g);
    default:
      break;
  }
  RW_UNREACHABLE("draw_scalar: not a scalar distribution");
}

/// Copies the rows `index` of `a` (along axis 0) into a new tensor of shape
/// `lead` + a.shape[1:].
Tensor take_rows(const Tensor& a, std::span<const std::int64_t> index,
                 std::span<const std::int64_t> lead) {
  const Tensor c = a.contiguous();
  std::vector<std::int64_t> shape(lead.begin(), lead.end());
  shape.insert(shape.end(), c.shape().begin() + 1, c.shape().end());
  Tensor out = Tensor::empty(c.dtype(), shape);
  const std::size_t row =
      static_cast<std::size_t>(product(std::span(c.shape()).subspan(1))) * itemsize(c.dtype());
  const auto* src = static_cast<const std::byte*>(c.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  for (std::size_t r = 0; r < index.size(); ++r)
    std::copy_n(src + static_cast<std::size_t>(index[r]) * row, row, dst + r * row);
  return out;
}

/// arange(n) as int64.
std::vector<std::int64_t> iota(std::int64_t n) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) v[static_cast<std::size_t>(j)] = j;
  return v;
}

}  // namespace

void RandomVariable::perform(const Apply& node, std::span<const Tensor> inputs,
                             std::span<Tensor> outputs) const {
  const DistDef& def = def_of(dist_);
  const std::string_view op = name();
  Rng g = Rng::from_state(RandomGeneratorType::state_of(inputs[0]));
  const Tensor sizes = cast(inputs[1], DType::Int64).contiguous();
  const std::span<const std::int64_t> size(sizes.data<std::int64_t>(),
                                           static_cast<std::size_t>(sizes.size()));
  for (std::int64_t e : size)
    if (e < 0) bad_arg(op, "size", fmt::format("has a negative extent {}", e));
  if (!shape_size_fits(size))
    bad_arg(op, "size", fmt::format("{} has too many elements", ops_detail::shape_str(size)));

  Tensor out;
  if (dist_ == Distribution::Choice || dist_ == Distribution::Permutation) {
    const Tensor& a = inputs[2];
    const bool arange = a.ndim() == 0;
    const std::int64_t n = arange ? cast(a, DType::Int64).item<std::int64_t>() : a.shape()[0];
    if (n < 0 || (dist_ == Distribution::Choice && n == 0 && product(size) > 0))
      bad_arg(op, def.params[0].name,
              fmt::format("must be {}, got {}",
                          dist_ == Distribution::Choice ? "positive" : "non-negative", n));
    std::vector<std::int64_t> index;
    std::vector<std::int64_t> lead;
    if (dist_ == Distribution::Permutation) {
      index = iota(n);
      for (std::int64_t j = n - 1; j > 0; --j)
        std::swap(index[static_cast<std::size_t>(j)],
                  index[static_cast<std::size_t>(g.next_integer(0, j + 1))]);
      lead = {n};
    } else {
      const std::int64_t m = product(size);
      lead.assign(size.begin(), size.end());
      std::vector<double> p;
      if (inputs.size() == 4) {
        const Tensor pv = cast(inputs[3], DType::Float64).contiguous();
        if (pv.size() != n)
          bad_arg(op, "p",
                  fmt::format("has {} probabilities for {} elements of `a`", pv.size(), n));
        p.assign(pv.data<double>(), pv.data<double>() + n);
        check_probabilities(op, p, sum_tolerance(inputs[3].dtype()));
      }
      if (!replace_ && m > n)
        bad_arg(op, "size",
                fmt::format("asks for {} draws without replacement from {} elements", m, n));
      if (!replace_ && !p.empty()) {
        std::int64_t positive = 0;
        for (double w : p) positive += w > 0.0;
        if (m > positive)
          bad_arg(op, "p",
                  fmt::format("has {} non-zero probabilities for {} draws without "
                              "replacement",
                              positive, m));
      }
      if (replace_) {
        for (std::int64_t j = 0; j < m; ++j)
          index.push_back(p.empty() ? g.next_integer(0, n) : sample::categorical(g, p));
      } else if (p.empty()) {
        // A partial Fisher–Yates shuffle: the first m of a random permutation.
        std::vector<std::int64_t> pool = iota(n);
        for (std::int64_t j = 0; j < m; ++j)
          std::swap(pool[static_cast<std::size_t>(j)],
                    pool[static_cast<std::size_t>(g.next_integer(j, n))]);
        index.assign(pool.begin(), pool.begin() + m);
      } else {
        // Draw, then take the drawn element's weight out.
        for (std::int64_t j = 0; j < m; ++j) {
          const std::int64_t k = sample::categorical(g, p);
          index.push_back(k);
          p[static_cast<std::size_t>(k)] = 0.0;
        }
      }
    }
    if (arange)
      out = Tensor::from_vector(index, std::span<const std::int64_t>(lead));
    else
      out = take_rows(a, index, lead);
  } else {
    // Batch shapes: each parameter's shape without its core axes.
    std::vector<ParamValue> pv;
    std::vector<std::vector<std::int64_t>> batch;
    std::vector<std::int64_t> core_size;
    std::size_t nd = size.size();
    for (std::size_t p = 0; p < def.n_params; ++p) {
      const Tensor& v = inputs[2 + p];
      pv.push_back(param_value(v, def.params[p].integer));
      const std::size_t bn = static_cast<std::size_t>(v.ndim()) - def.params[p].core_ndim;
      batch.emplace_back(v.shape().begin(), v.shape().begin() + static_cast<std::ptrdiff_t>(bn));
      core_size.push_back(product(std::span(v.shape()).subspan(bn)));
      if (size.empty()) nd = std::max(nd, bn);
    }
    // As elementwise Ops do (docs/ops.md), an axis broadcasts only where its
    // static extent is 1; the other parameters' extents there must agree.
    const auto broadcasts = [&](std::size_t p, std::size_t j) {
      return node.input(2 + p)->tensor_type()->shape()[j] == 1;
    };
    std::vector<std::int64_t> bshape(size.begin(), size.end());
    if (size.empty()) {
      bshape.assign(nd, -1);  // -1: no parameter has said yet
      for (std::size_t p = 0; p < def.n_params; ++p)
        for (std::size_t j = 0; j < batch[p].size(); ++j) {
          if (broadcasts(p, j)) continue;
          std::int64_t& s = bshape[j + nd - batch[p].size()];
          const std::int64_t e = batch[p][j];
          if (s != -1 && s != e)
            bad_arg(op, def.params[p].name,
                    fmt::format("has shape {}, which does not broadcast with the other parameters "
                                "(only an axis of static extent 1 broadcasts)",
                                ops_detail::shape_str(inputs[2 + p].shape())));
          s = e;
        }
      for (std::int64_t& s : bshape) s = s == -1 ? 1 : s;
    } else {
      for (std::size_t p = 0; p < def.n_params; ++p) {
        bool ok = batch[p].size() <= nd;
        for (std::size_t j = 0; ok && j < batch[p].size(); ++j)
          ok = broadcasts(p, j) || batch[p][j] == size[j + nd - batch[p].size()];
        if (!ok)
          bad_arg(op, "size",
                  fmt::format("{} is incompatible with the shape {} of `{}` (its batch axes must "
                              "broadcast to the size)",
                              ops_detail::shape_str(size),
                              ops_detail::shape_str(inputs[2 + p].shape()), def.params[p].name));
      }
    }
    std::vector<std::vector<std::int64_t>> strides;
    for (std::size_t p = 0; p < def.n_params; ++p)
      strides.push_back(aligned_strides(batch[p], core_size[p], nd));

    std::int64_t n_core = 1;  // draws per batch element
    std::vector<std::int64_t> out_shape = bshape;
    if (dist_ == Distribution::MultivariateNormal) {
      const auto& ms = inputs[2].shape();
      const auto& cs = inputs[3].shape();
      n_core = ms.back();
      if (cs[cs.size() - 1] != n_core || cs[cs.size() - 2] != n_core)
        bad_arg(
            op, "cov",
            fmt::format("has shape {}, expected its last two axes to be {} (the length of `mean`)",
                        ops_detail::shape_str(cs), n_core));
      out_shape.push_back(n_core);
    }
    const std::int64_t n_batch = product(bshape);
    const bool discrete = def.discrete;
    Tensor buf = Tensor::empty(discrete ? DType::Int64 : DType::Float64, out_shape);
    double* fo = discrete ? nullptr : buf.data<double>();
    std::int64_t* io = discrete ? buf.data<std::int64_t>() : nullptr;

    // The range of an integer dtype, for the draws of integers.
    std::int64_t dtype_min = 0, dtype_max = 0;
    if (discrete)
      visit_dtype(dtype_, [&]<class T>() {
        dtype_min = static_cast<std::int64_t>(std::numeric_limits<T>::min());
        dtype_max = static_cast<std::int64_t>(std::numeric_limits<T>::max());
      });
    std::vector<std::int64_t> idx(nd, 0), off(def.n_params, 0);
    std::vector<double> chol, last_cov;
    std::int64_t chol_at = -1;
    std::vector<double> z;
    for (std::int64_t b = 0; b < n_batch; ++b) {
      if (dist_ == Distribution::Categorical) {
        const std::span<const double> p(pv[0].f + off[0], static_cast<std::size_t>(core_size[0]));
        check_probabilities(op, p, sum_tolerance(inputs[2].dtype()));
        io[b] = sample::categorical(g, p);
      } else if (dist_ == Distribution::MultivariateNormal) {
        const double* mean = pv[0].f + off[0];
        if (chol_at != off[1]) {
          const std::span<const double> cov(pv[1].f + off[1],
                                            static_cast<std::size_t>(core_size[1]));
          chol.assign(cov.size(), 0.0);
          if (!sample::psd_cholesky(cov, n_core, chol))
            bad_arg(op, "cov", "must be symmetric positive semi-definite");
          chol_at = off[1];
        }
        z.resize(static_cast<std::size_t>(n_core));
        for (auto& v : z) v = sample::standard_normal(g);
        for (std::int64_t r = 0; r < n_core; ++r) {
          double s = mean[r];
          for (std::int64_t c = 0; c <= r; ++c)
            s += chol[static_cast<std::size_t>(r * n_core + c)] * z[static_cast<std::size_t>(c)];
          fo[b * n_core + r] = s;
        }
      } else if (dist_ == Distribution::Integers) {
        const std::int64_t lo = pv[0].i[off[0]], hi = pv[1].i[off[1]];
        if (!(lo < hi))
          bad_arg(op, "high", fmt::format("must be greater than `low` ({}), got {}", lo, hi));
        if (lo < dtype_min || hi - 1 > dtype_max)
          bad_arg(
              op, lo < dtype_min ? "low" : "high",
              fmt::format("does not fit dtype {} ([{}, {}) asked)", dtype_name(dtype_), lo, hi));
        io[b] = g.next_integer(lo, hi);
      } else {
        double f[2] = {0, 0};
        std::int64_t i[2] = {0, 0};
        for (std::size_t p = 0; p < def.n_params; ++p) {
          if (pv[p].f)
            f[p] = pv[p].f[off[p]];
          else
            i[p] = pv[p].i[off[p]];
        }
        const double v = draw_scalar(dist_, g, op, f, i);
        if (discrete)
          io[b] = static_cast<std::int64_t>(v);
        else
          fo[b] = v;
      }
      // Next batch index, and each parameter's offset with it.
      for (std::size_t a = nd; a-- > 0;) {
        for (std::size_t p = 0; p < def.n_params; ++p) off[p] += strides[p][a];
        if (++idx[a] < bshape[a]) break;
        for (std::size_t p = 0; p < def.n_params; ++p) off[p] -= strides[p][a] * bshape[a];
        idx[a] = 0;
      }
    }
    if (discrete)
      for (std::int64_t j = 0; j < buf.size(); ++j)
        if (io[j] < dtype_min || io[j] > dtype_max)
          throw ValueError(fmt::format("`{}`: a draw ({}) does not fit dtype {}", op, io[j],
                                       dtype_name(dtype_)));
    out = buf.dtype() == dtype_ ? std::move(buf) : cast(buf, dtype_);
  }
  outputs[0] = RandomGeneratorType::value_of(g.state());
  outputs[1] = std::move(out);
}

// ---------------------------------------------------------------------------
// shapes, gradient

std::vector<ShapeVars> RandomVariable::infer_shape(const Apply& node,
                                                   std::span<const ShapeVars> input_shapes) const {
  const DistDef& def = def_of(dist_);
  const auto k = static_cast<std::int64_t>(node.input(1)->tensor_type()->shape()[0]);
  ShapeVars out;
  for (std::int64_t j = 0; j < k; ++j) out.push_back(ops_detail::vector_element(node.input(1), j));
  if (dist_ == Distribution::Permutation) {
    const ShapeVars& x = input_shapes[2];
    out = x.empty() ? ShapeVars{cast(node.input(2), DType::Int64)} : x;
  } else if (dist_ == Distribution::Choice) {
    const ShapeVars& a = input_shapes[2];
    for (std::size_t j = 1; j < a.size(); ++j) out.push_back(a[j]);
  } else {
    if (k == 0) {
      // The broadcast batch shape: each axis from a parameter whose static
      // extent there is not 1 (they all agree), else 1.
      const StaticShape& st = node.output_var(1).tensor_type()->shape();
      const std::size_t nd = st.size() - (dist_ == Distribution::MultivariateNormal ? 1 : 0);
      for (std::size_t a = 0; a < nd; ++a) {
        if (st[a] != kUnknownDim) {
          out.push_back(ops_detail::int64_constant(st[a]));
          continue;
        }
        Var e;
        for (std::size_t p = 0; p < def.n_params; ++p) {
          const StaticShape& ps = node.input(2 + p)->tensor_type()->shape();
          const std::size_t bn = ps.size() - def.params[p].core_ndim;
          if (a + bn < nd || ps[a + bn - nd] == 1) continue;
          e = input_shapes[2 + p][a + bn - nd];
          break;
        }
        out.push_back(e ? e : ops_detail::int64_constant(1));
      }
    }
    if (dist_ == Distribution::MultivariateNormal) out.push_back(input_shapes[2].back());
  }
  return {ShapeVars{}, out};
}

std::vector<std::vector<bool>> RandomVariable::connection_pattern(const Apply& node) const {
  // The state gives both outputs; the parameters give the draw, which has no
  // gradient in them (L_op says why); size is an integer.
  std::vector<std::vector<bool>> c(node.num_inputs(), {false, true});
  c[0] = {true, true};
  c[1] = {false, false};
  return c;
}

std::vector<Var> RandomVariable::L_op(const Apply& node, std::span<const Var>) const {
  std::vector<Var> g{disconnected_grad_var(), disconnected_grad_var()};
  for (std::size_t i = 2; i < node.num_inputs(); ++i)
    g.push_back(null_grad_var(*this, i, "random draws have no gradient in their parameters"));
  return g;
}

bool RandomVariable::do_constant_folding(const Apply&) const {
  return false;
}

// ---------------------------------------------------------------------------
// building

Var size_vector(const std::vector<Operand>& extents) {
  std::vector<std::int64_t> known;
  for (const Operand& e : extents) {
    if (!e.is_number()) return make_vector(extents, DType::Int64);
    known.push_back(ops_detail::constant_int(e.resolve(DType::Int64)).value_or(0));
  }
  return ops_detail::int64_vector_constant(known);
}

RandomDraw random_draw(Distribution dist, const Var& rng, const std::vector<Operand>& params,
                       const Var& size, DrawOptions options) {
  const DType dtype = options.dtype.value_or(def_of(dist).discrete ? DType::Int64 : DType::Float64);
  const auto op = std::make_shared<RandomVariable>(dist, dtype, options.replace);
  std::vector<Var> in{rng, size ? size : size_vector({})};
  for (const Operand& p : params) in.push_back(p.resolve());
  const ApplyRef node = op->make_node(in);
  return {node->output(0), node->output(1)};
}

void register_random(OpRegistry& r) {
  for (std::size_t d = 0; d < kNumDistributions; ++d) {
    const auto dist = static_cast<Distribution>(d);
    const DistDef& def = kDists[d];
    OpInfo info{
        .name = std::string(def.name),
        .doc = std::string(def.doc),
        .params = {},
        .min_inputs = static_cast<int>(2 + (dist == Distribution::Choice ? 1 : def.n_params)),
        .max_inputs = static_cast<int>(2 + def.n_params),
        .factory = {}};
    if (dist == Distribution::Choice) {
      info.params = {{"replace", ParamKind::Bool, PropValue{true}, false, "draw with replacement"}};
      info.factory = [](const Props& p) -> OpPtr {
        return std::make_shared<RandomVariable>(Distribution::Choice, DType::Int64,
                                                std::get<bool>(p[0].value));
      };
    } else if (dist == Distribution::Permutation) {
      info.factory = [](const Props&) -> OpPtr {
        return std::make_shared<RandomVariable>(Distribution::Permutation, DType::Int64);
      };
    } else {
      info.params = {{"dtype", ParamKind::DType,
                      PropValue{def.discrete ? DType::Int64 : DType::Float64}, false,
                      def.discrete ? "the draw's integer dtype" : "the draw's float dtype"}};
      info.factory = [dist](const Props& p) -> OpPtr {
        return std::make_shared<RandomVariable>(dist, std::get<DType>(p[0].value));
      };
    }
    r.add(std::move(info));
  }
}

}  // namespace rw
