// RandomStream: a shared generator per draw, seeded from the stream.
#include "engine/compile/random_stream.hpp"

#include <fmt/format.h>

#include "engine/graph/random_type.hpp"

namespace rw {

RandomStream::RandomStream(std::uint64_t seed) : seeder_(seed) {}

void RandomStream::seed(std::uint64_t seed) {
  seeder_ = Rng(seed);
  for (const Shared& g : generators_)
    g.set_value(RandomGeneratorType::seed_value(seeder_.next_u64()), /*borrow=*/true);
}

RandomDraw RandomStream::draw(Distribution dist, const std::vector<Operand>& params,
                              const Size& size, DrawOptions options) {
  // The stream changes only once the node is built: a refused one (a
  // parameter of the wrong type, say) leaves it as it was.
  Rng next = seeder_;
  Shared g = shared(fmt::format("rng_{}", generators_.size()),
                    RandomGeneratorType::seed_value(next.next_u64()), RandomGeneratorType::make(),
                    {.borrow = true});
  RandomDraw d = random_draw(dist, g, params, size_vector(size), options);
  seeder_ = next;
  generators_.push_back(g);
  return d;
}

Var RandomStream::normal(const Operand& loc, const Operand& scale, const Size& size, DType dtype) {
  return draw(Distribution::Normal, {loc, scale}, size, {.dtype = dtype}).value;
}
Var RandomStream::uniform(const Operand& low, const Operand& high, const Size& size, DType dtype) {
  return draw(Distribution::Uniform, {low, high}, size, {.dtype = dtype}).value;
}
Var RandomStream::bernoulli(const Operand& p, const Size& size, DType dtype) {
  return draw(Distribution::Bernoulli, {p}, size, {.dtype = dtype}).value;
}
Var RandomStream::binomial(const Operand& n, const Operand& p, const Size& size, DType dtype) {
  return draw(Distribution::Binomial, {n, p}, size, {.dtype = dtype}).value;
}
Var RandomStream::poisson(const Operand& lam, const Size& size, DType dtype) {
  return draw(Distribution::Poisson, {lam}, size, {.dtype = dtype}).value;
}
Var RandomStream::gamma(const Operand& shape, const Operand& scale, const Size& size, DType dtype) {
  return draw(Distribution::Gamma, {shape, scale}, size, {.dtype = dtype}).value;
}
Var RandomStream::beta(const Operand& a, const Operand& b, const Size& size, DType dtype) {
  return draw(Distribution::Beta, {a, b}, size, {.dtype = dtype}).value;
}
Var RandomStream::exponential(const Operand& scale, const Size& size, DType dtype) {
  return draw(Distribution::Exponential, {scale}, size, {.dtype = dtype}).value;
}
Var RandomStream::categorical(const Var& p, const Size& size, DType dtype) {
  return draw(Distribution::Categorical, {p}, size, {.dtype = dtype}).value;
}
Var RandomStream::multivariate_normal(const Var& mean, const Var& cov, const Size& size,
                                      DType dtype) {
  return draw(Distribution::MultivariateNormal, {mean, cov}, size, {.dtype = dtype}).value;
}
Var RandomStream::integers(const Operand& low, const Operand& high, const Size& size, DType dtype) {
  return draw(Distribution::Integers, {low, high}, size, {.dtype = dtype}).value;
}
Var RandomStream::choice(const Operand& a, const Size& size, bool replace, const Var& p) {
  std::vector<Operand> params{a};
  if (p) params.emplace_back(p);
  return draw(Distribution::Choice, params, size, {.replace = replace}).value;
}
Var RandomStream::permutation(const Operand& x) {
  return draw(Distribution::Permutation, {x}).value;
}

}  // namespace rw
