// Helpers the Ops' L_op and R_op share: gradients summed back to an input's
// broadcast shape, and the marker variables of disconnected and undefined
// gradients.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "engine/graph/op.hpp"
#include "engine/graph/variable.hpp"

namespace rw::ops_detail {

/// A variable of DisconnectedType: input not connected to the outputs.
Var disconnected_grad_var();
/// A variable of NullType: the gradient of input `input` of `op` is undefined,
/// and why ("`op` input 1: why").
Var null_grad_var(const Op& op, std::size_t input, std::string_view why);
/// True for DisconnectedType variables (and null handles).
bool is_disconnected(const Var& v);

/// `g`, computed for an output that `x` was broadcast into, summed back to
/// x's shape: leading axes x lacks and axes where x's static extent is 1 but
/// g's is not are summed away; the result has x's rank and, when x is a float,
/// its dtype.
Var sum_to(const Var& g, const Var& x);
/// `v` broadcast to the shape of `like` (nothing is built when the static
/// shapes already agree), cast to `like`'s dtype.
Var broadcast_like(const Var& v, const Var& like);
/// `g` in x's dtype when x is a float; zeros (float_zeros_like) for a
/// discrete x, which has no gradient.
Var for_input(const Var& g, const Var& x);
/// Zeros of x's shape in a float dtype: x's own when it is a float, else float64.
Var float_zeros_like(const Var& x);
/// The dtype of a tensor variable.
DType var_dtype(const Var& v);
/// The rank of a tensor variable.
std::size_t var_rank(const Var& v);

}  // namespace rw::ops_detail
