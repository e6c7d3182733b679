// RandomVariable: the Ops that draw from a distribution, taking a generator
// state and returning the next state and the draw (PyTensor's
// RandomVariable), with NumPy's parameters and `size` semantics.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"
#include "ops/api.hpp"

namespace rw {

/// The distributions a RandomVariable draws from.
enum class Distribution : std::uint8_t {
  Normal,              ///< normal(loc, scale): float
  Uniform,             ///< uniform(low, high): float in [low, high)
  Bernoulli,           ///< bernoulli(p): 0 or 1
  Binomial,            ///< binomial(n, p): successes in n trials
  Poisson,             ///< poisson(lam)
  Gamma,               ///< gamma(shape, scale): NumPy's parameters (mean shape·scale)
  Beta,                ///< beta(a, b)
  Exponential,         ///< exponential(scale): mean scale
  Categorical,         ///< categorical(p): an index into the last axis of p
  MultivariateNormal,  ///< multivariate_normal(mean, cov): a vector per draw
  Integers,            ///< integers(low, high): in [low, high)
  Choice,              ///< choice(a[, p]): elements of a (or of arange(a)) along axis 0
  Permutation,         ///< permutation(x): x shuffled along axis 0 (or arange(x))
};

/// The registry name of a distribution's Op: "normal", "multivariate_normal".
std::string_view distribution_name(Distribution d);

/// `name(rng, size, params…) -> (next_rng, draw)`. Input 0 is the generator
/// state (type `rng`); input 1 is `size`, an integer vector of statically
/// known length: empty for NumPy's `size=None` (the draw takes the
/// broadcast shape of the parameters), else the batch shape, to which every
/// parameter's batch shape must broadcast (as for elementwise Ops, an axis
/// broadcasts only where its static extent is 1, docs/ops.md). The draw's shape is the batch
/// shape followed by the distribution's core shape (a vector of mean's
/// length for multivariate_normal, a's trailing axes for choice). Output 0 is
/// the next generator state, output 1 (the default output) the draw.
///
/// Parameters are checked when the node runs: a bad value (a negative
/// `scale`, `p` outside [0, 1], a `size` the parameters do not broadcast to)
/// is a ValueError naming the Op and the argument, and a call that raises it
/// changes no generator. A state gives the same draws on every platform
/// (runtime/kernels/random.hpp documents each algorithm).
///
/// Not mergeable and not constant-folded: two draws are two values, even
/// when they look alike. No gradient: disconnected from the generator and
/// the size, undefined (a null gradient saying so) in the parameters, as
/// PyTensor's. Output 0 is the default update of a
/// shared generator at input 0 (Op::default_updates).
class RandomVariable final : public Op {
 public:
  /// `dtype`: the draw's dtype (float for continuous distributions, integer
  /// for discrete ones; ignored by choice and permutation, which take a's).
  /// `replace`: choice with replacement.
  RandomVariable(Distribution dist, DType dtype, bool replace = true);

  Distribution distribution() const { return dist_; }
  DType dtype() const { return dtype_; }
  bool replace() const { return replace_; }
  /// The names of the distribution parameters, in input order from input 2.
  std::span<const std::string_view> param_names() const;
  /// The number of core axes of parameter k (0 for scalars; 1 for
  /// categorical's p and multivariate_normal's mean, 2 for its cov).
  std::size_t param_core_ndim(std::size_t k) const;

  std::string_view name() const override { return distribution_name(dist_); }
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  /// Output 0 (a state) has no axes; output 1 has the size's extents or the
  /// parameters' broadcast batch shape, then the core extents.
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::optional<std::size_t> default_output() const override { return 1; }
  bool do_constant_folding(const Apply& node) const override;
  bool mergeable() const override { return false; }
  IoMap default_updates() const override { return {{0, 0}}; }

 private:
  Distribution dist_;
  DType dtype_;
  bool replace_;
};

/// A draw and the generator state after it.
struct RandomDraw {
  Var next_rng;
  Var value;
};

/// How `random_draw` builds a node.
struct DrawOptions {
  /// The draw's dtype; by default float64 for continuous distributions and
  /// int64 for discrete ones.
  std::optional<DType> dtype;
  /// choice: with replacement.
  bool replace = true;
};

/// `size` as RandomVariable takes it: an int64 vector of the extents (a
/// constant when they are all numbers); empty for `size=None`.
Var size_vector(const std::vector<Operand>& extents);

/// The node `dist(rng, size, params…)`; `size` null means none. Numbers
/// among the params become constants of their C++ type's dtype.
RandomDraw random_draw(Distribution dist, const Var& rng, const std::vector<Operand>& params,
                       const Var& size = {}, DrawOptions options = {});

/// Registers the thirteen random variables (normal … permutation).
void register_random(OpRegistry& registry);

}  // namespace rw
