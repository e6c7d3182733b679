// Toy Ops with in-place behaviour, for the compile tests: an Op that
// overwrites its input (destroy_map), independent of the standard library.
#pragma once

#include "engine/graph/apply.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/variable.hpp"

namespace rw::test {

/// `neg_inplace(x)`: negates x in its own buffer and returns that buffer
/// (destroy_map {0: 0}). float64 tensors.
class ToyNegInplace final : public Op {
 public:
  std::string_view name() const override { return "neg_inplace"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  IoMap destroy_map() const override { return {{0, 0}}; }
};

Var neg_inplace(const Var& x);

}  // namespace rw::test
