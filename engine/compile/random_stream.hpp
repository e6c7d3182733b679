// RandomStream: random variables whose generators are shared variables that
// the functions using them advance (PyTensor's RandomStream).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/compile/shared.hpp"
#include "ops/api.hpp"
#include "ops/random/random.hpp"
#include "runtime/rng.hpp"

namespace rw {

/// The extents of a draw, NumPy's `size`: `{3}`, `{2, n}`; empty for none
/// (the draw takes the parameters' broadcast shape).
using Size = std::vector<Operand>;

/// Makes random variables, each with a generator of its own: a new shared
/// variable of type `rng` (named `rng_0`, `rng_1`, …), seeded from the
/// stream's seed. A compiled function that uses a draw assigns its
/// generator the next state after each call (the default update,
/// FunctionOptions::no_default_updates), so calling it again gives new
/// draws, and two streams of one seed give the same draws:
///
///     rw::RandomStream rs(42);
///     rw::Var x = rs.normal(0, 1, {3});
///     auto f = rw::function({}, x);
///     rw::Tensor a = f(), b = f();   // two different draws
///
/// The parameters and their checks are RandomVariable's (NumPy's names and
/// parameterisation).
class RandomStream {
 public:
  explicit RandomStream(std::uint64_t seed = 0);

  /// Reseeds every generator the stream has made, to the states a new stream
  /// of `seed` would give them, and the draws to come with them (PyTensor's
  /// `RandomStream.seed`).
  void seed(std::uint64_t seed);
  /// The generators made so far, in order.
  const std::vector<Shared>& generators() const { return generators_; }

  Var normal(const Operand& loc = 0.0, const Operand& scale = 1.0, const Size& size = {},
             DType dtype = DType::Float64);
  Var uniform(const Operand& low = 0.0, const Operand& high = 1.0, const Size& size = {},
              DType dtype = DType::Float64);
  Var bernoulli(const Operand& p, const Size& size = {}, DType dtype = DType::Int64);
  Var binomial(const Operand& n, const Operand& p, const Size& size = {},
               DType dtype = DType::Int64);
  Var poisson(const Operand& lam = 1.0, const Size& size = {}, DType dtype = DType::Int64);
  Var gamma(const Operand& shape, const Operand& scale = 1.0, const Size& size = {},
            DType dtype = DType::Float64);
  Var beta(const Operand& a, const Operand& b, const Size& size = {}, DType dtype = DType::Float64);
  Var exponential(const Operand& scale = 1.0, const Size& size = {}, DType dtype = DType::Float64);
  Var categorical(const Var& p, const Size& size = {}, DType dtype = DType::Int64);
  Var multivariate_normal(const Var& mean, const Var& cov, const Size& size = {},
                          DType dtype = DType::Float64);
  Var integers(const Operand& low, const Operand& high, const Size& size = {},
               DType dtype = DType::Int64);
  /// Elements of `a` along axis 0, or of arange(a) for an integer a; with
  /// probabilities `p` (a vector) when given.
  Var choice(const Operand& a, const Size& size = {}, bool replace = true, const Var& p = {});
  /// `x` shuffled along axis 0, or a permutation of arange(x) for an integer x.
  Var permutation(const Operand& x);

  /// Any distribution, returning the next state as well (which the default
  /// update assigns the generator): the node is
  /// `dist(generator, size, params…)` with a new generator.
  RandomDraw draw(Distribution dist, const std::vector<Operand>& params, const Size& size = {},
                  DrawOptions options = {});

 private:
  Rng seeder_;
  std::vector<Shared> generators_;
};

}  // namespace rw
