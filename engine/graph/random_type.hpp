// RandomGeneratorType (`rng`): the type of variables whose values are the
// states of a random generator.
#pragma once

#include <cstdint>

#include "engine/graph/type.hpp"
#include "runtime/rng.hpp"
#include "runtime/tensor.hpp"

namespace rw {

/// The type of a random generator's state (PyTensor's RandomGeneratorType),
/// printed `rng`. Every variable's value is a Tensor, so a state is one: the
/// four words of the xoshiro256** stream of `rw::Rng` (Rng::State), bit for
/// bit, as an int64 tensor of shape (4), not all zero. Random variables take
/// one and return the next (docs/random.md).
class RandomGeneratorType final : public Type {
 public:
  /// The one instance.
  static TypePtr make();

  bool equals(const Type& other) const override;
  std::size_t hash() const override { return 0x5eed; }
  std::string to_string() const override { return "rng"; }
  /// A generator state is never converted: `value` is returned as it is
  /// when valid, else TypeError says what a state is.
  Tensor filter(const Tensor& value, bool strict = false,
                bool allow_downcast = false) const override;
  /// An int64 tensor of shape (4), not all zero.
  bool is_valid_value(const Tensor& value) const override;

  /// The state of `Rng(seed)` as a value of this type.
  static Tensor seed_value(std::uint64_t seed);
  /// The value holding `state`, and the state a valid value holds.
  static Tensor value_of(const Rng::State& state);
  static Rng::State state_of(const Tensor& value);
};

/// True when `type` is RandomGeneratorType.
bool is_random_generator_type(const Type& type);

}  // namespace rw
