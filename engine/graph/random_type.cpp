// RandomGeneratorType: generator states as int64 tensors of four words.
#include "engine/graph/random_type.hpp"

#include <bit>

#include <fmt/format.h>

#include "engine/graph/errors.hpp"

namespace rw {

TypePtr RandomGeneratorType::make() {
  static const TypePtr instance = std::make_shared<const RandomGeneratorType>();
  return instance;
}

bool RandomGeneratorType::equals(const Type& other) const {
  return is_random_generator_type(other);
}

bool is_random_generator_type(const Type& type) {
  return dynamic_cast<const RandomGeneratorType*>(&type) != nullptr;
}

bool RandomGeneratorType::is_valid_value(const Tensor& value) const {
  if (!value.valid() || value.dtype() != DType::Int64 || value.ndim() != 1 || value.shape()[0] != 4)
    return false;
  for (std::int64_t i = 0; i < 4; ++i)
    if (value.at({i}) != 0) return true;
  return false;
}

Tensor RandomGeneratorType::filter(const Tensor& value, bool, bool) const {
  if (is_valid_value(value)) return value;
  if (!value.valid()) throw TypeError("expected a generator state (`rng`), got none");
  throw TypeError(fmt::format(
      "expected a generator state (`rng`: an int64 tensor of shape (4), not all zero), got {}{}",
      format_tensor_type(value.dtype(), value.shape()),
      value.dtype() == DType::Int64 && value.ndim() == 1 && value.shape()[0] == 4 ? " of zeros"
                                                                                  : ""));
}

Tensor RandomGeneratorType::seed_value(std::uint64_t seed) {
  return value_of(Rng(seed).state());
}

Tensor RandomGeneratorType::value_of(const Rng::State& state) {
  Tensor t = Tensor::empty(DType::Int64, {4});
  for (std::size_t i = 0; i < 4; ++i)
    t.data<std::int64_t>()[i] = std::bit_cast<std::int64_t>(state[i]);
  return t;
}

Rng::State RandomGeneratorType::state_of(const Tensor& value) {
  const Tensor c = value.contiguous();
  Rng::State s{};
  for (std::size_t i = 0; i < 4; ++i)
    s[i] = std::bit_cast<std::uint64_t>(c.data<std::int64_t>()[i]);
  return s;
}

}  // namespace rw
